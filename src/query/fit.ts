/**
 * Plain-text tables that fit a terminal: columns that may go are dropped first (lowest `drop`
 * first), then cells of columns that may shrink are cut with "…", the widest first. Numbers and
 * other columns that may not shrink keep their width. `Infinity` prints everything (`--wide`).
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

function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

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

export function cut(text: string, width: number): string {
  if (length(text) <= width) return text;
  return `${[...text].slice(0, Math.max(0, width - 1)).join('')}…`;
}

export function fitTable(columns: Column[], rows: TableRow[], width: number, options: { rule?: boolean } = {}): string[] {
  return fit(columns, rows, width, options).lines;
}

/** The table's lines, and whether anything was left out or cut to make it fit. */
export function fit(
  columns: Column[],
  rows: TableRow[],
  width: number,
  { rule: ruled = true }: { rule?: boolean } = {},
): { lines: string[]; cut: boolean } {
  const cells = rows.filter((r): r is string[] => r !== 'rule');
  // A fold, not Math.max(...): a spread of a large result's rows overflowed the stack.
  const natural = columns.map((c, i) => cells.reduce((n, r) => Math.max(n, length(r[i] ?? '')), length(c.head)));
  const kept = columns.map((_, i) => i);
  const total = () => kept.reduce((n, i) => n + widths[i], 0) + GAP * (kept.length - 1);
  const widths = [...natural];
  // 1. Leave out droppable columns, lowest priority first.
  const droppable = kept.filter((i) => columns[i].drop !== undefined).sort((a, b) => columns[a].drop! - columns[b].drop!);
  for (const i of droppable) {
    if (total() <= width) break;
    kept.splice(kept.indexOf(i), 1);
  }
  // 2. Cut the widest shrinkable column, one character at a time, until it fits.
  const floor = (i: number) => Math.min(natural[i], Math.max(MIN_SHRUNK, length(columns[i].head)));
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
  };
}

/** The note under a table that had to be cut. */
export function cutNote(width: number): string {
  return `cut to fit ${width} columns: --wide prints everything`;
}
