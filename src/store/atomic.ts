import { mkdir, open, readFile, rename, rm, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { tempPathOf } from './layout.ts';

/**
 * A file replaced whole or not at all. It is written aside under a temporary name, every byte
 * accounted for (a write may take fewer bytes than it was given: a full disk does that before it
 * fails), flushed to the disk, renamed over the old file, and the directory flushed so the
 * rename itself survives a power cut. On any error the temporary file goes and the old file stays.
 */

/** The file operations a store write uses; node:fs/promises unless a test hands in another. */
export interface StoreFs {
  /**
   * `w` a file written whole, `r` a directory to flush, `wx` a new file appended to later, `a`
   * appending to one. `mode` sets the permission bits of a file it creates (default 0o666, less the umask).
   */
  open(path: string, flags: 'w' | 'r' | 'wx' | 'a', mode?: number): Promise<WritableHandle>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { force: true }): Promise<void>;
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  truncate(path: string, length: number): Promise<void>;
}

export interface WritableHandle {
  /** May write fewer than `length` bytes, as write(2) does. */
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export const NODE_FS: StoreFs = { open, rename, rm, mkdir, truncate };

/** Paths being written by this thread: two writes of one file at once would share a temporary name. */
const writing = new Set<string>();

export class AtomicFile {
  private closed = false;
  /** Committed or aborted: the temporary name is no longer ours (another write may use it). */
  private finished = false;
  /** No byte written yet (a reader that found nothing writes an empty graph). */
  private empty = true;

  private constructor(
    readonly path: string,
    private readonly temp: string,
    private readonly handle: WritableHandle,
    private readonly fs: StoreFs,
  ) {}

  /** `mode`: the new file's permission bits (0o600 for a file only its user may read). */
  static async create(path: string, fs: StoreFs = NODE_FS, mode?: number): Promise<AtomicFile> {
    if (writing.has(path)) throw new Error(`${path}: already being written`);
    writing.add(path);
    const temp = tempPathOf(path);
    let handle: WritableHandle;
    try {
      handle = mode === undefined ? await fs.open(temp, 'w') : await fs.open(temp, 'w', mode);
    } catch (e) {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      writing.delete(path);
      throw writeError(path, e);
    }
    return new AtomicFile(path, temp, handle, fs);
  }

  async write(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    try {
      await writeAll(this.handle, bytes);
      if (bytes.length) this.empty = false;
    } catch (e) {
      await this.abort();
      throw writeError(this.path, e);
    }
  }

  /**
   * Makes the written bytes the file's content. With `syncDirectory: false` the rename is not yet
   * flushed: the caller flushes the directory (`syncDirectory`) before anything refers to the file.
   * `to` renames it to another name in the same folder (one known only once the bytes are).
   */
  async commit({ syncDirectory: sync = true, to = this.path }: { syncDirectory?: boolean; to?: string } = {}): Promise<void> {
    try {
      // An empty file has no bytes to flush: that it exists, empty, under its name is its
      // folder's to make durable, as the rename is.
      if (!this.empty) await this.handle.sync();
      await this.close();
      await this.fs.rename(this.temp, to);
    } catch (e) {
      await this.abort();
      throw writeError(this.path, e);
    }
    this.finish();
    if (!sync) return;
    await syncDirectory(dirname(this.path), this.fs).catch((e) => {
      throw writeError(this.path, e, 'renamed into place, but its directory could not be flushed to the disk');
    });
  }

  /** Drops what was written; the old file (if any) is untouched. Does nothing once committed. */
  async abort(): Promise<void> {
    if (this.finished) return;
    await this.close().catch(() => undefined);
    await this.fs.rm(this.temp, { force: true }).catch(() => undefined);
    this.finish();
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }

  private finish(): void {
    this.finished = true;
    writing.delete(this.path);
  }
}

/** Writes every byte of `bytes`: a write may take fewer than it was given (a full disk does that before it fails). */
export async function writeAll(handle: WritableHandle, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, at, bytes.length - at);
    // A regular file never takes nothing without an error; were it to, this would not end.
    if (!(bytesWritten > 0)) throw Object.assign(new Error('the file took no bytes'), { code: 'EIO' });
    at += bytesWritten;
  }
}

/** Writes `data` as the whole content of `path`, or leaves `path` as it was. */
export async function writeFileAtomically(path: string, data: string | Uint8Array, fs: StoreFs = NODE_FS, mode?: number): Promise<void> {
  const file = await AtomicFile.create(path, fs, mode);
  await file.write(data);
  await file.commit();
}

/** Flushes a directory's entries (the rename); platforms that cannot open a directory skip it. */
export async function syncDirectory(dir: string, fs: StoreFs): Promise<void> {
  let handle: WritableHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (e) {
    if (CANNOT_SYNC_DIRECTORY.has((e as NodeJS.ErrnoException).code ?? '')) return;
    throw e;
  }
  try {
    await handle.sync();
  } catch (e) {
    if (!CANNOT_SYNC_DIRECTORY.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await handle.close();
  }
}

/** What Windows and some file systems answer to opening or syncing a directory. */
const CANNOT_SYNC_DIRECTORY = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP', 'EBADF']);

/**
 * One line naming the file and the cause (the code stays on the error for callers that check it).
 * Before the rename, whatever failed, the old file is still the file.
 */
export function writeError(path: string, e: unknown, outcome = 'the previous file stays as it was'): Error {
  if ((e as { storeWrite?: boolean }).storeWrite) return e as Error;
  const cause = e as NodeJS.ErrnoException;
  const reason = cause.code === 'ENOSPC' ? 'no space left on device (ENOSPC)' : String(cause.message ?? e).split('\n')[0];
  return Object.assign(new Error(`cannot write ${path}: ${reason}; ${outcome}`, { cause: e }), { code: cause.code, storeWrite: true });
}

/**
 * A store file's text, or undefined when there is none (a file not written yet is no error); any
 * other failure is an error naming the file.
 */
export async function readTextIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path}: ${(e as Error).message}`);
  }
}
