/**
 * Text positions. JavaScript strings index UTF-16 units; the Web Annotation selectors count
 * Unicode code points; emoji poles are grapheme clusters (a ZWJ family is seven code points, a
 * keycap or a FE0F-qualified symbol two). These helpers convert between the three.
 */

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Code points in `text` (a lone surrogate counts as one, as the string iterator does). */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // The low half of a well-formed pair adds nothing.
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const prev = text.charCodeAt(i - 1);
      if (prev >= 0xd800 && prev <= 0xdbff) continue;
    }
    n++;
  }
  return n;
}

/** The code point offset of UTF-16 index `index`. */
export function codePointOffset(text: string, index: number): number {
  return codePoints(text.slice(0, index));
}

/** The text between code point offsets `start` and `end` (what an oa:TextPositionSelector selects). */
export function sliceCodePoints(text: string, start: number, end: number): string {
  return Array.from(text).slice(start, end).join('');
}

/** Up to `count` code points of `text` ending at UTF-16 index `index`. */
export function codePointsBefore(text: string, index: number, count: number): string {
  const before = Array.from(text.slice(Math.max(0, index - 2 * count), index));
  return before.slice(Math.max(0, before.length - count)).join('');
}

/** Up to `count` code points of `text` starting at UTF-16 index `index`. */
export function codePointsAfter(text: string, index: number, count: number): string {
  return Array.from(text.slice(index, index + 2 * count))
    .slice(0, count)
    .join('');
}

/** The grapheme clusters of `text`, as the user sees characters. */
export function graphemes(text: string): string[] {
  return Array.from(GRAPHEMES.segment(text), (s) => s.segment);
}

const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}|[\u20e3]/u;

/** Whether one grapheme cluster is an emoji (pictographic, a flag, or a keycap). */
export function isEmoji(grapheme: string): boolean {
  return PICTOGRAPHIC.test(grapheme);
}
