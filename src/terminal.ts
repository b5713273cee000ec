/**
 * Text on its way to a terminal. File names, messages and a transcript's own text can carry
 * bytes a terminal obeys: escape sequences (colours, cursor moves, window titles, OSC 52
 * clipboard writes, clearing the screen), NUL, C1 controls, and the bidirectional overrides that
 * make text read other than it is. Each becomes a visible escape (`\x1b`, `\u202e`), so what
 * reaches the terminal is only ever shown. Every command's output goes through `printable`
 * (client/served.ts `print`, cli/main.ts for errors), in one of the forms below.
 */

// C0 controls and DEL, C1 controls, and the invisible direction marks and overrides.
const CONTROLS = '\\x00-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[${CONTROLS}]`, 'g');
const UNSAFE_KEEP_NEWLINES = new RegExp(`(?![\\n])[${CONTROLS}]`, 'g');
// Newlines, tabs and a CRLF line end (CSV's) stay.
const UNSAFE_KEEP_LAYOUT = new RegExp(`(?![\\n\\t]|\\r\\n)[${CONTROLS}]`, 'g');

/**
 * The characters a page shows escaped: html.ts `escapeHtml` on the server, and page.js in the
 * browser (the query page's table), which is given this pattern in its config.
 */
export const PAGE_ESCAPED = UNSAFE_KEEP_LAYOUT.source;

/**
 * How a text is printed:
 * - `line`: everything escaped, newlines too (a file name, a message: one line);
 * - `text`: what people read (a table, a conversation, a hit); newlines kept;
 * - `code`: JSON, Turtle, N-Triples, SPARQL TSV, which escape a character as `\uXXXX`: each
 *   control is written so, and the text still parses to exactly what it held;
 * - `data`: CSV, XML and YAML, which have no such escape: written exactly into a file or a pipe,
 *   shown escaped on a terminal (tabs and CRLF line ends kept).
 */
export type Form = 'line' | 'text' | 'code' | 'data';

export function printable(
  text: string,
  {
    keepNewlines = false,
    form = keepNewlines ? 'text' : 'line',
    terminal = true,
  }: { keepNewlines?: boolean; form?: Form; terminal?: boolean } = {},
): string {
  if (form === 'data' && !terminal) return text;
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  const unsafe = form === 'line' ? UNSAFE : form === 'text' ? UNSAFE_KEEP_NEWLINES : UNSAFE_KEEP_LAYOUT;
  return wellFormed.replace(unsafe, (c) => {
    const code = c.charCodeAt(0);
    const hex = code.toString(16).padStart(4, '0');
    return form === 'code' ? `\\u${hex}` : code < 0x100 ? `\\x${hex.slice(2)}` : `\\u${hex}`;
  });
}
