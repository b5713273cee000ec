import { own } from '../../own.ts';
import { GRAPH_FORMATS, SOLUTION_FORMATS } from '../../query/formats.ts';
import { acceptable } from './negotiate.ts';

/**
 * The media types the endpoint serves, in its order of preference, and the names clients use
 * for them. SPARQL JSON and Turtle come first: they are what a client gets when it says nothing.
 */

const SOLUTION_TYPES = [SOLUTION_FORMATS.json, SOLUTION_FORMATS.xml, SOLUTION_FORMATS.csv, SOLUTION_FORMATS.tsv];

export const GRAPH_TYPES = [
  GRAPH_FORMATS.turtle,
  GRAPH_FORMATS.ntriples,
  GRAPH_FORMATS.nquads,
  GRAPH_FORMATS.trig,
  GRAPH_FORMATS.jsonld,
  GRAPH_FORMATS.rdfxml,
];

/** Older or looser names for the same formats, which many clients still send. */
const SOLUTION_ALIASES: Record<string, string> = { 'application/json': SOLUTION_FORMATS.json };
const GRAPH_ALIASES: Record<string, string> = {
  'application/x-turtle': GRAPH_FORMATS.turtle,
  'application/json': GRAPH_FORMATS.jsonld,
};

type ResultKind = 'solutions' | 'graph';

/**
 * Short format names clients send in `format=` or `output=`, besides ours (json, xml, csv, tsv;
 * turtle, ntriples, nquads, trig, jsonld, rdfxml): SPARQLWrapper's (xml, json, n3, turtle,
 * rdf, rdf+xml, json-ld, csv, tsv), Fuseki's and Virtuoso's. `xml` and `json` mean the results
 * formats for solutions and RDF/XML and JSON-LD for graphs, as SPARQLWrapper means them.
 */
const SOLUTION_NAMES: Record<string, string> = {
  ...SOLUTION_FORMATS,
  sparql: SOLUTION_FORMATS.xml,
  'sparql-results+json': SOLUTION_FORMATS.json,
};
const GRAPH_NAMES: Record<string, string> = {
  ...GRAPH_FORMATS,
  ttl: GRAPH_FORMATS.turtle,
  n3: GRAPH_FORMATS.turtle,
  nt: GRAPH_FORMATS.ntriples,
  'n-triples': GRAPH_FORMATS.ntriples,
  nq: GRAPH_FORMATS.nquads,
  'n-quads': GRAPH_FORMATS.nquads,
  'json-ld': GRAPH_FORMATS.jsonld,
  json: GRAPH_FORMATS.jsonld,
  xml: GRAPH_FORMATS.rdfxml,
  rdf: GRAPH_FORMATS.rdfxml,
  'rdf+xml': GRAPH_FORMATS.rdfxml,
  'rdf/xml': GRAPH_FORMATS.rdfxml,
};

/**
 * The formats a request accepts for a result kind, best first. A format the request names
 * (`format=` or `output=`: a short name such as `csv`, or a media type; SPARQLWrapper sends
 * several) wins over Accept: the first one known for this kind. Names this kind of result
 * cannot take (`csv` for a graph) or does not know are passed over, and Accept decides, as it
 * does when no name is given. Empty means 406.
 */
export function acceptedTypes(kind: ResultKind, accept: string | undefined, formats: string | string[] = []): string[] {
  const types = kind === 'graph' ? GRAPH_TYPES : SOLUTION_TYPES;
  const aliases = kind === 'graph' ? GRAPH_ALIASES : SOLUTION_ALIASES;
  const names = kind === 'graph' ? GRAPH_NAMES : SOLUTION_NAMES;
  for (const format of (typeof formats === 'string' ? [formats] : formats).flatMap((f) => f.split(','))) {
    const name = format.trim().toLowerCase();
    const type = own(names, name) ?? own(aliases, name) ?? name.split(';')[0].trim();
    if (types.includes(type)) return [type];
  }
  const offers = [...types, ...Object.keys(aliases)];
  const chosen = acceptable(accept, offers).map((t) => own(aliases, t) ?? t);
  return [...new Set(chosen)];
}

/** The Content-Type header for a media type we serve: every one is UTF-8 text. */
export function contentType(mediaType: string): string {
  return `${mediaType}; charset=utf-8`;
}

/** RDF syntaxes a Graph Store Protocol write may carry, by media type. */
export const RDF_INPUT_TYPES: Record<string, string> = {
  'text/turtle': GRAPH_FORMATS.turtle,
  'application/x-turtle': GRAPH_FORMATS.turtle,
  'application/n-triples': GRAPH_FORMATS.ntriples,
  'text/plain': GRAPH_FORMATS.ntriples,
  'application/n-quads': GRAPH_FORMATS.nquads,
  'application/trig': GRAPH_FORMATS.trig,
  'application/rdf+xml': GRAPH_FORMATS.rdfxml,
  'application/ld+json': GRAPH_FORMATS.jsonld,
};
