import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { FoundSession, SessionSource, TranscriptSource } from '../dialect/dialect.ts';
import { DIALECTS } from '../dialect/index.ts';
import type { BatchJournal } from '../model/facts.ts';
import type { ArchivedFile } from '../store/manifest.ts';
import { readLinesFrom, type ReadFrom, type SourceLine } from './lines.ts';

/**
 * Sources read from the store's archive once Claude Code has deleted them: the bytes of a file as
 * they were read (gzip members, one per read, decompressed one after another), and the session
 * as discovery found it, so a session whose folder is gone can still be read, verified and rebuilt.
 */

/** The archived bytes of a source file. */
function archivedBytes(storeDir: string, archive: ArchivedFile): AsyncIterable<Buffer> {
  if (!archive.bytes) return (async function* () {})();
  return createReadStream(join(storeDir, archive.file), { end: archive.bytes - 1 }).pipe(createGunzip());
}

/** The lines of an archived source file, numbered and placed as in the file. */
export function archivedLines(storeDir: string, archive: ArchivedFile, from: ReadFrom = {}): AsyncGenerator<SourceLine> {
  return readLinesFrom(archivedBytes(storeDir, archive), from);
}

export async function readArchived(storeDir: string, archive: ArchivedFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of archivedBytes(storeDir, archive)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A found session as JSON (its journals' results, a Map, as pairs), with the dialect that reads it. */
export function foundToJson(session: SessionSource): object {
  const { dialect, batches, ...found } = session;
  return { dialect: dialect.id, ...found, batches: batches.map((b) => ({ ...b, results: [...b.results] })) };
}

/** The session a `found` file describes, read by the dialect it names (undefined when this Weave has none by that id). */
export async function foundSession(storeDir: string, file: string): Promise<SessionSource | undefined> {
  const json = JSON.parse(await readFile(join(storeDir, file), 'utf8')) as FoundSession & {
    dialect: string;
    batches: (Omit<BatchJournal, 'results'> & { results: [string, never][] })[];
  };
  const dialect = DIALECTS.find((d) => d.id === json.dialect);
  if (!dialect) return undefined;
  const { dialect: _id, batches, ...found } = json;
  return { ...found, batches: batches.map((b) => ({ ...b, results: new Map(b.results) })), dialect };
}

/**
 * A session as discovered, with the transcripts (and journals) `stored` had that are gone from the
 * disk put back, to be read from the archive: a file Claude Code deleted stays in its session's graph.
 * A gone file whose stream (a sub-agent's id) or batch the session still has on disk is not put
 * back: it was moved with its folder, not deleted, and read twice it would double the stream.
 */
export function withGoneTranscripts(discovered: SessionSource, stored: SessionSource, goneSet: ReadonlySet<string>): SessionSource {
  const gone = (path: string) => goneSet.has(path);
  const have = new Set([discovered.main, ...discovered.subagents].filter(Boolean).map((t) => t!.path));
  const agents = new Set(discovered.subagents.flatMap((t) => (t.agentId === undefined ? [] : [t.agentId])));
  const back = (t: TranscriptSource | undefined) =>
    !!t && !have.has(t.path) && !(t.agentId !== undefined && agents.has(t.agentId)) && gone(t.path);
  const batches = new Set(discovered.batches.map((b) => b.batch));
  const journals = stored.journals.flatMap((path, i) =>
    !discovered.journals.includes(path) && !batches.has(stored.batches[i].batch) && gone(path) ? [i] : [],
  );
  if (!back(stored.main) && !stored.subagents.some(back) && !journals.length) return discovered;
  const merged: SessionSource = {
    ...discovered,
    subagents: [...discovered.subagents],
    journals: [...discovered.journals, ...journals.map((i) => stored.journals[i])],
    batches: [...discovered.batches, ...journals.map((i) => stored.batches[i])],
  };
  if (!merged.main && back(stored.main)) merged.main = stored.main;
  merged.subagents.push(...stored.subagents.filter(back));
  merged.subagents.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return merged;
}
