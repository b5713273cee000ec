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
  const text = JSON.stringify(value) ?? 'null';
  return text.includes('null') && hasOverflow(value) ? stringify(value) : text;
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
