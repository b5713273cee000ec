/**
 * Plain-text tables that fit a terminal: columns that may go are dropped first (lowest `drop`
 * first, and those the last drop left room for kept), then, when the rest cannot fit even cut,
 * the last columns, then cells of columns that may shrink are cut with "…", the widest first.
 * Numbers and other columns that may not shrink keep their width. `Infinity` prints everything
 * (`--wide`).
 */

export interface Column {
  head: string;
  align?: 'left' | 'right';
  /** May be cut to fit (texts, names); never numbers. */
  shrink?: boolean;
  /** May be left out to fit; lower goes first. */
  drop?: number;
}

/** A row of cells, or a rule line across the table. */
export type TableRow = string[] | 'rule';

const GAP = 2;
/** A shrinking column keeps at least this many characters (or its heading's length, if less). */
const MIN_SHRUNK = 8;

/** The width to fit: the terminal's, else $COLUMNS, else no limit (output to a file or a pipe). */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): number {
  if (stream.isTTY && stream.columns) return stream.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : Number.POSITIVE_INFINITY;
}

/**
 * Characters one column wide each, whatever follows them: printable ASCII, Latin-1 and the Latin,
 * IPA and spacing-modifier blocks (not the soft hyphen, a format character), general punctuation
 * (not its zero-width and format characters), arrows, box drawing and geometric shapes (not the two
 * drawn as emoji). A text of only these needs no segmenting: most cells, and every cell cut with "…".
 */
const NARROW = /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u25fc]*$/;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** Emoji drawn as pictures (not as text), and anything asked to be one (VS16). */
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\ufe0f/u;
/** East Asian Wide and Fullwidth blocks (UAX #11): Hangul Jamo, CJK, kana, Hangul, fullwidth forms, Tangut, the ideograph planes. */
const WIDE =
  /^[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18aff}\u{1b000}-\u{1b2ff}\u{20000}-\u{3fffd}]/u;
/** Marks and format characters drawn on the character before them, or not at all. */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;

/** The columns one grapheme takes on a terminal: 2 for a wide character or an emoji, 0 for a lone mark, else 1. */
function graphemeWidth(g: string): number {
  if (EMOJI.test(g) || WIDE.test(g)) return 2;
  return ZERO.test(g) ? 0 : 1;
}

/**
 * The columns `text` takes as a terminal draws it: a CJK character or an emoji takes two, a
 * combining accent none, a grapheme of several code points (a family emoji, a flag) one drawing.
 */
export function displayWidth(text: string): number {
  if (NARROW.test(text)) return text.length;
  let n = 0;
  for (const { segment } of graphemes.segment(text)) n += graphemeWidth(segment);
  return n;
}

const length = displayWidth;

/**
 * `head` and its parts joined by ` · `, broken between parts to fit `width`, each later line
 * indented two spaces: a summary line (`ingested: …`) read at 80 columns. A part too long for a
 * line of its own is broken after its commas; a piece longer than a line stays whole.
 */
export function wrapParts(head: string, parts: string[], width: number): string {
  const pieces: { text: string; before: string }[] = [];
  for (const part of parts) {
    const split = length(part) > width - 2 ? part.split(/(?<=,) /) : [part];
    for (const [i, text] of split.entries()) pieces.push({ text, before: pieces.length === 0 ? ' ' : i === 0 ? ' · ' : ' ' });
  }
  const lines: string[] = [];
  let line = head;
  for (const [i, { text, before }] of pieces.entries()) {
    const joined = `${line}${before}${text}`;
    if (i === 0 || length(joined) <= width) line = joined;
    else {
      lines.push(before === ' · ' ? `${line} ·` : line);
      line = `  ${text}`;
    }
  }
  return [...lines, line].join('\n');
}

/**
 * `text` broken at spaces after column `from` (what comes before it is kept as the first line's
 * start) into lines of at most `width`, the later lines starting with `indent`. A word longer
 * than a line stays whole.
 */
