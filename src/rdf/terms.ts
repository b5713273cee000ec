/**
 * RDF terms as N-Triples text. The emitter builds quads as strings because the store bulk-loads
 * N-Quads far faster than it accepts terms one WASM call at a time.
 */

declare const TERM: unique symbol;

/**
 * A term already in N-Triples syntax: `<iri>`, `"lit"^^<dt>`, or `<<( s p o )>>`. Only the
 * constructors below make one, so every Term is escaped and well-formed; a plain string is not a
 * Term. (`asTerm` is for text that is already N-Triples, such as a line of a graph file.)
 */
export type Term = string & { readonly [TERM]: true };

/** Text already in N-Triples syntax, read back from a graph file or the store. */
export function asTerm(ntriples: string): Term {
  return ntriples as Term;
}

export interface Triple {
  s: Term;
  p: Term;
  o: Term;
}

export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

export function iri(value: string): Term {
  return `<${escapeIri(value)}>` as Term;
}

/** IRIREF may not hold these characters raw; UCHAR-escape them (N-Triples §2.3). */
function escapeIri(value: string): string {
  return /[\x00-\x20<>"{}|^`\\]/.test(value)
    ? value.replace(/[\x00-\x20<>"{}|^`\\]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)
    : value;
}

/** A string literal; lone surrogates (which JSON allows and UTF-8 cannot hold) become U+FFFD. */
export function str(value: string): Term {
  return `"${escapeString(value)}"` as Term;
}

export function typed(value: string, datatype: string): Term {
  return `"${escapeString(value)}"^^${iri(datatype)}` as Term;
}

export function int(value: number | bigint): Term {
  return typed(String(typeof value === 'number' ? Math.trunc(value) : value), `${XSD}integer`);
}

export function dec(value: number): Term {
  const text = Number.isInteger(value) ? `${value}.0` : String(value);
  return /e/i.test(text) ? typed(String(value), `${XSD}double`) : typed(text, `${XSD}decimal`);
}

export function num(value: number): Term {
  return Number.isInteger(value) ? int(value) : dec(value);
}

export function bool(value: boolean): Term {
  return typed(String(value), `${XSD}boolean`);
}

/** An `xsd:dateTime`, or a plain string when the source text is not a valid one. */
export function dateTime(value: string): Term {
  return DATE_TIME.test(value) ? typed(value, `${XSD}dateTime`) : str(value);
}
const DATE_TIME = /^-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$/;

/** An RDF 1.2 triple term, for `rdf:reifies`. */
export function tripleTerm(t: Triple): Term {
  return `<<( ${t.s} ${t.p} ${t.o} )>>` as Term;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r' };

function escapeString(value: string): string {
  const wellFormed = value.isWellFormed() ? value : value.toWellFormed();
  return /[\\"\n\r\x00-\x1f\x7f]/.test(wellFormed)
    ? wellFormed.replace(/[\\"\n\r\x00-\x1f\x7f]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)
    : wellFormed;
}

/** One N-Quads line. */
export function nquad(t: Triple, graph: Term): string {
  return `${t.s} ${t.p} ${t.o} ${graph} .\n`;
}
