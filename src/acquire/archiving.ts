import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { transcriptsOf, type SessionSource } from '../dialect/dialect.ts';
import type { ArchivedFile, GraphEntry, SourceStamp } from '../store/manifest.ts';
import type { ArchiveAppend, StoreWriter } from '../store/writer.ts';
import { foundToJson, readArchived } from './archived.ts';
import { readLines, type SourceLine } from './lines.ts';
import { WholeReadNeeded } from '../emit/session.ts';
import { HEAD_BYTES, headNow, headOf, sameFile } from './stamps.ts';

/**
 * Keeping a copy of what is read: as a transcript's lines stream past, the bytes of its complete
 * lines go into the archive. A file read before (same file, grown) has only its new bytes appended
 * as one more gzip member; a file replaced or rewritten starts an archive of its own. Side files
 * (a sub-agent's `.meta.json`, a workflow's journal) are copied whole when they change.
 */

/**
 * A transcript's bytes on their way into the archive as the file is read. The archive holds the
 * file's first `raw` bytes; a file that grew since (the same file, at least as long) has only what
 * follows them appended, as one more gzip member.
 */
export class TranscriptCopy {
  private position = 0;
  private writing = Promise.resolve();
  private readonly head: Buffer[] = [];
  private headLength = 0;
  /** Opened at the first byte the archive does not hold yet: a file that did not grow adds nothing. */
  private append?: ArchiveAppend;

  private constructor(
    private readonly store: StoreWriter | undefined,
    private readonly path: string,
    private readonly previous: ArchivedFile | undefined,
    /** Where the reading starts: the file's start, or where the last read of it stopped. */
    private readonly start: number,
  ) {
    this.position = start;
  }

  /**
   * Starts the copy of `now`'s file; `before` is its stamp from the last read; `keep` false reads
   * without archiving. A read that starts past the file's start (`start`) carries on the archive.
   */
  static async begin(
    store: StoreWriter,
    now: SourceStamp,
    before: SourceStamp | undefined,
    keep: boolean,
    start = 0,
  ): Promise<TranscriptCopy> {
    if (!keep) return new TranscriptCopy(undefined, now.path, undefined, start);
    const grown = before?.archive && now.size >= before.archive.raw && before.archive.raw >= start && (await sameFile(before, now));
    if (start > 0 && !grown) throw new WholeReadNeeded(`${now.path}: no archive of what was read before`);
    const copy = new TranscriptCopy(store, now.path, grown ? before.archive : undefined, start);
    // A file new to the archive gets its archive file even when it is empty.
    if (!grown) copy.append = await store.beginArchive(now.path);
    return copy;
  }

  /** Bytes of the file the archive holds already. */
  private get archived(): number {
    return this.previous?.raw ?? 0;
  }

  /** For `readLines`' tap: every byte read, in order, from the file's start. */
  readonly tap = (bytes: Buffer): void => {
    if (this.headLength < HEAD_BYTES) {
      const part = bytes.subarray(0, HEAD_BYTES - this.headLength);
      this.head.push(part);
      this.headLength += part.length;
    }
    const from = this.position;
    this.position += bytes.length;
    if (!this.store || this.position <= this.archived) return;
    const fresh = bytes.subarray(Math.max(0, this.archived - from));
    this.writing = this.writing.then(async () => {
      this.append ??= await this.store!.beginArchive(this.path, this.previous);
      await this.append.write(fresh);
    });
  };

  /**
   * Where the reading ended, the first bytes read (for the stamp's `head`, when it started at the
   * file's start), the archive as it now is (none when not kept), and how much was added to it.
   */
  async finish(): Promise<{ size: number; head?: Buffer; archive?: ArchivedFile; archived: number }> {
    await this.writing;
    const head = this.start === 0 ? Buffer.concat(this.head) : undefined;
    if (!this.append) return { size: this.position, head, archive: this.previous, archived: 0 };
    const archive = await this.append.finish(this.position);
    return { size: this.position, head, archive, archived: Math.max(0, this.position - this.archived) };
  }

