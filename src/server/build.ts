import { createHash } from 'node:crypto';
import { type FSWatcher, type Stats, watch } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which Weave a server runs, and whether its files have changed since: its sources, ontology,
 * prices, ready queries and package files. A resident server records its build in its run file
 * and stops itself once those files change (Weave upgraded or edited), so the next command starts
 * one of the new build: else the code it loaded would answer for as long as commands keep it from
 * idling out. Watched, not compared by each command: a look at every file costs a command some
 * 30 ms, where its answer takes some 200.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['src', 'ontology', 'data', 'queries'];
const FILES = ['package.json', 'package-lock.json'];

/** A digest of the size and modification time of each of Weave's files, as they are now. */
export async function buildOf(): Promise<string> {
  const hash = createHash('sha1');
  for (const [path, s] of await weaveFiles()) hash.update(`${path}\0${s.size}\0${s.mtimeMs}\n`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The first of Weave's files written after `since` (ms since the epoch; by default when this
 * process started, before it loaded any of them) and not later than now: a change the watch,
 * started once the server listens, came too late to see. A file dated in the future (a skewed
 * clock, an unpacked archive) is no change.
 */
export async function changedSince(since = performance.timeOrigin): Promise<string | undefined> {
  const now = Date.now();
  return (await weaveFiles()).find(([, s]) => s.mtimeMs > since && s.mtimeMs <= now)?.[0];
}

/** Each of Weave's files with its stat, by path from the root, in path order. */
async function weaveFiles(): Promise<[string, Stats][]> {
  const paths = [...FILES];
  for (const folder of FOLDERS) {
    const names = await readdir(join(ROOT, folder), { recursive: true }).catch(() => [] as string[]);
    for (const name of names) paths.push(join(folder, name));
  }
  paths.sort();
  const stats = await Promise.all(paths.map((p) => stat(join(ROOT, p)).catch(() => undefined)));
  return paths.flatMap((path, i) => (stats[i]?.isFile() ? [[path, stats[i]] as [string, Stats]] : []));
}

/**
 * Calls `changed` (once) when any of Weave's files is written, added or removed. Returns the
 * function that stops watching. Where the system cannot watch (no inotify watches left), nothing
 * is watched: `failed` is told why.
 */
export function watchBuild(changed: (file: string) => void, failed: (why: string) => void): () => void {
  const watchers: FSWatcher[] = [];
  let told = false;
  const tell = (file: string) => {
    if (told) return;
    told = true;
    changed(file);
  };
  const close = () => {
    for (const w of watchers) w.close();
  };
  try {
    for (const folder of FOLDERS)
      watchers.push(watch(join(ROOT, folder), { recursive: true }, (_, name) => tell(join(folder, String(name ?? '')))));
    // The package files sit in the root, beside much that is not Weave's (a store, a clone's .git).
    watchers.push(watch(ROOT, (_, name) => name && FILES.includes(String(name)) && tell(String(name))));
  } catch (e) {
    close();
    failed((e as Error).message);
    return () => undefined;
  }
  for (const w of watchers) w.on('error', (e) => failed(e.message));
  return close;
}
