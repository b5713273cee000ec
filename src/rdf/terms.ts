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
  // One flat string, as Array.prototype.join makes: a template literal makes a tree of
  // concatenations, which a model holding a long session's IRIs keeps at twice their bytes.
  return ['<', escapeIri(value), '>'].join('') as Term;
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

/**
 * Numbers keep an exact lexical form and a valid datatype. What a transcript gives is a
 * JavaScript number (JSON.parse has already turned its text into a double), so the literal
 * states exactly that double, typed as found:
 *
 * - a safe integer (|n| < 2^53) is `xsd:integer`;
 * - an integer beyond that is not known to the digit (the parse rounded it), so it is the
 *   double it became, `xsd:double` ("12345678901234567000", "1e+21");
 * - a fraction is `xsd:decimal` ("0.25"), or `xsd:double` when JavaScript writes it with an
 *   exponent ("1e-7");
 * - a value JSON's text overflowed (1e400 parses as Infinity) is `"INF"^^xsd:double` (or
 *   "-INF"), and NaN is "NaN"^^xsd:double.
 *
 * `int` is for counts: a safe integer, else typed as found as above (never truncated).
 */
export function int(value: number | bigint): Term {
  if (typeof value === 'bigint') return typed(value.toString(), `${XSD}integer`);
  return Number.isSafeInteger(value) ? typed(String(value), `${XSD}integer`) : num(value);
}

/** A number kept as a decimal (`1` is "1.0"), unless only a double can state it (see `int`). */
export function dec(value: number): Term {
  if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return double(value);
  const text = Number.isInteger(value) ? `${value}.0` : String(value);
  return /e/i.test(text) ? double(value) : typed(text, `${XSD}decimal`);
}

/** A number as found: an integer, a decimal, or a double (see `int`). */
export function num(value: number): Term {
  return Number.isSafeInteger(value)
    ? typed(String(value), `${XSD}integer`)
    : Number.isInteger(value) || !Number.isFinite(value)
      ? double(value)
      : dec(value);
}

function double(value: number): Term {
  const text = Number.isNaN(value) ? 'NaN' : value === Infinity ? 'INF' : value === -Infinity ? '-INF' : String(value);
  return typed(text, `${XSD}double`);
}

export function bool(value: boolean): Term {
  return typed(String(value), `${XSD}boolean`);
}

/**
 * An `xsd:dateTime`, or a plain string when the source text is not a valid one: the lexical
 * form of XML Schema (months 01–12, hours 00–23 or 24:00:00, zones up to ±14:00) on a day the
 * month has.
 */
export function dateTime(value: string): Term {
  return isDateTime(value) ? typed(value, `${XSD}dateTime`) : str(value);
}

export function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}
const DATE_TIME =
  /^(-?(?:[1-9]\d{3,}|0\d{3}))-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?|24:00:00(?:\.0+)?)(?:Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))?$/;

/**
 * `text` as a string of its own. A term cut from a line with `slice` keeps the whole line alive
 * (V8 makes it a view into the line): a collector that holds a long session's terms holds copies,
 * else it holds every line they were cut from (twice the spine's memory, measured).
 */
export function unsliced(text: string): string {
  // V8 copies strings shorter than 13 characters when it slices. A longer one is read anew by
  // JSON.parse, which makes a flat string: slicing a copy (` ${text}`.slice(1)) made a view of
  // its own, 32 bytes more a string (10 of the readers' spine's 126 MiB at 100 MB). Exact for
  // any string, a lone surrogate too.
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/**
 * Each text kept once, as a string of its own (`unsliced`), however many maps hold it: a
 * collector whose every event's IRI is a key of several maps keeps one copy of it.
 */
export class TextOnce {
  private readonly kept = new Map<string, string>();

  of(text: string): string {
    let own = this.kept.get(text);
    if (own === undefined) this.kept.set((own = unsliced(text)), own);
    return own;
  }

  /** Lets go of the map that finds each text's copy, once no more are added (the copies stay where they are kept). */
  forget(): void {
    this.kept.clear();
  }
}

/**
 * What a term says as text, as SPARQL's STR gives it: a literal's lexical value (`"a\nb"^^<dt>` →
 * a, newline, b), an IRI's text, escapes undone.
 */
export function termText(term: string): string {
  const body = term.startsWith('<') ? term.slice(1, -1) : term.slice(1, term.lastIndexOf('"'));
  if (!body.includes('\\')) return unsliced(body);
  return body.replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g, (_, u4, u8, c) =>
    u4
      ? String.fromCharCode(parseInt(u4, 16))
      : u8
        ? String.fromCodePoint(parseInt(u8, 16))
        : (({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[c] ?? c),
  );
}

/** An RDF 1.2 triple term, for `rdf:reifies`. */
export function tripleTerm(t: Triple): Term {
  return `<<( ${t.s} ${t.p} ${t.o} )>>` as Term;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r' };

function escapeString(value: string): string {
  const wellFormed = value.isWellFormed() ? value : value.toWellFormed();
  return /[\\"\n\r\x00-\x1f\x7f]/.test(wellFormed)
    ? wellFormed.replace(
        /[\\"\n\r\x00-\x1f\x7f]/g,
        (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`,
      )
    : wellFormed;
}

/** One N-Quads line. */
export function nquad(t: Triple, graph: Term): string {
  return `${t.s} ${t.p} ${t.o} ${graph} .\n`;
}
