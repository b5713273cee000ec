import { createHash } from 'node:crypto';

/**
 * Quads as canonical, sorted N-Quads lines, so that two datasets read by different parsers (n3,
 * Oxigraph) or taken straight from the store compare quad by quad. Written here, apart from the
 * code under test, so an export is never checked with the serializer that wrote it.
 *
 * Blank nodes get names from the quads around them: each load of the ontology into a store, and
 * each parser, labels them afresh, so a label says nothing. Two blank nodes with the same
 * surroundings get the same name, and the lines stay a multiset (sorted, not deduplicated).
 */

/** The RDF/JS shape n3 and Oxigraph terms share, as far as N-Quads needs it. */
export interface RdfTerm {
  termType: string;
  value: string;
  language?: string;
  direction?: string | null;
  datatype?: { value: string };
  subject?: RdfTerm;
  predicate?: RdfTerm;
  object?: RdfTerm;
  graph?: RdfTerm;
}

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const DIR_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';
const DEFAULT_GRAPH: RdfTerm = { termType: 'DefaultGraph', value: '' };

function escapeLiteral(text: string): string {
  return text.replace(/[\\"\n\r]|[\u0000-\u001f\u007f]/g, (c) => {
    if (c === '\\' || c === '"') return `\\${c}`;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
  });
}

function term(t: RdfTerm, blank: (label: string) => string): string {
  switch (t.termType) {
    case 'NamedNode':
      return `<${t.value}>`;
    case 'BlankNode':
      return blank(t.value);
    case 'Literal': {
      const text = `"${escapeLiteral(t.value)}"`;
      if (t.language) return `${text}@${t.language}${t.direction ? `--${t.direction}` : ''}`;
      const datatype = t.datatype?.value ?? XSD_STRING;
      return datatype === XSD_STRING || datatype === LANG_STRING || datatype === DIR_LANG_STRING ? text : `${text}^^<${datatype}>`;
    }
    case 'Quad':
      return `<<( ${term(t.subject!, blank)} ${term(t.predicate!, blank)} ${term(t.object!, blank)} )>>`;
    case 'DefaultGraph':
      return '';
    default:
      throw new Error(`no N-Quads form for a ${t.termType}`);
  }
}

function line(q: RdfTerm, blank: (label: string) => string): string {
  const graph = term(q.graph!, blank);
  return `${term(q.subject!, blank)} ${term(q.predicate!, blank)} ${term(q.object!, blank)}${graph ? ` ${graph}` : ''} .`;
}

const blankLabels = (t: RdfTerm): string[] =>
  t.termType === 'BlankNode' ? [t.value] : t.termType === 'Quad' ? [t.subject!, t.object!, t.graph!].flatMap(blankLabels) : [];

/** Sorted canonical N-Quads lines of `quads`; `withGraphs: false` drops the graph names (triples). */
export function canonicalNQuads(quads: Iterable<RdfTerm>, { withGraphs = true } = {}): string[] {
  // (Oxigraph's terms keep their parts behind getters, so a quad is rebuilt, not spread.)
  const list = [...quads].map((q) =>
    withGraphs ? q : { termType: 'Quad', value: '', subject: q.subject, predicate: q.predicate, object: q.object, graph: DEFAULT_GRAPH },
  );
  // Each blank node is named by a digest of the lines it appears in, read with every blank node
  // as `_:` (itself as `_:self`): what surrounds it, not what it was called.
  const around = new Map<string, string[]>();
  for (const q of list)
    for (const label of new Set(blankLabels(q)))
      around.set(label, [...(around.get(label) ?? []), line(q, (b) => (b === label ? '_:self' : '_:'))]);
  const names = new Map(
    [...around].map(([label, lines]) => [label, `_:b${createHash('sha256').update(lines.sort().join('\n')).digest('hex').slice(0, 16)}`]),
  );
  return list.map((q) => line(q, (b) => names.get(b)!)).sort();
}
