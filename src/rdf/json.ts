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
 * (`-1e999`), which any JSON parser reads back as the same overflow. Only a text holding `null`
 * is looked at again, and then without recursion.
 */
export function jsonText(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  const text = json.includes('null') && hasOverflow(value) ? stringify(value) : json;
  return exact ? asWritten(text, exact) : text;
}

/**
 * A number of more digits than a double holds (a 30-digit id) is read as the nearest double, and
 * JSON.stringify writes that double (`1.2345678901234568e+29`), not what the line says. While a
 * line's record is emitted (`whileEmitting`), its long number tokens are known by the text of
 * their double, and `jsonText` writes each as the line wrote it.
 */
let exact: Map<string, string> | undefined;

/** The number tokens of a JSON text (outside its strings) of 16 digits or more that a double does not keep, by the text of their double. */
export function longNumbers(text: string): Map<string, string> | undefined {
  // Most lines hold no such run of digits: they are not scanned.
  if (!/\d{16}/.test(text)) return undefined;
  let found: Map<string, string> | undefined;
  for (const token of numberTokens(text)) {
    if (!/\d{16}/.test(token.replace(/[.eE+-]/g, ''))) continue;
    const double = JSON.stringify(Number(token));
    if (double !== token && !found?.has(double)) (found ??= new Map()).set(double, token);
  }
  return found;
}

/** Runs `emit` with the long numbers of the line being emitted known to `jsonText`. */
export function whileEmitting<T>(numbers: Map<string, string> | undefined, emit: () => T): T {
  if (!numbers) return emit();
  exact = numbers;
  try {
    return emit();
  } finally {
    exact = undefined;
  }
}

/** A JSON string or number token: a number is one outside the strings. */
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** The number tokens of a JSON text, outside its strings. */
function* numberTokens(text: string): Generator<string> {
  for (const m of text.matchAll(STRING_OR_NUMBER)) if (m[0][0] !== '"') yield m[0];
}

function asWritten(text: string, numbers: Map<string, string>): string {
  return text.replace(STRING_OR_NUMBER, (m) => (m[0] === '"' ? m : (numbers.get(m) ?? m)));
}

function hasOverflow(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number' && !Number.isFinite(v) && !Number.isNaN(v)) return true;
    if (v && typeof v === 'object') stack.push(...(Array.isArray(v) ? v : Object.values(v)));
  }
  return false;
}

/** JSON.stringify's text for a JSON value, with overflowed numbers as ±1e999, built with a stack of its own. */
function stringify(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or text to emit as it stands.
  const stack: ({ value: unknown } | { text: string })[] = [{ value }];
  while (stack.length) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (typeof v === 'number') out.push(Number.isFinite(v) ? JSON.stringify(v) : Number.isNaN(v) ? 'null' : v > 0 ? '1e999' : '-1e999');
    else if (Array.isArray(v)) {
      const parts: ({ value: unknown } | { text: string })[] = [{ text: '[' }];
      for (const [i, x] of v.entries()) parts.push(...(i ? [{ text: ',' }] : []), { value: x === undefined ? null : x });
      parts.push({ text: ']' });
      for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      const parts: ({ value: unknown } | { text: string })[] = [{ text: '{' }];
      for (const [i, [k, x]] of entries.entries()) parts.push({ text: `${i ? ',' : ''}${JSON.stringify(k)}:` }, { value: x });
      parts.push({ text: '}' });
      for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
    } else out.push(JSON.stringify(v) ?? 'null');
  }
  return out.join('');
}
