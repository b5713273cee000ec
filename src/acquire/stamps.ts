import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { digestFile } from '../store/digest.ts';
import type { SourceStamp } from '../store/manifest.ts';

/**
 * What a source file is, to tell a file that grew from one that was replaced or rewritten: its
 * size and time, its identity on the disk, and (once read) the digests of every byte read of it.
 * As git and rsync do, a file whose size, time and identity are as they were is taken as
 * unchanged without reading it; one whose stamp changed is carried on only when the bytes read
 * before are still, digest for digest, its first bytes.
 */

/** How much of a file's start the `head` of a stamp written before digests covers. */
const HEAD_BYTES = 4096;

/** A file's stamp as it is now, or undefined when it is gone. */
export async function stampOf(path: string): Promise<SourceStamp | undefined> {
  try {
    const info = await stat(path);
    return { path, size: info.size, mtimeMs: info.mtimeMs, id: `${info.dev}:${info.ino}` };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** SHA-1 of the first `min(HEAD_BYTES, read)` bytes: the `head` a stamp written before digests holds, to compare with. */
export function headOf(bytes: Buffer, read: number): string {
  return createHash('sha1')
    .update(bytes.subarray(0, Math.min(HEAD_BYTES, read)))
    .digest('hex');
}

/**
 * Whether `now` is the file `before` was read from, grown or not: the same file on the disk, at
 * least as long as what was read, its first bytes those read (every MiB's digest the same). A
 * stamp from before digests were kept says no: that file is read whole once.
 */
export async function sameFile(before: SourceStamp | undefined, now: SourceStamp): Promise<boolean> {
  return (await changeOf(before, now)) === undefined;
}

/** How a file differs from what was read of it: undefined when it only grew (or did not change). */
export type Change = 'replaced' | 'truncated' | 'rewritten' | 'unknown';

export async function changeOf(before: SourceStamp | undefined, now: SourceStamp): Promise<Change | undefined> {
  if (!before || before.read === undefined || !before.digest || before.digest.bytes < before.read) return 'unknown';
  // A file put in place of another (a new identity on the disk) that starts with the bytes read is their continuation all the same.
  const other = !before.id || before.id !== now.id;
  if (now.size < before.digest.bytes) return other ? 'replaced' : 'truncated';
  // Its stamp as it was (size, time, identity): taken as unchanged without reading it, as git and rsync do.
  if (!other && now.size === before.size && now.mtimeMs === before.mtimeMs) return undefined;
  if (await digestFile(now.path, before.digest.bytes, before.digest.chunks)) return undefined;
  return other ? 'replaced' : 'rewritten';
}

/** Whether a session's files are as they were: same paths, sizes, times (and disk identity where both say). */
export function sameStamps(a: SourceStamp[] | undefined, b: SourceStamp[]): boolean {
  return (
    !!a &&
    a.length === b.length &&
    a.every(
      (s, i) =>
        s.path === b[i].path &&
        s.size === b[i].size &&
        s.mtimeMs === b[i].mtimeMs &&
        !!s.gone === !!b[i].gone &&
        (!s.id || !b[i].id || s.id === b[i].id),
    )
  );
}
