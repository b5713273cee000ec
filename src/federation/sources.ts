import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import type * as RDF from '@rdfjs/types';
import { StreamParser, termToId } from 'n3';
import oxigraph from 'oxigraph';
import rdf from 'rdf-ext';
import { FORMATS } from '../query/formats.ts';
import { isTrap } from '../query/traps.ts';
import { SourceFileError } from './errors.ts';

/**
 * What a federated query reads besides remote endpoints: Weave's own store and RDF files, each
 * as an RDF/JS source for Comunica. Both match triple-term patterns themselves (Comunica's own
 * post-filter loses quads of named graphs under union-default-graph semantics), so a pattern
 * like `?claim rdf:reifies <<( ?turn weave:exhibits ?what )>>` finds claims in every graph.
 */

/** The RDF/JS source interface Comunica queries, with the feature flag that keeps quoted patterns whole. */
interface PatternSource {
  features: { quotedTripleFiltering: true };
  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): Iterable<RDF.Quad>;
  countQuads(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): number;
}

type Matcher = (s: RDF.Term | null, p: RDF.Term | null, o: RDF.Term | null, g: RDF.Term | null) => Iterable<RDF.Quad>;

/**
 * A source from a plain matcher: a triple term with variables inside is matched by its shape here.
 * Its default graph is the merge of all its graphs, a set, as the store's is for Oxigraph
 * (src/query/merge.ts): a triple that several session graphs state is matched once. Comunica's
 * own union default graph would yield it once per graph, so the engine asks for the default
 * graph itself (`unionDefaultGraph: false`) and this source answers it.
 */
function patternSource(
  match: Matcher,
  count: (s: RDF.Term | null, p: RDF.Term | null, o: RDF.Term | null, g: RDF.Term | null) => number,
): PatternSource {
  const bound = (t: RDF.Term | null | undefined) =>
    !t || t.termType === 'Variable' || (t.termType === 'Quad' && hasVariable(t)) ? null : t;
  return {
    features: { quotedTripleFiltering: true },
    *match(s, p, o, g) {
      const shaped = o?.termType === 'Quad' && hasVariable(o) ? o : undefined;
      if (g?.termType === 'DefaultGraph') {
        yield* merged(match(bound(s), bound(p), bound(o), null), shaped);
        return;
      }
      for (const q of match(bound(s), bound(p), bound(o), bound(g))) if (!shaped || fits(q.object, shaped)) yield q;
    },
    countQuads(s, p, o, g) {
      if (o?.termType === 'Quad' && hasVariable(o)) return size(this.match(s, p, o, g));
      return count(bound(s), bound(p), bound(o), bound(g));
    },
  };
}

function size(quads: Iterable<RDF.Quad>): number {
  let n = 0;
  for (const _ of quads) n++;
  return n;
}

