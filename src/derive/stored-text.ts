import { closeSync, openSync, readSync } from 'node:fs';
import { splitQuad } from '../rdf/nquads.ts';
import { termText } from '../rdf/terms.ts';
import type { GraphLine } from './graph-input.ts';

/**
 * A long literal's text left where it is, in the line of the graph file it was read from, and read
 * again when asked for. A session's inputs read from its graph's files (a large session's, or any
 * read back by `weave detect`) hold where each long text is, not the text: the texts are most of
 * a long session, and the readers' spine and the search documents held all of them at once. Graph
 * files are named by their bytes and only ever appended to, so the line is where it was for as
 * long as the input that read it.
 */
export class StoredText {
  constructor(
    readonly path: string,
    readonly offset: number,
    readonly bytes: number,
  ) {}
}

/** A text, or where it is. */
export type Text = string | StoredText;

/** A literal term at least this long is left in its file: a shorter one costs less kept than a place to find it. */
const LEFT_FROM = 512;

/** The text of literal `o` as kept: where its line is (`line`, when read from a file) for a long one, else the text. */
export function keptText(o: string, line: GraphLine | undefined): Text {
  return line && o.length >= LEFT_FROM ? new StoredText(line.path, line.offset, line.bytes) : termText(o);
}

/** A buffer for the lines read back, grown to the longest. */
let buffer = Buffer.alloc(64 * 1024);
/** The last text read back: a reader asks for a block's text to test it and again to take it. */
let last: { at: StoredText; text: string } | undefined;

/** The text, read back from its graph file when it was left there. */
export function textOf(text: Text): string {
  if (typeof text === 'string') return text;
  if (last?.at === text) return last.text;
  if (buffer.length < text.bytes) buffer = Buffer.alloc(Math.max(text.bytes, buffer.length * 2));
  const fd = openSync(text.path, 'r');
  try {
    const read = readSync(fd, buffer, 0, text.bytes, text.offset);
    const quad = read === text.bytes ? splitQuad(buffer.toString('utf8', 0, read)) : undefined;
    if (!quad) throw new Error(`${text.path}: the line at byte ${text.offset} is no longer the one read`);
    last = { at: text, text: termText(quad[2]) };
    return last.text;
  } finally {
    closeSync(fd);
  }
}
