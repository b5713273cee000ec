import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { transcriptsOf, type SessionSource } from '../dialect/dialect.ts';
import type { ArchivedFile, ArchivedVersion, GraphEntry, SourceDigest, SourceStamp } from '../store/manifest.ts';
import { ChunkDigest, digestFile, digestOf, resumeDigest, sameDigests } from '../store/digest.ts';
import type { ArchiveAppend, StoreWriter } from '../store/writer.ts';
import { foundToJson, readArchived } from './archived.ts';
import { readLines, type SourceLine } from './lines.ts';
import { WholeReadNeeded } from '../emit/session.ts';
import { changeOf, headOf, type Change } from './stamps.ts';

/**
 * Keeping a copy of what is read: as a transcript's lines stream past, the bytes of its complete
 * lines go into the archive. A file read before (same file, grown) has only its new bytes appended
 * as one more gzip member; a file replaced, cut short or rewritten starts an archive of its own,
 * and the archive of what was read before stays, as an earlier version: the archive only grows.
 * Side files (a sub-agent's `.meta.json`, a workflow's journal) are copied whole when they change.
 */

/** A file's archive set aside as a version, and why (the ingest's log says so). */
export interface VersionKept {
  path: string;
  change: Change;
  /** Lines read of the version kept, and its number (1 for the oldest). */
  lines: number;
  version: number;
}

/** The log line for a version kept: what happened, never what the file says. */
export function versionNote(kept: VersionKept): string {
  const what = kept.change === 'unknown' ? 'changed' : kept.change;
  const lines = `${kept.lines} line${kept.lines === 1 ? '' : 's'}`;
  return `${kept.path}: ${what}; the ${lines} read before ${kept.lines === 1 ? 'is' : 'are'} kept in the archive as version ${kept.version}`;
}

/**
 * The versions a file's stamp carries on: `before`'s, with its archive added when it is set aside
 * (not grown); none for a read that keeps no archive (`--no-archive`: the file loses its archive whole).
 */
function versionsAfter(before: SourceStamp | undefined, setAside: boolean, keep: boolean): ArchivedVersion[] {
  if (!keep) return [];
  const versions = [...(before?.versions ?? [])];
  if (setAside && before?.archive && before.archive.raw > 0) versions.push({ ...before.archive, lines: before.lines ?? 0 });
  return versions;
}

/**
 * A transcript's bytes on their way into the archive as the file is read. The archive holds the
 * file's first `raw` bytes; a file that grew since (the same file, at least as long) has only what
 * follows them appended, as one more gzip member.
 */
export class TranscriptCopy {
  private position = 0;
  private writing = Promise.resolve();
  /** Digests of every byte read, from the file's start (the archive holds as many). */
  private digest?: ChunkDigest;
  /** Earlier versions of the file in the archive, and the one set aside by this read, if any. */
  versions: ArchivedVersion[] = [];
  kept?: VersionKept;
  /** Opened at the first byte the archive does not hold yet: a file that did not grow adds nothing. */
  private append?: ArchiveAppend;

  private constructor(
    private readonly store: StoreWriter | undefined,
    private readonly path: string,
    private readonly previous: ArchivedFile | undefined,
    /** Where the reading starts: the file's start, or where the last read of it stopped. */
    start: number,
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
    // A read carried on starts where the last ended: `readSession` found the file grown (its bytes read before the same).
    // Without an archive, how the file changed matters to nothing.
    let change = start > 0 || !keep || !before ? undefined : await changeOf(before, now);
    if (change === 'unknown' && keep && (await archiveStillFirst(store, before!, now))) change = undefined;
    const digest =
      start > 0 ? before?.digest && (await resumeDigest(now.path, before.digest.chunks, before.digest.bytes, start)) : new ChunkDigest();
    if (start > 0 && !digest) throw new WholeReadNeeded(`${now.path}: changed while it was read`);
    if (!keep) return TranscriptCopy.made(undefined, now, before, undefined, start, digest!, change);
    const grown = before?.archive && change === undefined && now.size >= before.archive.raw && before.archive.raw >= start;
    if (start > 0 && !grown) throw new WholeReadNeeded(`${now.path}: no archive of what was read before`);
    const copy = TranscriptCopy.made(store, now, before, grown ? before.archive : undefined, start, digest!, change);
    // A file new to the archive gets its archive file even when it is empty.
    if (!grown) copy.append = await store.beginArchive(now.path);
    return copy;
  }