/** Each triple of the quads once, in the default graph. */
function* merged(quads: Iterable<RDF.Quad>, shaped: RDF.Term | undefined): Iterable<RDF.Quad> {
  const seen = new Set<string>();
  for (const q of quads) {
    if (shaped && !fits(q.object, shaped)) continue;
    const key = `${termToId(q.subject as never)} ${termToId(q.predicate as never)} ${termToId(q.object as never)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    yield q.graph.termType === 'DefaultGraph' ? q : rdf.quad(q.subject, q.predicate, q.object);
  }
}

function hasVariable(t: RDF.Term): boolean {
  return (
    t.termType === 'Variable' || (t.termType === 'Quad' && (hasVariable(t.subject) || hasVariable(t.predicate) || hasVariable(t.object)))
  );
}

/** Whether `term` has the shape of `pattern` (variables match anything; repeated ones are checked by Comunica). */
function fits(term: RDF.Term, pattern: RDF.Term): boolean {
  if (pattern.termType === 'Variable') return true;
  if (pattern.termType !== 'Quad') return term.equals(pattern);
  return (
    term.termType === 'Quad' &&
    fits(term.subject, pattern.subject) &&
    fits(term.predicate, pattern.predicate) &&
    fits(term.object, pattern.object)
  );
}

/**
 * Weave's store (an in-memory Oxigraph copy) as a source. Quads come back as rdf-ext terms; cardinalities are counted inside Oxigraph, without building terms.
 */
export function storeSource(store: oxigraph.Store): PatternSource {
  return patternSource(
    (s, p, o, g) => {
      const terms = held(s, p, o, g);
      return terms ? store.match(...terms).map((q) => rdf.fromQuad(q as unknown as RDF.Quad)) : [];
    },
    (s, p, o, g) => {
      if (!held(s, p, o, g)) return 0;
      const term = (t: RDF.Term | null, name: string) => (t ? sparqlTerm(t) : `?${name}`);
      const pattern = `${term(s, 's')} ${term(p, 'p')} ${term(o, 'o')}`;
      const everywhere = `{ ${pattern} } UNION { GRAPH ?g { ${pattern} } }`;
      // The default graph is the merge: each triple once, whichever graphs state it.
      const open = [s ? '' : '?s', p ? '' : '?p', o ? '' : '?o'].join(' ').trim();
      const where =
        g === null
          ? everywhere
          : g.termType === 'DefaultGraph'
            ? open
              ? `SELECT DISTINCT ${open} WHERE { ${everywhere} }`
              : `FILTER EXISTS { ${everywhere} }`
            : `GRAPH ${term(g, 'g')} { ${pattern} }`;
      const rows = store.query(`SELECT (COUNT(*) AS ?n) WHERE { ${where} }`) as Map<string, oxigraph.Term>[];
      return Number(rows[0]?.get('n')?.value ?? 0);
    },
  );
}

/**
 * The bound terms as Oxigraph's, or undefined when Oxigraph refuses one, so the store holds no
 * quad with it: an endpoint's answer may bind an IRI no IRI can be (`not an iri`, with a space).
 * Joined with the store it matches nothing; it threw inside Comunica's pipeline instead, an error
 * nobody handled, and the query failed.
 */
function held(s: RDF.Term | null, p: RDF.Term | null, o: RDF.Term | null, g: RDF.Term | null) {
  try {
    return [s, p, o, g].map((t) => (t ? (oxigraph.fromTerm(t as never) as never) : null)) as [never, never, never, never];
  } catch (e) {
    // A trap leaves Oxigraph in an unknown state: the worker must hear of it and be replaced.
    if (isTrap(e)) throw e;
    return undefined;
  }
}

/**
 * A bound term as SPARQL text. Oxigraph writes a triple term as its bare `s p o`, which in a
 * pattern is a syntax error: thrown while Comunica gathered metadata, it was unhandled and killed
 * the query worker (and its copy of the store) when a SERVICE bound a triple term first.
 */
function sparqlTerm(t: RDF.Term): string {
  if (t.termType === 'Quad') return `<<( ${sparqlTerm(t.subject)} ${sparqlTerm(t.predicate)} ${sparqlTerm(t.object)} )>>`;
  return oxigraph.fromTerm(t as never)!.toString();
}

/** The syntaxes a file source may be in: those of the format table N3's parser reads (RDF 1.2 included). */
const fileSyntaxes = () => FORMATS.filter((f) => f.n3);

/** An RDF file as a source: parsed once into an rdf-ext dataset (its quads in memory, indexed). */
export async function fileSource(path: string): Promise<PatternSource> {
  const extension = extname(path).toLowerCase().slice(1);
  const syntaxes = fileSyntaxes();
  const format = syntaxes.find((f) => f.extensions.includes(extension))?.mediaType;
  if (!format)
    throw new SourceFileError(
      `${path}: a source file is ${syntaxes.map((f) => `${f.label} (.${f.extensions[0]})`).join(', ')}; serve other syntaxes over HTTP`,
    );
  const dataset = rdf.dataset();
  const input = createReadStream(path);
  try {
    await dataset.import(input.pipe(new StreamParser({ format, baseIRI: new URL(`file://${path}`).href })));
  } catch (e) {
    throw new SourceFileError(`${path}: ${(e as Error).message.replace(/"[^"]*"/g, '"…"')}`);
  }
  return patternSource(
    (s, p, o, g) => dataset.match(s, p, o, g),
    (s, p, o, g) =>
      g?.termType === 'DefaultGraph' ? size(merged(dataset.match(s, p, o, null), undefined)) : dataset.match(s, p, o, g).size,
  );
}