export function wrapWords(text: string, from: number, indent: string, width: number): string[] {
  const words = text.slice(from).split(' ').filter(Boolean);
  const lines: string[] = [];
  let line = text.slice(0, from);
  let empty = true;
  for (const word of words) {
    if (!empty && length(line) + 1 + length(word) > width) {
      lines.push(line);
      line = indent + word;
    } else line += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/**
 * A message in lines of at most `width` columns, for a log line read on a terminal: broken at
 * spaces, later lines indented two spaces, and a word longer than a line (a path, a URL) broken
 * where the line ends, since cutting it would lose what it names.
 */
export function fold(text: string, width: number): string[] {
  if (displayWidth(text) <= width || width < 20) return [text];
  const out: string[] = [];
  for (const line of wrapWords(text, 0, '  ', width)) {
    let rest = line;
    while (displayWidth(rest) > width) {
      const head = fitting(rest, width);
      out.push(head);
      rest = `  ${rest.slice(head.length)}`;
    }
    out.push(rest);
  }
  return out;
}

/** The longest start of `text` that takes at most `width` columns, in whole graphemes. */
function fitting(text: string, width: number): string {
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = graphemeWidth(segment);
    if (used + w > width) break;
    kept += segment;
    used += w;
  }
  return kept;
}

/**
 * `text` in at most `width` columns: whole graphemes kept, and "…" where it was cut. A long text
 * is read only as far as the cut (a cell of a large answer can be a whole tool output).
 */
export function cut(text: string, width: number): string {
  if (NARROW.test(text)) return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
  return fitting(text, width).length === text.length ? text : `${fitting(text, width - 1)}…`;
}

/** The table's lines, and under them the note saying what was left out or cut to fit, if anything was. */
export function fitTable(columns: Column[], rows: TableRow[], width: number, options: { rule?: boolean } = {}): string[] {
  const { lines, cut, hidden } = fit(columns, rows, width, options);
  return cut ? [...lines, ...wrapWords(`(${cutNote(width, hidden)})`, 0, ' ', width)] : lines;
}

/** The table's lines, whether anything was left out or cut to make it fit, and how many columns were left out. */
export function fit(
  columns: Column[],
  rows: TableRow[],
  width: number,
  { rule: ruled = true }: { rule?: boolean } = {},
): { lines: string[]; cut: boolean; hidden: number } {
  const cells = rows.filter((r): r is string[] => r !== 'rule');
  // A fold, not Math.max(...): a spread of a large result's rows overflowed the stack.
  const natural = columns.map((c, i) => cells.reduce((n, r) => Math.max(n, length(r[i] ?? '')), length(c.head)));
  const kept = columns.map((_, i) => i);
  const total = () => kept.reduce((n, i) => n + widths[i], 0) + GAP * (kept.length - 1);
  const widths = [...natural];
  // 1. Leave out droppable columns, lowest priority first.
  const droppable = kept.filter((i) => columns[i].drop !== undefined).sort((a, b) => columns[a].drop! - columns[b].drop!);
  const dropped: number[] = [];
  for (const i of droppable) {
    if (total() <= width) break;
    kept.splice(kept.indexOf(i), 1);
    dropped.push(i);
  }
  // A narrow column left out while a wide one still stood (a usage report's models, a hundred
  // characters) comes back, the most wanted first, where leaving out the wide one made room.
  for (const i of dropped.reverse()) {
    kept.splice(kept.filter((k) => k < i).length, 0, i);
    if (total() > width) kept.splice(kept.indexOf(i), 1);
  }
  const floor = (i: number) => Math.min(natural[i], Math.max(MIN_SHRUNK, length(columns[i].head)));
  // 2. More columns than the width holds even cut to their least (a query of a dozen variables):
  // the last ones are left out, and counted, rather than lines printed past the width.
  const least = () => kept.reduce((n, i) => n + (columns[i].shrink ? floor(i) : widths[i]), 0) + GAP * (kept.length - 1);
  while (least() > width && kept.length > 1) kept.pop();
  // 3. Cut the widest shrinkable column, one character at a time, until it fits.
  while (total() > width) {
    const widest = kept.filter((i) => columns[i].shrink && widths[i] > floor(i)).sort((a, b) => widths[b] - widths[a])[0];
    if (widest === undefined) break;
    widths[widest]--;
  }
  const line = (values: string[]) =>
    kept
      .map((i, k) => {
        const text = cut(values[i] ?? '', widths[i]);
        const pad = ' '.repeat(widths[i] - length(text));
        return columns[i].align === 'right' ? pad + text : k === kept.length - 1 ? text : text + pad;
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  const rule = kept.map((i) => '-'.repeat(widths[i])).join(' '.repeat(GAP));
  const narrowed = kept.length < columns.length || kept.some((i) => widths[i] < natural[i]);
  return {
    lines: [line(columns.map((c) => c.head)), ...(ruled ? [rule] : []), ...rows.map((r) => (r === 'rule' ? rule : line(r)))],
    cut: narrowed,
    hidden: columns.length - kept.length,
  };
}

/** The note under a table that had to be cut: how many columns were left out, whether cells were cut, and how to see all. */
export function cutNote(width: number, hidden = 0): string {
  return `${hidden ? `${hidden} ${hidden === 1 ? 'column' : 'columns'} hidden` : 'cut'} to fit ${width} columns; --wide shows all`;
}
