import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionGraphIri } from '../rdf/iri.ts';
import { ARCHIVE_DIR, derivedDirs, GRAPHS_DIR, isDerivedFileName, isStoreFileName, tempFileOwner } from './layout.ts';
import { describeHolder, lockHolder } from './lock.ts';
import { digestFile, sameDigests } from './digest.ts';
import { filesOf, readManifest, storeFilesOf, type FileEntry, type Manifest } from './manifest.ts';

/**
 * The store against itself, without its sources: every file the manifest names is there, as long
 * as the manifest says, with the bytes it names (where it records their digest), holding as many quads as its entry counts, and every graph file in the
 * folder is named by an entry, so a store that lost graphs (or their entries) never checks clean.
 * What an interrupted write leaves (a version never named, bytes past the named length, a
 * temporary file) is not the store's: it is noted, and removed by the next writer.
 */

export interface StoreCheck {
  ok: boolean;
  /** Graphs in the manifest. */
  graphs: number;
  /** Files of graphs the manifest names, all checked. */
  files: number;
  /** Other store files the manifest names (the search index and documents, the secret key), checked by length and digest. */
  storeFiles: number;
  problems: string[];
  notes: string[];
}

export async function checkStore(dir: string): Promise<StoreCheck> {
  const check: StoreCheck = { ok: true, graphs: 0, files: 0, storeFiles: 0, problems: [], notes: [] };
  let manifest: Manifest | undefined;
  try {
    manifest = await readManifest(dir);
  } catch (e) {
    check.problems.push((e as Error).message);
  }
  if (!manifest) {
    if (!check.problems.length) check.problems.push(`no store in ${dir}: no manifest.json`);
    check.ok = false;
    return check;
  }
  const lock = await lockHolder(dir);
  const leftBy = lock
    ? lock.stale
      ? `left by an interrupted write of ${describeHolder(lock.holder)}; the next writer removes it`
      : `being written by ${describeHolder(lock.holder)}`
    : undefined;

  const named = new Set<string>();
  for (const [graph, entry] of Object.entries(manifest.graphs)) {
    check.graphs++;
    const sizes = new Map<string, number>();
    for (const { file, bytes, digest } of storeFilesOf(entry)) {
      named.add(file);
      check.files++;
      const size = await stat(join(dir, file)).then(
        (s) => s.size,
        () => undefined,
      );
      if (size === undefined) check.problems.push(`${file}: missing (a file of ${graph})`);
      else if (bytes !== undefined && size < bytes)
        check.problems.push(`${file}: ${size} bytes, the manifest names ${bytes} (a file of ${graph} lost its end)`);
      else if (digest && !(await sameBytes(join(dir, file), bytes ?? size, digest)))
        check.problems.push(`${file}: its bytes are not those the manifest names (its digest differs; a file of ${graph})`);
      else {
        sizes.set(file, Math.min(size, bytes ?? size));
        if (bytes !== undefined && size > bytes)
          check.notes.push(
            `${file}: ${size - bytes} bytes past what the manifest names, ${leftBy ?? 'an append cut off; the next writer removes them'}`,
          );
      }
    }
    const quadFiles = filesOf(entry);
    if (quadFiles.every((f) => sizes.has(f.file))) {
      let lines = 0;
      for (const { file } of quadFiles) lines += await countLines(join(dir, file), sizes.get(file)!).catch(() => Number.NaN);
      if (Number.isNaN(lines)) check.problems.push(`${graph}: a file of it cannot be read`);
      else if (lines !== entry.quads) check.problems.push(`${graph}: ${lines} quads in its files, the manifest counts ${entry.quads}`);
    }
    if (entry.reader && entry.sessionId && !manifest.graphs[sessionGraphIri(manifest.soul, entry.sessionId)])
      check.problems.push(
        `${graph}: findings of the reader ${entry.reader} for session ${entry.sessionId}, whose graph is not in the store`,
      );
  }

  for (const [name, entry] of Object.entries(manifest.files ?? {})) {
    check.storeFiles++;
    const problem = await storeFileProblem(dir, entry);
    if (problem) check.problems.push(`${entry.file}: ${problem} (the store file ${name})`);
  }

  const files = Object.values(manifest.files ?? {}).map((f) => f.file);
  for (const file of files) named.add(file);
  const derived = derivedDirs(files);
  for (const folder of [GRAPHS_DIR, ARCHIVE_DIR, ...derived]) {
    for (const name of await readdir(join(dir, folder)).catch(() => [] as string[])) {
      const file = `${folder}/${name}`;
      const pid = tempFileOwner(name);
      const ours = derived.includes(folder) ? isDerivedFileName(name) : isStoreFileName(name);
      if (pid !== undefined)
        check.notes.push(`${file}: a temporary file, ${leftBy ?? 'left by a write that was cut off; the next writer removes it'}`);
      else if (ours && !named.has(file)) {
        // A version written but never named is what a cut-off write leaves; with nobody writing, it is a lost graph.
        if (leftBy) check.notes.push(`${file}: not named by the manifest, ${leftBy}`);
        else check.problems.push(`${file}: a file the manifest does not name (a graph the store lost?)`);
      }
    }
  }
  check.ok = check.problems.length === 0;
  return check;
}

/** Whether a file's first `length` bytes have the digests named (false when it cannot be read). */
async function sameBytes(path: string, length: number, digest: string[]): Promise<boolean> {
  return sameDigests(await digestFile(path, length).catch(() => undefined), digest);
}

/** What is wrong with a store file against its entry: gone, another length, other bytes. */
async function storeFileProblem(dir: string, entry: FileEntry): Promise<string | undefined> {
  // Read a chunk at a time: a store file (the search index) can be larger than one buffer should be.
  const digest = createHash('sha1');
  let length = 0;
  try {
    for await (const chunk of createReadStream(join(dir, entry.file), { highWaterMark: 1 << 20 })) {
      digest.update(chunk as Buffer);
      length += (chunk as Buffer).length;
    }
  } catch {
    return 'missing';
  }
  if (length !== entry.bytes) return `${length} bytes, the manifest names ${entry.bytes}`;
  if (digest.digest('hex') !== entry.sha1) return 'its bytes are not those the manifest names (its digest differs)';
  return undefined;
}

/** Newlines in the first `bytes` of a file: one per quad in N-Quads as the store writes it. */
async function countLines(path: string, bytes: number): Promise<number> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let lines = 0;
    for (let at = 0; at < bytes; ) {
      const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, bytes - at), at);
      if (!bytesRead) break;
      for (let i = buffer.indexOf(0x0a, 0); i !== -1 && i < bytesRead; i = buffer.indexOf(0x0a, i + 1)) lines++;
      at += bytesRead;
    }
    return lines;
  } finally {
    await file.close();
  }
}
