import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import type * as RDF from '@rdfjs/types';
import { StreamParser } from 'n3';
import oxigraph from 'oxigraph';
import rdf from 'rdf-ext';

/**
 * What a federated query reads besides remote endpoints: Weave's own store and RDF files, each
 * as an RDF/JS source for Comunica. Both match triple-term patterns themselves (Comunica's own
 * post-filter loses quads of named graphs under union-default-graph semantics), so a pattern
 * like `?claim rdf:reifies <<( ?turn weave:exhibits ?what )>>` finds claims in every graph.
 */

/** The RDF/JS source interface Comunica queries, with the feature flag that keeps quoted patterns whole. */
export interface PatternSource {
  features: { quotedTripleFiltering: true };
  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): Iterable<RDF.Quad>;
  countQuads(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): number;
}

type Pattern = [s: RDF.Term | null, p: RDF.Term | null, o: RDF.Term | null, g: RDF.Term | null];

/**
 * A source from a matcher and a counter, both given the pattern as Comunica sends it: `null` or a
 * variable for a wildcard, and possibly a triple term with variables inside, which the matcher
 * must match by its shape.
 */
function patternSource(match: (...pattern: Pattern) => Iterable<RDF.Quad>, count: (...pattern: Pattern) => number): PatternSource {
  const wild = (t: RDF.Term | null | undefined) => (!t || t.termType === 'Variable' ? null : t);
  return {
    features: { quotedTripleFiltering: true },
    match: (s, p, o, g) => match(wild(s), wild(p), wild(o), wild(g)),
    countQuads: (s, p, o, g) => count(wild(s), wild(p), wild(o), wild(g)),
  };
}

function hasVariable(t: RDF.Term): boolean {
  return t.termType === 'Variable' || (t.termType === 'Quad' && (hasVariable(t.subject) || hasVariable(t.predicate) || hasVariable(t.object)));
}

/** A term to look up by: a triple term with variables inside is a wildcard (and matched by shape after). */
function lookup(t: RDF.Term | null): RDF.Term | null {
  return t && t.termType === 'Quad' && hasVariable(t) ? null : t;
}

/** Whether `term` has the shape of `pattern` (variables match anything; repeated ones are checked by Comunica). */
function fits(term: RDF.Term, pattern: RDF.Term): boolean {
  if (pattern.termType === 'Variable') return true;
  if (pattern.termType === 'Quad')
    return term.termType === 'Quad' && fits(term.subject, pattern.subject) && fits(term.predicate, pattern.predicate) && fits(term.object, pattern.object);
  if (term.termType !== pattern.termType || term.value !== pattern.value) return false;
  if (term.termType !== 'Literal') return true;
  const [a, b] = [term as RDF.Literal, pattern as RDF.Literal];
  return a.language === b.language && a.datatype.value === b.datatype.value;
}

/**
 * Weave's store (an in-memory Oxigraph copy) as a source. Quads are matched (triple-term shapes
 * included) on Oxigraph's own terms, and only the matches become rdf-ext terms; cardinalities
 * are counted by Oxigraph itself, as a SPARQL COUNT of the same pattern.
 */
export function storeSource(store: oxigraph.Store): PatternSource {
  const ox = (t: RDF.Term | null) => (t ? (oxigraph.fromTerm(t) as never) : null);
  return patternSource(
    (s, p, o, g) => {
      const quads = store.match(ox(lookup(s)), ox(lookup(p)), ox(lookup(o)), ox(lookup(g))) as unknown as RDF.Quad[];
      const shaped = o && o.termType === 'Quad' && hasVariable(o) ? o : undefined;
      return (shaped ? quads.filter((q) => fits(q.object, shaped)) : quads).map((q) => rdf.fromQuad(q));
    },
    (s, p, o, g) => {
      let fresh = 0;
      const term = (t: RDF.Term | null): string => {
        if (!t || t.termType === 'Variable') return `?v${fresh++}`;
        if (t.termType === 'Quad') return `<<( ${term(t.subject)} ${term(t.predicate)} ${term(t.object)} )>>`;
        return oxigraph.fromTerm(t as never)!.toString();
      };
      const pattern = `${term(s)} ${term(p)} ${term(o)}`;
      const where = g === null ? `{ ${pattern} } UNION { GRAPH ?g { ${pattern} } }` : g.termType === 'DefaultGraph' ? pattern : `GRAPH ${term(g)} { ${pattern} }`;
      const rows = store.query(`SELECT (COUNT(*) AS ?n) WHERE { ${where} }`) as Map<string, oxigraph.Term>[];
      return Number(rows[0]?.get('n')?.value ?? 0);
    },
  );
}

/** Syntaxes a file source may be in, by extension (N3's parser reads them all, RDF 1.2 included). */
const FILE_SYNTAX: Record<string, string> = {
  '.ttl': 'text/turtle',
  '.turtle': 'text/turtle',
  '.trig': 'application/trig',
  '.nt': 'application/n-triples',
  '.ntriples': 'application/n-triples',
  '.nq': 'application/n-quads',
  '.nquads': 'application/n-quads',
};

export class SourceFileError extends Error {}

/** An RDF file as a source: parsed once into an rdf-ext dataset (its quads in memory, indexed). */
export async function fileSource(path: string): Promise<PatternSource> {
  const format = FILE_SYNTAX[extname(path).toLowerCase()];
  if (!format) throw new SourceFileError(`${path}: a source file is Turtle, TriG, N-Triples or N-Quads (.ttl, .trig, .nt, .nq); serve other syntaxes over HTTP`);
  const dataset = rdf.dataset();
  const input = createReadStream(path);
  try {
    await dataset.import(input.pipe(new StreamParser({ format, baseIRI: new URL(`file://${path}`).href })));
  } catch (e) {
    throw new SourceFileError(`${path}: ${(e as Error).message.replace(/"[^"]*"/g, '"…"')}`);
  }
  const match = (s: RDF.Term | null, p: RDF.Term | null, o: RDF.Term | null, g: RDF.Term | null) => {
    const quads = dataset.match(lookup(s), lookup(p), lookup(o), lookup(g));
    const shaped = o && o.termType === 'Quad' && hasVariable(o) ? o : undefined;
    return shaped ? [...quads].filter((q) => fits(q.object, shaped)) : quads;
  };
  return patternSource(match, (...pattern) => [...match(...pattern)].length);
}
