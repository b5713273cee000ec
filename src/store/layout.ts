import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * Where things are in a store directory: `manifest.json` naming every graph, one or more N-Quads
 * files per graph under `graphs/`, the archive of the sources read under `archive/`, and `lock`,
 * naming the process that writes the store.
 *
 * A graph's files are named by the SHA-1 of the graph's name and a version tag,
 * `<sha1>.<tag>.nq`: every version is a new file, so the manifest is the one place that says
 * which version is the store's, and a write cut off before the manifest names its files leaves
 * the previous version whole. (`<sha1>.nq`, without a tag, is what stores before versions had.)
 * A file being written sits beside its final name as `<name>.<pid>.<thread>.tmp` until it is
 * renamed into place.
 */

export const MANIFEST_FILE = 'manifest.json';
/** Written by a running `weave serve` (its pid, URL and token; readable by the user only), removed when it stops. */
export const RUN_FILE = 'server.json';
/** Held while a command starts a resident server for the store, so two commands starting at once end with one. */
export const START_FILE = 'server.starting';
/** What a resident server started by a command writes: its start, its stop and its warnings (never a query, never content). */
export const SERVER_LOG = 'server.log';
/** Present when the store's graphs live in an external SPARQL store (store/remote/): its endpoints. */
export const REMOTE_FILE = 'remote.json';
/** Graphs an external store's bulk load was sending, while it runs (store/remote/gathered.ts). */
export const SENDING_FILE = 'remote-sending.json';
export const GRAPHS_DIR = 'graphs';
export const ARCHIVE_DIR = 'archive';
export const LOCK_FILE = 'lock';
/** A stale lock moved aside while it is taken over (`lock.stale.<pid>.<thread>.tmp`). */
export const STALE_LOCK = 'lock.stale';

/**
 * What a file of a graph holds: the graph, or of a session graph kept in parts, the spine (the
 * quads of its complete lines, appended to as the transcripts grow: `graph`), the part derived
 * from the whole session (rewritten at each read), and the state the reading carries on from.
 */
type GraphPart = 'graph' | 'derived' | 'state';

const SUFFIX: Record<GraphPart, string> = { graph: '.nq', derived: '.derived.nq', state: '.state.json' };

/**
 * A version tag: 12 hex digits of the SHA-1 of the version's bytes, so that writing the same graph
 * again gives the same file; `randomTag` for a file that will grow (its first bytes name it no longer).
 */
export function contentTag(digest: string): string {
  return digest.slice(0, 12);
}

export function randomTag(): string {
  return randomBytes(6).toString('hex');
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A graph's file, relative to the store directory; without a tag, the name unversioned stores used. */
export function graphFileName(graph: string, tag?: string, part: GraphPart = 'graph'): string {
  return join(GRAPHS_DIR, `${sha1(graph)}${tag ? `.${tag}` : ''}${SUFFIX[part]}`);
}

/** Whether `file` is a name this layout gives a file of `graph` (as `part`). */
export function isGraphFileOf(graph: string, file: string, part: GraphPart = 'graph'): boolean {
  const prefix = `${GRAPHS_DIR}/${sha1(graph)}`;
  if (!file.startsWith(prefix) || !file.endsWith(SUFFIX[part])) return false;
  const tag = file.slice(prefix.length, file.length - SUFFIX[part].length);
  return (part === 'graph' && tag === '') || /^\.[0-9a-f]{12}$/.test(tag);
}

/** The compressed copy of a source file: named by its path, and a tag for each file the path has been. */
export function archiveFileName(sourcePath: string, tag: string): string {
  return join(ARCHIVE_DIR, `${sha1(sourcePath)}.${tag}.gz`);
}

export function isArchiveFile(file: string): boolean {
  return new RegExp(`^${ARCHIVE_DIR}/[0-9a-f]{40}\\.[0-9a-f]{12}\\.gz$`).test(file);
}

/** The session of `graph` as discovery found it, named by its bytes. */
export function foundFileName(graph: string, digest: string): string {
  return join(ARCHIVE_DIR, `${sha1(graph)}.${contentTag(digest)}.json`);
}

export function isFoundFileOf(graph: string, file: string): boolean {
  return new RegExp(`^${ARCHIVE_DIR}/${sha1(graph)}\\.[0-9a-f]{12}\\.json$`).test(file);
}

/** Folders of store files that are not graphs (a derivation's output): versions unnamed there are a write cut off. */
const DERIVED_DIRS = ['search', 'search/documents', 'usage/rows', 'links'];

/** The folders of store files other than graphs: the usual ones, and any other a manifest entry names. */
export function derivedDirs(named: Iterable<string>): string[] {
  const dirs = new Set(DERIVED_DIRS);
  for (const file of named) if (file.includes('/')) dirs.add(file.slice(0, file.lastIndexOf('/')));
  return [...dirs];
}

/** A version of a store file that is not a graph: `<base>.<tag><extension>` (`search/index.<tag>.json`). */
export function versionedFileName(file: string, tag: string): string {
  const dot = file.lastIndexOf('.');
  return dot > file.lastIndexOf('/') ? `${file.slice(0, dot)}.${tag}${file.slice(dot)}` : `${file}.${tag}`;
}

/** Whether a name in one of DERIVED_DIRS is a version this layout writes. */
export function isDerivedFileName(name: string): boolean {
  return /^[^.]+\.[0-9a-f]{12}\.json$/.test(name);
}

/** Whether a name in `graphs/` or `archive/` is one this layout writes (others are not ours to remove). */
export function isStoreFileName(name: string): boolean {
  return (
    /^[0-9a-f]{40}(?:\.[0-9a-f]{12})?(?:(?:\.derived)?\.nq|\.state\.json)$/.test(name) ||
    /^[0-9a-f]{40}\.[0-9a-f]{12}\.(?:gz|json)$/.test(name)
  );
}

/** The temporary name `path` is written under by this process and thread. */
export function tempPathOf(path: string): string {
  return `${path}.${process.pid}.${threadId}.tmp`;
}

/**
 * The pid in the name of a temporary file this layout writes (`<file>.<pid>[.<thread>].tmp`, for
 * the manifest, the lock, the run file, remote.json and every graph or archive file; the form without the thread is the one
 * older versions wrote), else undefined: anything else in the directory is not ours to remove.
 */
export function tempFileOwner(name: string): number | undefined {
  const match = /^(.+?)\.(\d+)(?:\.\d+)?\.tmp$/.exec(name);
  if (!match) return undefined;
  const [, base, pid] = match;
  return base === MANIFEST_FILE ||
    base === LOCK_FILE ||
    base === STALE_LOCK ||
    base === RUN_FILE ||
    base === REMOTE_FILE ||
    base === SENDING_FILE ||
    isStoreFileName(base) ||
    isDerivedFileName(base)
    ? Number(pid)
    : undefined;
}
