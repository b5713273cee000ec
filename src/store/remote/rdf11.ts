import oxigraph from 'oxigraph';
import { RDF } from '../../rdf/terms.ts';

/**
 * Graph text for a store without RDF 1.2: every triple term in the RDF 1.1 form of reification.
 * `R rdf:reifies <<( s p o )>>` becomes `R a rdf:Statement ; rdf:subject s ; rdf:predicate p ;
 * rdf:object o` on the same reifier R, so annotations on R keep their subject; a triple term under
 * any other predicate gets a blank node as its reifier. (The interop issue's mapping; this small
 * one stands until src/rdf/ has it.)
 */

const REIFIES = `${RDF}reifies`;
const TYPE = `<${RDF}type>`;
const STATEMENT = `<${RDF}Statement>`;

/**
 * A graph file's N-Quads as N-Triples (a Graph Store PUT names the graph itself), triple terms in
 * RDF 1.1 form unless the store takes them. `graph` is the graph every line names (null: the
 * default graph, whose lines name none).
 */
export function graphPayload(text: string, graph: string | null, tripleTerms: boolean): string {
  const out = convert(text.split('\n'), graph, tripleTerms, 'weaveTripleTerm', false);
  return out.length ? `${out.map(maskMarkup).join('\n')}\n` : '';
}

/**
 * The same graph as N-Quads, each line naming `graph`, for a bulk loader's file that holds many
 * graphs, as parts of bytes to write one after another. A blank node's label holds in a whole
 * file, so each graph's blank nodes (the reifiers of nested triple terms) are labelled with
 * `label`, which the caller makes unique in the file. Lines without a triple term are passed on as
 * the bytes they are (a graph file's lines all name its graph); those with one are converted
 * together, after them (N-Quads lines have no order).
 */
export function graphQuads(bytes: Buffer, graph: string, tripleTerms: boolean, label: string): Buffer[] {
  const parts: Buffer[] = [];
  const terms: string[] = [];
  let at = 0;
  for (let hit = bytes.indexOf(OPEN); hit >= 0; hit = at < bytes.length ? bytes.indexOf(OPEN, at) : -1) {
    const start = bytes.lastIndexOf(NEWLINE, hit) + 1;
    const end = bytes.indexOf(NEWLINE, hit);
    if (start > at) parts.push(bytes.subarray(at, start));
    terms.push(bytes.toString('utf8', start, end < 0 ? bytes.length : end));
    at = end < 0 ? bytes.length : end + 1;
  }
  if (at < bytes.length) parts.push(bytes.subarray(at));
  if (bytes.length && bytes[bytes.length - 1] !== NEWLINE) parts.push(Buffer.from('\n'));
  const out = terms.length ? convert(terms, graph, tripleTerms, label, true) : [];
  if (out.length) parts.push(Buffer.from(`${out.join('\n')}\n`));
  return parts;
}

const OPEN = Buffer.from('<<(');
const NEWLINE = 0x0a;

function convert(lines: Iterable<string>, graph: string | null, tripleTerms: boolean, label: string, quads: boolean): string[] {
  const out: string[] = [];
  let fresh = 0;
  const suffix = graph === null ? ' .' : ` ${oxigraph.namedNode(graph)} .`;
  const end = quads ? suffix : ' .';
  /** `reifier` as an rdf:Statement of the subject, predicate and object given as N-Triples terms. */
  const statement = (reifier: string, s: string, p: string, o: string) => {
    out.push(
      `${reifier} ${TYPE} ${STATEMENT}${end}`,
      `${reifier} <${RDF}subject> ${s}${end}`,
      `${reifier} <${RDF}predicate> ${p}${end}`,
      `${reifier} <${RDF}object> ${o}${end}`,
    );
  };
  // A nested term's statement is written as its term is met (the subject's first).
  const parsedStatement = (reifier: string, t: oxigraph.Quad) => {
    const s = term(t.subject);
    statement(reifier, s, t.predicate.toString(), term(t.object));
  };
  // A nested triple term gets a blank node of its own.
  const term = (t: oxigraph.Term): string => {
    if (t.termType !== 'Quad') return t.toString();
    const q = t as oxigraph.Quad;
    // Oxigraph writes a quad term without its <<( )>>.
    if (tripleTerms) return `<<( ${term(q.subject)} ${q.predicate} ${term(q.object)} )>>`;
    const node = `_:${label}${++fresh}`;
    parsedStatement(node, q);
    return node;
  };
  // Most lines hold no triple term: their graph is cut off as text (or kept). The others are parsed
  // in one call, since a parse per line (a call into WebAssembly each) costs the most.
  const parsed: string[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    if (!line.includes('<<(') && line.endsWith(suffix)) out.push(quads ? line : `${line.slice(0, -suffix.length)} .`);
    else {
      const reified = tripleTerms ? undefined : reifiedText(line, suffix);
      if (reified) statement(...reified);
      else parsed.push(line);
    }
  }
  if (!parsed.length) return out;
  for (const q of oxigraph.parse(parsed.join('\n'), { format: 'application/n-quads' })) {
    if (!tripleTerms && q.object.termType === 'Quad' && q.predicate.value === REIFIES && q.subject.termType !== 'Quad')
      parsedStatement(q.subject.toString(), q.object as oxigraph.Quad);
    else out.push(`${term(q.subject)} ${q.predicate} ${term(q.object)}${end}`);
  }
  return out;
}

const REIFIES_TERM = ` <${REIFIES}> <<( `;

/**
 * The reifier, subject, predicate and object of a line `R rdf:reifies <<( S P O )>> G .` whose S
 * and P are IRIs and whose O holds no triple term, read as text, as the terms are written; else
 * undefined (the line is parsed). Nearly every triple term Weave writes is one of these, and a
 * parse of them all took most of a bulk load's conversion. It is exact because an N-Quads IRI
 * holds no space and no `>`, and a reifier (an IRI or a blank node) no space: the first ` <` and
 * `> ` bound S and P, and the line's own end bounds O.
 */
export function reifiedText(line: string, suffix: string): [string, string, string, string] | undefined {
  const close = ` )>>${suffix}`;
  if (!line.endsWith(close)) return undefined;
  const at = line.indexOf(REIFIES_TERM);
  if (at <= 0 || line.lastIndexOf(' ', at - 1) >= 0) return undefined;
  const inner = line.slice(at + REIFIES_TERM.length, line.length - close.length);
  if (inner[0] !== '<') return undefined;
  const s = inner.indexOf('> ');
  if (s < 0 || inner[s + 2] !== '<') return undefined;
  const p = inner.indexOf('> ', s + 2);
  if (p < 0) return undefined;
  const object = inner.slice(p + 2);
  if (!object || object.includes('<<(')) return undefined;
  return [line.slice(0, at), inner.slice(0, s + 1), inner.slice(s + 2, p + 1), object];
}

/**
 * `<` inside a literal as its escape `\u003C`: the same literal, but a payload whose texts quote
 * HTML (`<!DOCTYPE html>`) is otherwise taken by Virtuoso's Graph Store for an HTML page and
 * refused (500, "unsupported type text/html"), whatever its Content-Type says.
 */
export function maskMarkup(line: string): string {
  const open = line.indexOf('"');
  const close = line.lastIndexOf('"');
  if (open < 0 || close <= open) return line;
  const lexical = line.slice(open, close);
  return lexical.includes('<') ? `${line.slice(0, open)}${lexical.replaceAll('<', '\\u003C')}${line.slice(close)}` : line;
}
