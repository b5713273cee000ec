import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { turtleText } from '../export/turtle.ts';
import { isTripleTerm, parseQuadLine, quadLine } from '../rdf/nquads.ts';
import { mapQuadLine } from '../rdf/rdf-mode.ts';
import { NOT_XML_IN_NTRIPLES } from '../rdf/xml.ts';
import { formatOf, type GraphForm, mediaTypeNamed, tripleTermForm } from './formats.ts';

/**
 * CONSTRUCT and DESCRIBE answers (given as N-Quads text) in any RDF syntax of the format table,
 * with triple terms in the form the client reads: as they are (`1.2`), as RDF 1.1 reification
 * on the same reifier (`1.1`), as RDF-star (`star`), or as literals of their N-Triples text
 * (`literal`, what `triple-terms=literal` asks for). A syntax without triple terms (JSON-LD,
 * RDF/XML) takes the fallback the table gives it (RDF 1.1 reification for `star`); under `1.2`
 * it refuses a result that holds one (`NoTripleTermsError`), as XML refuses text XML 1.0 cannot
 * carry (`NotXmlGraphError`), so the caller can offer the next format the client accepts.
 * Oxigraph writes every syntax, but only in RDF 1.2: RDF-star is written as the export writes it.
 */

export class NoTripleTermsError extends Error {}
export class NotXmlGraphError extends Error {}

const NOT_XML = new RegExp(NOT_XML_IN_NTRIPLES.source, 'g');

export function writeGraph(nquads: string, mediaType: string, form: GraphForm = '1.2'): string {
  const format = formatOf(mediaType);
  if (!format || format.carries === 'solutions') throw new Error(`no graph writer for ${mediaType}`);
  const tripleTerms = nquads.includes('<<(');
  let text = nquads;
  let mode = form;
  if (tripleTerms) {
    const written = tripleTermForm(format, form);
    if (!written) throw new NoTripleTermsError(`${mediaType} cannot carry RDF 1.2 triple terms`);
    mode = written;
  }
  if (format.xml) {
    const statements = new Set([...nquads.matchAll(NOT_XML)].map((m) => nquads.lastIndexOf('\n', m.index))).size;
    if (statements)
      throw new NotXmlGraphError(
        `the result holds ${statements} statement${statements === 1 ? '' : 's'} with characters XML 1.0 cannot carry, so it cannot be ${format.label}`,
      );
  }
  if (tripleTerms && mode !== '1.2') text = mapLines(text, mode);
  if (tripleTerms && mode === 'star') {
    // Written here: Oxigraph writes only RDF 1.2, and N3 reads `<< s p o >>` as a reifier.
    if (format.lines && format.carries === 'dataset') return text;
    if (format.lines) return text.replace(/^(.*) <[^<>]*> \.$/gm, (line, head) => (parseQuadLine(line)?.g ? `${head} .` : line));
    if (format.n3) return turtleText(new Parser({ format: 'N-Quads' }).parse(nquads), format, 'star');
  }
  const store = new oxigraph.Store();
  store.load(text, { format: mediaTypeNamed('nquads') });
  return dump(store, mediaType);
}

/** A store in an RDF syntax: all its graphs in a dataset syntax, its default graph in a graph syntax. */
export function dump(store: oxigraph.Store, mediaType: string): string {
  return formatOf(mediaType)?.carries === 'dataset'
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
