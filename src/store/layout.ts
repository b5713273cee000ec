import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/**
 * Where things are in a store directory: `manifest.json` naming every graph, and one N-Quads
 * file per graph under `graphs/`, named by the SHA-1 of the graph's name. A file being written
 * sits beside its final name as `<name>.<pid>.<thread>.tmp` until it is renamed into place.
 */

export const MANIFEST_FILE = 'manifest.json';
/** Written by a running `weave serve` (its pid, URL and token; readable by the user only), removed when it stops. */
export const RUN_FILE = 'server.json';
/** Present when the store's graphs live in an external SPARQL store (store/remote/): its endpoints. */
export const REMOTE_FILE = 'remote.json';
export const GRAPHS_DIR = 'graphs';

/** A graph's file, relative to the store directory. */
export function graphFileName(graph: string): string {
  return join(GRAPHS_DIR, `${createHash('sha1').update(graph).digest('hex')}.nq`);
}

/** The temporary name `path` is written under by this process and thread. */
export function tempPathOf(path: string): string {
  return `${path}.${process.pid}.${threadId}.tmp`;
}

/**
 * The pid in the name of a temporary file this layout writes (`<sha1>.nq.<pid>[.<thread>].tmp` or
 * `manifest.json.<pid>[.<thread>].tmp`, `server.json.<pid>.<thread>.tmp`; the form without the thread is the one older versions
 * wrote), else undefined: anything else in the directory is not ours to remove.
 */
export function tempFileOwner(name: string): number | undefined {
  const match = /^(?:manifest\.json|server\.json|remote\.json|[0-9a-f]{40}\.nq)\.(\d+)(?:\.\d+)?\.tmp$/.exec(name);
  return match ? Number(match[1]) : undefined;
}
