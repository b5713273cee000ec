import { displayWidth, terminalWidth, wrapWords } from '../query/fit.ts';

/** Help is written to read at this width at most, however wide the terminal. */
const WIDEST = 100;

/** Prints a command's help fitted to the terminal (at most WIDEST columns). */
export function printHelp(text: string): void {
  process.stdout.write(fittedHelp(text));
}

/** A command's help fitted to the terminal (at most WIDEST columns). */
export function fittedHelp(text: string): string {
  return fitHelp(text, Math.min(terminalWidth(), WIDEST));
}

/**
 * A term, two spaces or more, then its description: an option, a command, a format; or, indented
 * further, one word of a table in a description (`1.2   as stored: …`, the modes of --rdf).
 */
const TERM = /^( {1,6}\S.*?\S? {2,}| {7,}\S+ {2,})(\S.*)$/;

/**
 * Help text fitted to `width` columns. A paragraph (lines at one indent) or a term's description
 * (the lines after `  --store DIR   …` at the description's column) with a line past the width is
 * joined and broken again at word boundaries, keeping its indent; everything else stays as
 * written. A word longer than a line stays whole.
 */
export function fitHelp(text: string, width: number): string {
  const lines = alignOptions(text.split('\n'));
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    if (!line.trim()) {
      out.push(line);
      i++;
      continue;
    }
    const term = TERM.exec(line);
    const head = term ? term[1] : (/^ */.exec(line)?.[0] ?? '');
    const indent = term ? ' '.repeat(head.length) : head;
    let end = i + 1;
    // Continuation lines: at the indent the first line's words start, and not a term of their own.
    while (end < lines.length && lines[end].trim() && lines[end].startsWith(indent) && !lines[end].startsWith(`${indent} `)) {
      if (!term && TERM.test(lines[end])) break;
      end++;
    }
    const block = lines.slice(i, end);
    if (block.every((l) => displayWidth(l) <= width)) out.push(...block);
    else
      out.push(
        ...wrapWords(
          `${head}${block.map((l, k) => (k === 0 ? (term ? term[2] : l.slice(head.length)) : l.trim())).join(' ')}`,
          head.length,
          indent,
          width,
        ),
      );
    i = end;
  }
  return out.join('\n');
}

/**
 * An option's term: its flags and, after one space, the value it takes (`--text-limit BYTES`,
 * `--by person|project`, `--content KIND=MODE`), then its description after one space or more.
 */
const OPTION = /^ {2}(-[^\s,]+(?:, --\S+)?(?: (?:[A-Z][A-Z0-9_=.|]*|[a-z]+(?:\|[a-z]+)+))?)(?: +(\S.*))?$/;
/** The columns an option's description starts at: the one most helps were written at, and the widest (a longer term has a line of its own). */
const OPTION_COLUMN = 21;
const WIDEST_COLUMN = 23;

/**
 * A help's options, each section's at one column: as the help is made of parts (the command's
 * own options, those every command takes), their descriptions need not start at one column as
 * written, nor two spaces after a long term. Such a section is set at the column its longest term
 * needs (21 to 23); a description's lines move with it, a table in it keeping its own columns.
 */
function alignOptions(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!OPTION.test(lines[i])) {
      out.push(lines[i++]);
      continue;
    }
    // A section: option terms and the lines indented under them, up to a blank line or a line at the left.
    const entries: { term: string; first?: string; column: number; rest: string[] }[] = [];
    for (; i < lines.length && lines[i].trim(); i++) {
      const option = OPTION.exec(lines[i]);
      if (option) {
        const first = option[2];
        entries.push({ term: option[1], first, column: first ? lines[i].length - first.length : -1, rest: [] });
      } else if (/^ {3,}\S/.test(lines[i])) {
        const entry = entries[entries.length - 1];
        if (entry.column < 0) entry.column = lines[i].length - lines[i].trimStart().length;
        entry.rest.push(lines[i]);
      } else break;
    }
    // As written where that is one column with two spaces at least after every term on its line.
    const written = new Set(entries.filter((e) => e.first).map((e) => e.column));
    const [only] = written;
    const column =
      written.size === 1 && entries.every((e) => !e.first || 2 + e.term.length + 2 <= only)
        ? only
        : Math.min(WIDEST_COLUMN, Math.max(OPTION_COLUMN, 4 + Math.max(...entries.map((e) => e.term.length))));
    for (const { term, column: was, rest, ...entry } of entries) {
      // A term written alone on its line, its description below, takes its first line where it fits.
      const first = entry.first ?? (2 + term.length + 2 <= column ? rest.shift()?.trimStart() : undefined);
      const moved = rest.map((l) => ' '.repeat(Math.max(0, l.length - l.trimStart().length + column - was)) + l.trimStart());
      if (first && 2 + term.length + 2 <= column) out.push(`  ${term.padEnd(column - 2)}${first}`, ...moved);
      else out.push(`  ${term}`, ...(first ? [' '.repeat(column) + first] : []), ...moved);
    }
  }
  return out;
}
