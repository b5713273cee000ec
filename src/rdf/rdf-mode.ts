import { createHash } from 'node:crypto';
import { isTripleTerm, parseQuadLine, type QuadText, quadLine, tripleTermParts } from './nquads.ts';
import { RDF } from './terms.ts';

/**
 * RDF 1.2 triple terms for stores and parsers of earlier eras. Weave writes claims and evidence
 * links as `R rdf:reifies <<( s p o )>>`; most consumers of the Debian era stop at the first
 * triple term or silently drop it, so a graph can be written in one of three forms:
 *
 * - `1.2`: as stored.
 * - `1.1`: standard RDF 1.1 reification on the same reifier:
 *   `R a rdf:Statement; rdf:subject s; rdf:predicate p; rdf:object o`. A triple term in any
 *   other place (the object of another predicate, or nested) gets a blank node of its own,
 *   labelled from a hash of the triple, described the same way.
 * - `star`: RDF-star as Jena 4 and RDF4J read it: `<< s p o >>` where 1.2 writes `<<( s p o )>>`.
 *
 * The mappings work line by line on N-Quads text, so an export streams through them.
 */

const RDF_MODES = ['1.2', '1.1', 'star'] as const;
export type RdfMode = (typeof RDF_MODES)[number];

export function isRdfMode(value: string): value is RdfMode {
  return (RDF_MODES as readonly string[]).includes(value);
}

const REIFIES = `<${RDF}reifies>`;
const TYPE = `<${RDF}type>`;
const STATEMENT = `<${RDF}Statement>`;
const SUBJECT = `<${RDF}subject>`;
const PREDICATE = `<${RDF}predicate>`;
const OBJECT = `<${RDF}object>`;

/** One N-Quads line (with or without its newline) in `mode`: zero or more whole lines, each ending in "\n". */
export function mapQuadLine(line: string, mode: RdfMode): string {
  const text = line.endsWith('\n') ? line : `${line}\n`;
  // A line with no triple term is the same in every mode; most lines take this path.
  if (mode === '1.2' || !text.includes('<<(')) return text;
  const quad = parseQuadLine(text.trimEnd());
  if (!quad) return text;
  return mode === 'star' ? quadLine({ ...quad, o: starTerm(quad.o) }) : reified(quad).map(quadLine).join('');
}

/** The statements of `quad` in RDF 1.1: reification in place of triple terms. */
function reified(quad: QuadText): QuadText[] {
  if (!isTripleTerm(quad.o)) return [quad];
  if (quad.p === REIFIES) return statement(quad.s, quad.o, quad.g);
  const node = tripleTermNode(quad.o);
  return [{ ...quad, o: node }, ...statement(node, quad.o, quad.g)];
}

/** `R a rdf:Statement; rdf:subject s; rdf:predicate p; rdf:object o`, nested triple terms included. */
function statement(reifier: string, tripleTerm: string, g: string | undefined): QuadText[] {
  const [s, p, o] = tripleTermParts(tripleTerm);
  const out: QuadText[] = [
    { s: reifier, p: TYPE, o: STATEMENT, g },
    { s: reifier, p: SUBJECT, o: s, g },
    { s: reifier, p: PREDICATE, o: p, g },
  ];
  if (!isTripleTerm(o)) return [...out, { s: reifier, p: OBJECT, o, g }];
  const node = tripleTermNode(o);
  return [...out, { s: reifier, p: OBJECT, o: node, g }, ...statement(node, o, g)];
}

/**
 * The blank node standing for a triple term that has no reifier of its own. Its label comes
 * from the triple, so the same triple gets the same node wherever it occurs in one document.
 */
export function tripleTermNode(tripleTerm: string): string {
  return `_:tt${createHash('sha1').update(tripleTerm).digest('hex').slice(0, 24)}`;
}

/** A term in RDF-star syntax: `<<( s p o )>>` becomes `<< s p o >>`, nested ones too. */
export function starTerm(term: string): string {
  if (!isTripleTerm(term)) return term;
  const [s, p, o] = tripleTermParts(term);
  return `<< ${s} ${p} ${starTerm(o)} >>`;
}
