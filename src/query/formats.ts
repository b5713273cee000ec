import type { Transform } from 'node:stream';
import { jsonLdWriter } from '../export/jsonld.ts';
import { rdfXmlWriter } from '../export/rdfxml.ts';
import type { RdfMode } from '../rdf/rdf-mode.ts';

/**
 * The one table of formats: every syntax Weave writes, once, with all that `weave export`,
 * `weave query --format` and the server's negotiation (Accept, `format=` and `output=`) know of
 * it. A format added here is offered by all three (test/query/formats.test.ts adds one). Each is
 * written by a library where one writes it: Oxigraph writes graph answers and SPARQL results,
 * n3 streams the Turtle family; JSON-LD and RDF/XML have streaming writers of ours, since neither
 * library streams them, and SELECT/ASK results are rewritten by src/query/solutions.ts when
 * triple terms or XML 1.0 need it. Oxigraph's JS binding names a format by its media type (it
 * has no `RdfFormat` value, as its Rust and Python APIs do), so the media type is what it is
 * given. This module loads no RDF library: `weave query`'s light entry (src/client/fast.ts)
 * reads the table.
 */

/** What a format carries: SELECT and ASK results, one graph, or a dataset (named graphs too). */
export type Carries = 'solutions' | 'graph' | 'dataset';

/** The form a triple term is written in: as `--rdf`/`rdf=` asks, or as a literal of its N-Triples text (`triple-terms=literal`). */
export type GraphForm = RdfMode | 'literal';

/** Syntaxes n3 reads and writes, by its names for them. */
export type N3Syntax = 'Turtle' | 'TriG' | 'N-Triples' | 'N-Quads' | 'N3';

export interface Format {
  /** What `--format` and `format=` call it. */
  name: string;
  /** What messages call it. */
  label: string;
  mediaType: string;
  /** File extensions, the usual one first. */
  extensions: readonly string[];
  /** Other names clients send in `format=` or `output=` (SPARQLWrapper's, Fuseki's, Virtuoso's). */
  names: readonly string[];
  /** Older or looser media types clients ask for it by in Accept. */
  accepts: readonly string[];
  /** Other media types a Graph Store write may name it by. */
  reads: readonly string[];
  carries: Carries;
  /**
   * The form a triple term takes in it under each `--rdf` mode: as asked, or its fallback (RDF 1.1
   * reification where the syntax has none, a literal in results). A mode it lacks cannot be
   * written. Oxigraph writes only RDF 1.2, so a graph syntax with RDF-star needs `n3` or `lines`.
   */
  tripleTerms: Readonly<Partial<Record<RdfMode, GraphForm>>>;
  /** XML 1.0 text: a character XML 1.0 cannot carry makes it refuse the result. */
  xml: boolean;
  /** The graph syntax this one extends with graph names (N-Quads: N-Triples): one graph is sent in that one instead. */
  extends?: string;
  /** n3's name for it: n3 reads it (source files), and writes it for the export and for RDF-star. */
  n3?: N3Syntax;
  /** The store's N-Quads lines are it (less their graph names for a syntax without): the export copies them. */
  lines?: boolean;
  /** Our streaming writer, quads in and text out, where neither library streams the syntax. */
  writer?: () => Transform;
}

/** Triple terms as asked: RDF 1.2, RDF 1.1 reification on the same reifier, or RDF-star. */
const AS_ASKED = { '1.2': '1.2', '1.1': '1.1', star: 'star' } as const;
/** No triple terms: RDF 1.1 reification stands in for RDF-star too, and RDF 1.2 cannot be written. */
const REIFIED = { '1.1': '1.1', star: '1.1' } as const;
/** SPARQL JSON and XML results: RDF 1.1 has no triple terms (literals), and RDF-star's results are RDF 1.2's. */
const STRUCTURED_RESULTS = { '1.2': '1.2', '1.1': 'literal', star: '1.2' } as const;
/** CSV and TSV: `<<( s p o )>>`, `<< s p o >>` for RDF-star, a literal for RDF 1.1. */
const TEXT_RESULTS = { '1.2': '1.2', '1.1': 'literal', star: 'star' } as const;

const none: readonly string[] = [];

/**
 * Every format, in the server's order of preference within what it carries: SPARQL JSON and
 * Turtle first, since a client that says nothing gets them. Tests may add one; nothing caches it.
 */