  async abort(): Promise<void> {
    await this.writing.catch(() => undefined);
    await this.append?.abort();
  }
}

/**
 * The stamp of a transcript read up to `read` (the end of its last complete line, line `lines`),
 * whose first bytes are `head` (read again from the file when the reading did not start there).
 */
export async function readStamp(
  now: SourceStamp,
  read: number,
  lines: number,
  head: Buffer | undefined,
  archive: ArchivedFile | undefined,
): Promise<SourceStamp> {
  const stamp: SourceStamp = { ...now, head: head ? headOf(head, read) : await headNow(now.path, read), read, lines };
  delete stamp.archive;
  if (archive) stamp.archive = archive;
  return stamp;
}

/**
 * A side file's stamp with its archive: kept when the file has not changed since `before`, else
 * the whole file copied again. Returns the bytes newly archived too.
 */
export async function archiveSideFile(
  store: StoreWriter,
  stamp: SourceStamp,
  before: SourceStamp | undefined,
  keep: boolean,
): Promise<{ stamp: SourceStamp; archived: number }> {
  const bytes = await readFile(stamp.path);
  const read: SourceStamp = { ...stamp, head: headOf(bytes, bytes.length), read: bytes.length };
  delete read.archive;
  if (!keep) return { stamp: read, archived: 0 };
  if (before?.archive && before.head === read.head && before.read === read.read && before.id === read.id)
    return { stamp: { ...read, archive: before.archive }, archived: 0 };
  const append = await store.beginArchive(stamp.path);
  try {
    await append.write(bytes);
    return { stamp: { ...read, archive: await append.finish(bytes.length) }, archived: bytes.length };
  } catch (e) {
    await append.abort();
    throw e;
  }
}

/** A side file that is gone, restored from the archive into a temporary folder for its dialect to read. */
export async function restoreSideFile(
  storeDir: string,
  path: string,
  archive: ArchivedFile,
): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'weave-restored-'));
  const restored = join(dir, basename(path));
  await writeFile(restored, await readArchived(storeDir, archive));
  return { path: restored, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Copies into the archive the files of a session read before the archive was kept (or read with
 * `--no-archive`): its bytes as they are now, without reading it again (the files have not
 * changed since: `now` are their stamps). The graph stays; its entry gains the archive. Returns
 * the bytes archived.
 */
export async function archiveUnread(
  store: StoreWriter,
  graph: string,
  previous: GraphEntry,
  session: SessionSource,
  now: SourceStamp[],
): Promise<number> {
  const sources = (previous.sources ?? []).map((s) => ({ ...s, id: s.id ?? now.find((n) => n.path === s.path)?.id }));
  if (sources.every((s) => s.archive || s.gone) && previous.found) return 0;
  let archived = 0;
  const transcripts = new Set(transcriptsOf(session).map((t) => t.path));
  const updated: SourceStamp[] = [];
  for (const stamp of sources) {
    if (stamp.archive || stamp.gone) {
      updated.push(stamp);
      continue;
    }
    if (!transcripts.has(stamp.path)) {
      const done = await archiveSideFile(store, stamp, undefined, true);
      updated.push(done.stamp);
      archived += done.archived;
      continue;
    }
    const copy = await TranscriptCopy.begin(store, stamp, undefined, true);
    try {
      let tail: SourceLine | undefined;
      let lines = 0;
      for await (const line of readLines(stamp.path, { tap: copy.tap, end: stamp.size })) {
        if (line.terminated) lines = line.lineNo;
        else tail = line;
      }
      const done = await copy.finish();
      // The graph came from a read with no saved state: `read` and `lines` only say what the archive holds.
      updated.push(await readStamp(stamp, tail ? tail.offset : done.size, lines, done.head, done.archive));
      archived += done.archived;
    } catch (e) {
      await copy.abort();
      throw e;
    }
  }
  const found = await store.writeFound(graph, foundToJson(session));
  await store.putEntry(graph, { ...previous, sources: updated, found });
  return archived;
}
