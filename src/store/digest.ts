import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';

/**
 * Digests of a file's bytes, one SHA-1 per MiB (the last covering what is left), so that a file
 * that only grows is digested again from its last whole MiB, never from its start, and a change
 * anywhere in it shows in the digest of its MiB.
 */

export const DIGEST_CHUNK = 1 << 20;

/** Digests fed bytes as they come, from a given offset of the file (a whole MiB's start, or 0). */
export class ChunkDigest {
  private readonly done: string[];
  private hash: Hash = createHash('sha1');
  private inChunk = 0;
  /** The SHA-1 of every byte, carried on past the first MiB from a copy of its hash (`whole`). */
  private all?: Hash;

  /** `whole`: fed from the file's start, and asked for the SHA-1 of all of it too (a file named by its bytes). */
  constructor(
    done: readonly string[] = [],
    private readonly whole = false,
  ) {
    this.done = [...done];
  }

  update(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; ) {
      const take = Math.min(DIGEST_CHUNK - this.inChunk, bytes.length - at);
      const part = bytes.subarray(at, at + take);
      this.hash.update(part);
      this.all?.update(part);
      this.inChunk += take;
      at += take;
      if (this.inChunk === DIGEST_CHUNK) {
        // Within the first MiB the chunk's hash is the whole's: only past it do two hashes run.
        if (this.whole && !this.all) this.all = this.hash.copy();
        this.done.push(this.hash.digest('hex'));
        this.hash = createHash('sha1');
        this.inChunk = 0;
      }
    }
  }

  /** The digests of all fed so far (none for no bytes). */
  digests(): string[] {
    return this.inChunk ? [...this.done, this.hash.copy().digest('hex')] : [...this.done];
  }

  /** The SHA-1 of all fed so far, in hex; only for a digest made `whole`. */
  sha1(): string {
    if (!this.whole) throw new Error('a chunk digest not made whole has no SHA-1 of the whole');
    return (this.all ?? this.hash).copy().digest('hex');
  }
}

/** The digests of a buffer's first `length` bytes. */
export function digestOf(bytes: Uint8Array, length = bytes.length): string[] {
  const digest = new ChunkDigest();
  digest.update(bytes.subarray(0, length));
  return digest.digests();
}

/**
 * The digests of a file's first `length` bytes as it is now, or undefined when it is shorter or
 * gone. `expected`, when given, stops at the first MiB that differs from it (undefined then too).
 */
export async function digestFile(path: string, length: number, expected?: readonly string[]): Promise<string[] | undefined> {
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return undefined;
  try {
    const digest = new ChunkDigest();
    const buffer = Buffer.allocUnsafe(DIGEST_CHUNK);
    for (let at = 0, i = 0; at < length; i++) {
      const want = Math.min(DIGEST_CHUNK, length - at);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await file.read(buffer, got, want - got, at + got);
        if (!bytesRead) return undefined;
        got += bytesRead;
      }
      digest.update(buffer.subarray(0, want));
      at += want;
      if (expected && digest.digests()[i] !== expected[i]) return undefined;
    }
    return digest.digests();
  } finally {
    await file.close();
  }
}

/**
 * A digest that carries on `digests` (of a file's first `length` bytes) from byte `from` of the
 * file (`length` by default, for a file that grew), its bytes before known to be the same: the
 * part of the MiB `from` falls in is read again from `path` (and, at `length`, must match).
 */
export async function resumeDigest(
  path: string,
  digests: readonly string[],
  length: number,
  from = length,
): Promise<ChunkDigest | undefined> {
  if (from > length || Math.ceil(length / DIGEST_CHUNK) !== digests.length) return undefined;
  const whole = Math.floor(from / DIGEST_CHUNK);
  const digest = new ChunkDigest(digests.slice(0, whole));
  const rest = from - whole * DIGEST_CHUNK;
  if (!rest) return digest;
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return undefined;
  try {
    const buffer = Buffer.alloc(rest);
    let got = 0;
    while (got < rest) {
      const { bytesRead } = await file.read(buffer, got, rest - got, whole * DIGEST_CHUNK + got);
      if (!bytesRead) return undefined;
      got += bytesRead;
    }
    digest.update(buffer);
  } finally {
    await file.close();
  }
  return from < length || digest.digests()[whole] === digests[whole] ? digest : undefined;
}

export function sameDigests(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return !!a && !!b && a.length === b.length && a.every((d, i) => d === b[i]);
}
