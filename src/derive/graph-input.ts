import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readLines } from '../acquire/lines.ts';
import { splitQuad } from '../rdf/nquads.ts';
import type { Term } from '../rdf/terms.ts';
import { filesOf, type GraphEntry, type SourceStamp } from '../store/manifest.ts';

/**
 * A session graph as its derivations' input: read back from its files (spine, then derived part,
 * as much of each as its entry names), one line at a time, and its version as a stamp.
 */

/** Where the line of a triple fed from a graph's files is: one object, moved from line to line (copy what is kept). */
export interface GraphLine {
  path: string;
  offset: number;
  bytes: number;
}

/**
 * Feeds every triple of a stored graph to `add`, with where its line is; a line that is not
 * N-Quads is named by file and line, never quoted.
 */
export async function feedGraph(
  storeDir: string,
  entry: GraphEntry,
  add: (s: Term, p: Term, o: Term, line: GraphLine) => void,
): Promise<void> {
  const at: GraphLine = { path: '', offset: 0, bytes: 0 };
  for (const { file, bytes } of filesOf(entry)) {
    const path = join(storeDir, file);
    at.path = path;
    for await (const line of readLines(path)) {
      if (bytes !== undefined && line.offset >= bytes) break;
      if (!line.text) continue;
      const quad = splitQuad(line.text);
      if (!quad) throw new Error(`${path}:${line.lineNo}: not valid N-Quads`);
      at.offset = line.offset;
      at.bytes = line.byteLength;
      add(quad[0], quad[1], quad[2], at);
    }
  }
}

/**
 * What a derivation's output was derived from: the session graph's version. Every version is a
 * new file and appends move the length the manifest names, so the files and lengths tell one
 * version from another; an entry from before lengths were recorded is told by its file's size and time.
 */
export async function graphStamp(storeDir: string, entry: GraphEntry): Promise<SourceStamp> {
  const files = filesOf(entry);
  if (files.every((f) => f.bytes !== undefined))
    return { path: files.map((f) => f.file).join(' '), size: files.reduce((n, f) => n + f.bytes!, 0), mtimeMs: 0 };
  const info = await stat(join(storeDir, entry.file));
  return { path: entry.file, size: info.size, mtimeMs: info.mtimeMs };
}
