/**
 * A field's tokens as MiniSearch's default tokenizer makes them (`text.split(/[\n\r\p{Z}\p{P}]+/u)`),
 * counted, in one pass over the text's characters. MiniSearch adds a document by splitting each
 * field into an array of tokens, counting them again in a Set for the field's length, and
 * lower-casing and adding each one: on the corpus those were most of the search index's build.
 * Here each distinct token is counted once in a Map, in the order it first appears (the order
 * MiniSearch would meet it, and so the order its terms enter the index).
 */

/** One character of MiniSearch's SPACE_OR_PUNCTUATION. */
const SEPARATOR = /^[\n\r\p{Z}\p{P}]$/u;
/** Whether each ASCII character is one, looked up rather than matched. */
const ASCII = Uint8Array.from({ length: 128 }, (_, c) => (SEPARATOR.test(String.fromCharCode(c)) ? 1 : 0));
/** The others, matched once each as they are met (a lone surrogate is a code point of its own, as under the `u` flag). */
const WIDE = new Map<number, boolean>();

function wideSeparator(codePoint: number): boolean {
  let separator = WIDE.get(codePoint);
  if (separator === undefined) WIDE.set(codePoint, (separator = SEPARATOR.test(String.fromCodePoint(codePoint))));
  return separator;
}

/**
 * Counts the non-empty tokens of `text` into `counts` (cleared first), and returns how many
 * distinct tokens the split gives: MiniSearch's field length, which also counts the empty token
 * the split makes of an empty text or of a separator at either end.
 */
export function countTokens(text: string, counts: Map<string, number>): number {
  counts.clear();
  const n = text.length;
  let start = 0;
  let empty = n === 0;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    let width = 1;
    let separator: boolean;
    if (c < 128) separator = ASCII[c] === 1;
    else {
      const next = c >= 0xd800 && c <= 0xdbff && i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 2;
        separator = wideSeparator(((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000);
      } else separator = wideSeparator(c);
    }
    if (separator) {
      if (i > start) {
        const token = text.slice(start, i);
        counts.set(token, (counts.get(token) ?? 0) + 1);
      } else if (i === 0) empty = true;
      start = i + width;
    }
    i += width;
  }
  if (start < n) {
    const token = text.slice(start);
    counts.set(token, (counts.get(token) ?? 0) + 1);
  } else if (n > 0) empty = true;
  return counts.size + (empty ? 1 : 0);
}
