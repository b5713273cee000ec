/**
 * Text on its way to a terminal. File names and messages can carry bytes a terminal obeys:
 * escape sequences (colours, cursor moves, window titles, OSC 52 clipboard writes), NUL, C1
 * controls, and the bidirectional overrides that make text read other than it is. Each becomes
 * a visible escape (`\x1b`, `\u202e`), so what reaches the terminal is only ever shown.
 */

// C0 controls and DEL, C1 controls, and the invisible direction marks and overrides.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_NEWLINES = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string, { keepNewlines = false } = {}): string {
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return wellFormed.replace(keepNewlines ? UNSAFE_KEEP_NEWLINES : UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