export const FORMATS: Format[] = [
  {
    name: 'json',
    label: 'SPARQL JSON',
    mediaType: 'application/sparql-results+json',
    extensions: ['srj'],
    names: ['sparql-results+json'],
    accepts: ['application/json'],
    reads: none,
    carries: 'solutions',
    tripleTerms: STRUCTURED_RESULTS,
    xml: false,
  },
  {
    name: 'xml',
    label: 'SPARQL XML',
    mediaType: 'application/sparql-results+xml',
    extensions: ['srx'],
    names: ['sparql'],
    accepts: none,
    reads: none,
    carries: 'solutions',
    tripleTerms: STRUCTURED_RESULTS,
    xml: true,
  },
  {
    name: 'csv',
    label: 'CSV',
    mediaType: 'text/csv',
    extensions: ['csv'],
    names: none,
    accepts: none,
    reads: none,
    carries: 'solutions',
    tripleTerms: TEXT_RESULTS,
    xml: false,
  },
  {
    name: 'tsv',
    label: 'TSV',
    mediaType: 'text/tab-separated-values',
    extensions: ['tsv'],
    names: none,
    accepts: none,
    reads: none,
    carries: 'solutions',
    tripleTerms: TEXT_RESULTS,
    xml: false,
  },
  {
    name: 'turtle',
    label: 'Turtle',
    mediaType: 'text/turtle',
    extensions: ['ttl', 'turtle'],
    names: ['ttl', 'n3'],
    accepts: ['application/x-turtle'],
    reads: ['application/x-turtle'],
    carries: 'graph',
    tripleTerms: AS_ASKED,
    xml: false,
    n3: 'Turtle',
  },
  {
    name: 'ntriples',
    label: 'N-Triples',
    mediaType: 'application/n-triples',
    extensions: ['nt', 'ntriples'],
    names: ['nt', 'n-triples'],
    accepts: none,
    reads: ['text/plain'],
    carries: 'graph',
    tripleTerms: AS_ASKED,
    xml: false,
    n3: 'N-Triples',
    lines: true,
  },
  {
    name: 'nquads',
    label: 'N-Quads',
    mediaType: 'application/n-quads',
    extensions: ['nq', 'nquads'],
    names: ['nq', 'n-quads'],
    accepts: none,
    reads: none,
    carries: 'dataset',
    tripleTerms: AS_ASKED,
    xml: false,
    extends: 'ntriples',
    n3: 'N-Quads',
    lines: true,
  },
  {
    name: 'trig',
    label: 'TriG',
    mediaType: 'application/trig',
    extensions: ['trig'],
    names: none,
    accepts: none,
    reads: none,
    carries: 'dataset',
    tripleTerms: AS_ASKED,
    xml: false,
    extends: 'turtle',
    n3: 'TriG',
  },
  {
    name: 'jsonld',
    label: 'JSON-LD',
    mediaType: 'application/ld+json',
    extensions: ['jsonld'],
    names: ['json-ld', 'json'],
    accepts: ['application/json'],
    reads: none,
    carries: 'dataset',
    tripleTerms: REIFIED,
    xml: false,
    writer: jsonLdWriter,
  },
  {
    name: 'rdfxml',
    label: 'RDF/XML',
    mediaType: 'application/rdf+xml',
    extensions: ['rdf'],
    names: ['xml', 'rdf', 'rdf+xml', 'rdf/xml'],
    accepts: none,
    reads: none,
    carries: 'graph',
    tripleTerms: REIFIED,
    xml: true,
    writer: rdfXmlWriter,
  },
];

/** What a query form answers with: SELECT and ASK with solutions, CONSTRUCT and DESCRIBE with a graph. */
export type ResultKind = 'solutions' | 'graph';

/** The formats a kind of result is written in, in the server's order of preference. */
export function formatsFor(kind: ResultKind): Format[] {
  return FORMATS.filter((f) => (kind === 'solutions' ? f.carries === 'solutions' : f.carries !== 'solutions'));
}

/** The syntaxes one graph is sent in (a Graph Store read, the service and VoID descriptions). */
export function oneGraphFormats(): Format[] {
  return formatsFor('graph').filter((f) => !f.extends);
}

/** The format `name` (as `--format` says it). */
export function formatNamed(name: string): Format | undefined {
  return FORMATS.find((f) => f.name === name);
}

/** The format of a media type (its own, not an alias). */
export function formatOf(mediaType: string): Format | undefined {
  return FORMATS.find((f) => f.mediaType === mediaType);
}

/** The media type of a format the code itself asks for (N-Quads of a graph, SPARQL JSON of solutions). */
export function mediaTypeNamed(name: string): string {
  const format = formatNamed(name);
  if (!format) throw new Error(`no format named ${name}`);
  return format.mediaType;
}

/** The form triple terms take in `format` when `form` is asked; undefined when it cannot write them. */
export function tripleTermForm(format: Format, form: GraphForm): GraphForm | undefined {
  return form === 'literal' ? 'literal' : format.tripleTerms[form];
}

/** The formats' names for messages and help: `turtle, ntriples, rdfxml`, or with `last` = ' and ', `turtle, ntriples and rdfxml`. */
export function nameList(formats: Format[], last = ', '): string {
  const names = formats.map((f) => f.name);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')}${last}${names.at(-1)}`;
}

/** The formats' names for help, the one taken when none is given marked: `turtle (default), ntriples, …`. */
export function helpList(formats: Format[], byDefault: string): string {
  return formats.map((f) => (f.name === byDefault ? `${f.name} (default)` : f.name)).join(', ');
}
