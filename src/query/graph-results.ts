import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { turtleText } from '../export/turtle.ts';
import { isTripleTerm, parseQuadLine, quadLine } from '../rdf/nquads.ts';
import { mapQuadLine, type RdfMode } from '../rdf/rdf-mode.ts';
import { NOT_XML_IN_NTRIPLES } from '../rdf/xml.ts';
import { DATASET_FORMATS, GRAPH_FORMATS } from './formats.ts';

/**
 * CONSTRUCT and DESCRIBE answers (given as N-Quads text) in any RDF syntax, with triple terms in
 * the form the client reads: as they are (`1.2`), as RDF 1.1 reification on the same reifier
 * (`1.1`), as RDF-star (`star`), or as literals of their N-Triples text (`literal`, what
 * `triple-terms=literal` asks for). JSON-LD and RDF/XML cannot carry triple terms in any form,
 * so `star` gives them RDF 1.1 reification; under `1.2` they refuse a result that holds one
 * (`NoTripleTermsError`), as they refuse text XML 1.0 cannot carry (`NotXmlGraphError`), so the
 * caller can offer the next format the client accepts.
 */

export type GraphForm = RdfMode | 'literal';

export class NoTripleTermsError extends Error {}
export class NotXmlGraphError extends Error {}

const NO_TRIPLE_TERMS = new Set([GRAPH_FORMATS.jsonld, GRAPH_FORMATS.rdfxml]);
const NOT_XML = new RegExp(NOT_XML_IN_NTRIPLES.source, 'g');

export function writeGraph(nquads: string, mediaType: string, form: GraphForm = '1.2'): string {
  const tripleTerms = nquads.includes('<<(');
  let text = nquads;
  let mode = form;
  if (tripleTerms && NO_TRIPLE_TERMS.has(mediaType)) {
    if (mode === '1.2') throw new NoTripleTermsError(`${mediaType} cannot carry RDF 1.2 triple terms`);
    if (mode === 'star') mode = '1.1';
  }
  if (mediaType === GRAPH_FORMATS.rdfxml) {
    const statements = new Set([...nquads.matchAll(NOT_XML)].map((m) => nquads.lastIndexOf('\n', m.index))).size;
    if (statements)
      throw new NotXmlGraphError(
        `the result holds ${statements} statement${statements === 1 ? '' : 's'} with characters XML 1.0 cannot carry, so it cannot be RDF/XML`,
      );
  }
  if (tripleTerms && mode !== '1.2') text = mapLines(text, mode);
  if (tripleTerms && mode === 'star') {
    // Written here: Oxigraph writes only RDF 1.2, and N3 reads `<< s p o >>` as a reifier.
    if (mediaType === GRAPH_FORMATS.nquads) return text;
    if (mediaType === GRAPH_FORMATS.ntriples)
      return text.replace(/^(.*) <[^<>]*> \.$/gm, (line, head) => (parseQuadLine(line)?.g ? `${head} .` : line));
    const quads = new Parser({ format: 'N-Quads' }).parse(nquads);
    if (mediaType === GRAPH_FORMATS.turtle) return turtleText(quads, 'Turtle', 'star');
    if (mediaType === GRAPH_FORMATS.trig) return turtleText(quads, 'TriG', 'star');
  }
  const store = new oxigraph.Store();
  store.load(text, { format: GRAPH_FORMATS.nquads });
  return DATASET_FORMATS.has(mediaType)
    ? store.dump({ format: mediaType })
    : store.dump({ format: mediaType, from_graph_name: oxigraph.defaultGraph() });
}

function mapLines(nquads: string, mode: GraphForm): string {
  return nquads.replace(/^.*<<\(.*$/gm, (line) => (mode === 'literal' ? literalLine(line) : mapQuadLine(line, mode).slice(0, -1)));
}

/** A triple-term object as a plain literal holding its N-Triples text. */
function literalLine(line: string): string {
  const q = parseQuadLine(line);
  if (!q || !isTripleTerm(q.o)) return line;
  return quadLine({ ...q, o: `"${q.o.replace(/[\\"]/g, (c) => `\\${c}`)}"` }).slice(0, -1);
}