  private static made(
    store: StoreWriter | undefined,
    now: SourceStamp,
    before: SourceStamp | undefined,
    previous: ArchivedFile | undefined,
    start: number,
    digest: ChunkDigest,
    change: Change | undefined,
  ): TranscriptCopy {
    const copy = new TranscriptCopy(store, now.path, previous, start);
    copy.digest = digest;
    // What was archived of a file that did not only grow is set aside, never dropped.
    const setAside = !!store && !previous && !!before?.archive && before.archive.raw > 0;
    copy.versions = versionsAfter(before, setAside, !!store);
    if (setAside)
      copy.kept = {
        path: now.path,
        // The bytes read the same, but not those archived past them (a last line still being written, cut).
        change: change ?? (now.size < before!.archive!.raw ? 'truncated' : 'unknown'),
        lines: before!.lines ?? 0,
        version: copy.versions.length,
      };
    return copy;
  }

  /** Bytes of the file the archive holds already. */
  private get archived(): number {
    return this.previous?.raw ?? 0;
  }

  /** For `readLines`' tap: every byte read, in order, from the file's start. */
  readonly tap = (bytes: Buffer): void => {
    this.digest?.update(bytes);
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
   * Where the reading ended, the digests of every byte read (from the start), the archive as it
   * now is (none when not kept), and how much was added to it.
   */
  async finish(): Promise<Copied> {
    await this.writing;
    const digest = { bytes: this.position, chunks: this.digest?.digests() ?? [] };
    const versions = this.versions;
    if (!this.append) return { size: this.position, digest, archive: this.previous, versions, archived: 0 };
    const archive = await this.append.finish(this.position);
    return { size: this.position, digest, archive, versions, archived: Math.max(0, this.position - this.archived) };
  }

  async abort(): Promise<void> {
    await this.writing.catch(() => undefined);
    await this.append?.abort();
  }
}

/**
 * For a stamp from before digests were kept: whether the file still starts with the bytes its
 * archive holds (the same file, as long). Read once, after which the stamp has its digests.
 */
async function archiveStillFirst(store: StoreWriter, before: SourceStamp, now: SourceStamp): Promise<boolean> {
  if (!before.archive || !before.id || before.id !== now.id || now.size < before.archive.raw) return false;
  const archived = await readArchived(store.dir, before.archive).catch(() => undefined);
  if (archived?.length !== before.archive.raw) return false;
  return sameDigests(digestOf(archived), await digestFile(now.path, archived.length));
}

/** What a transcript's copy ends with. */
export interface Copied {
  size: number;
  /** The digests of the file's first `bytes` bytes: every byte read. */
  digest: SourceDigest;
  archive?: ArchivedFile;
  versions: ArchivedVersion[];
  archived: number;
}

/** The stamp of a transcript read up to `read` (the end of its last complete line, line `lines`). */
export function readStamp(now: SourceStamp, read: number, lines: number, done: Copied): SourceStamp {
  const { archive, versions } = done;
  const stamp: SourceStamp = { ...now, read, lines };
  delete stamp.archive;
  delete stamp.digest;
  delete stamp.versions;
  stamp.digest = done.digest;
  if (archive) stamp.archive = archive;
  if (versions.length) stamp.versions = versions;
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
  const read: SourceStamp = {
    ...stamp,
    digest: { bytes: bytes.length, chunks: digestOf(bytes) },
    read: bytes.length,
  };
  delete read.archive;
  delete read.versions;
  // A stamp from before digests were kept is compared by its head (all of a side file of up to 4 KiB).
  const unchanged =
    !!before?.archive &&
    before.read === read.read &&
    before.id === read.id &&
    (before.digest ? sameDigests(before.digest.chunks, read.digest!.chunks) : before.head === headOf(bytes, bytes.length));
  // A side file that grew (a journal appended to) is copied whole again; its old copy holds nothing the new one lacks.
  const grown =
    !!before?.digest && bytes.length >= before.digest.bytes && sameDigests(digestOf(bytes, before.digest.bytes), before.digest.chunks);
  const versions = versionsAfter(before, !unchanged && !grown, keep);
  if (versions.length) read.versions = versions;
  if (!keep) return { stamp: read, archived: 0 };
  if (unchanged) return { stamp: { ...read, archive: before!.archive }, archived: 0 };
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
      updated.push(readStamp(stamp, tail ? tail.offset : done.size, lines, done));
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
