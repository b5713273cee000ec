/**
 * How deeply a JSON text nests, in one pass that skips strings: measured before the text is
 * parsed, so a record nested thousands of levels deep is refused with a clear message instead
 * of overflowing the stack of everything that walks it afterwards (JSON.stringify for the
 * graph's JSON literals, structuredClone, the emitters' walks over nested tool results).
 */

/**
 * Far deeper than any record a runtime writes (the corpus reaches a few dozen levels), and well
 * within the walks after parsing: JSON.stringify, structuredClone and the emitter's walk over
 * nested tool results overflowed past about 2,000 (the fuzz suite found one at 2,300).
 */
export const MAX_JSON_DEPTH = 1000;

/** The deepest nesting of `[` and `{` in `text` outside strings; stops counting past `stopAbove`. */
function jsonDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, over escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest && (deepest = depth) > stopAbove) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Why a JSON text is too deep to read, or undefined when it is not. */
export function tooDeep(text: string, max = MAX_JSON_DEPTH): string | undefined {
  return jsonDepth(text, max) > max ? `nested more than ${max} levels deep; kept as text, not read` : undefined;
}
