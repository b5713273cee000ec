import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ArchivedFile, SourceStamp } from '../store/manifest.ts';
import type { ArchiveAppend, StoreWriter } from '../store/writer.ts';
import { readArchived } from './archived.ts';
import { HEAD_BYTES, headOf, sameFile } from './stamps.ts';

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
  ) {}

  /** Starts the copy of `now`'s file; `before` is its stamp from the last read; `keep` false reads without archiving. */
  static async begin(store: StoreWriter, now: SourceStamp, before: SourceStamp | undefined, keep: boolean): Promise<TranscriptCopy> {
    if (!keep) return new TranscriptCopy(undefined, now.path, undefined);
    const grown = before?.archive && now.size >= before.archive.raw && (await sameFile(before, now));
    const copy = new TranscriptCopy(store, now.path, grown ? before.archive : undefined);
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

  /** How many bytes were read, the first of them (for the stamp's `head`), the archive as it now is (none when not kept), and how much was added to it. */
  async finish(): Promise<{ size: number; head: Buffer; archive?: ArchivedFile; archived: number }> {
    await this.writing;
    const head = Buffer.concat(this.head);
    if (!this.append) return { size: this.position, head, archive: this.previous, archived: 0 };
    const archive = await this.append.finish(this.position);
    return { size: this.position, head, archive, archived: Math.max(0, this.position - this.archived) };
  }

  async abort(): Promise<void> {
    await this.writing.catch(() => undefined);
    await this.append?.abort();
  }
}

/** The stamp of a transcript read up to `read` (the end of its last complete line), whose first bytes were `head`. */
export function readStamp(now: SourceStamp, read: number, head: Buffer, archive: ArchivedFile | undefined): SourceStamp {
  const stamp: SourceStamp = { ...now, head: headOf(head, read), read };
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
