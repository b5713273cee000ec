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
  const lines = text.split('\n');
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
