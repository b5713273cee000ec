import { randomBytes } from 'node:crypto';
import { RDF, typed, type Term } from './terms.ts';

/** A JSON value, as transcripts and their side files hold them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A JSON value as an `rdf:JSON` literal (RDF 1.2); use `STR()` to search it as text. */
export function jsonLiteral(value: unknown): Term {
  return typed(jsonText(value), `${RDF}JSON`);
}

/**
 * JSON text for a value read from JSON. JSON.stringify writes a number the parse overflowed
 * (`1e400` reads as Infinity) as `null`, which changes its type; here it is written `1e999`
 * (`-1e999`), which any JSON parser reads back as the same overflow. Only a text that holds a
 * `null` is looked at twice, so the common case costs one stringify.
 */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  if (!text.includes('null')) return text;
  let overflowed = false;
  const marked = JSON.stringify(value, (_key, v) => {
    if (typeof v !== 'number' || Number.isFinite(v) || Number.isNaN(v)) return v;
    overflowed = true;
    return v > 0 ? POSITIVE : NEGATIVE;
  });
  return overflowed ? marked.replaceAll(JSON.stringify(POSITIVE), '1e999').replaceAll(JSON.stringify(NEGATIVE), '-1e999') : text;
}

// Markers no transcript can hold: random per process, with a NUL (written \u0000 by stringify).
const NONCE = randomBytes(12).toString('hex');
const POSITIVE = `\u0000+overflow:${NONCE}`;
const NEGATIVE = `\u0000-overflow:${NONCE}`;
