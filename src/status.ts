import { open, readdir, stat } from 'node:fs/promises';
import { emitterVersions, WEAVE } from './store/emitter.ts';
import { join } from 'node:path';
import { discoverSessions } from './acquire/discover.ts';
import { transcriptsOf } from './dialect/dialect.ts';
import { changeOf, stampOf } from './acquire/stamps.ts';
import { sessionGraphIri } from './rdf/iri.ts';
import { ARCHIVE_DIR, GRAPHS_DIR, MANIFEST_FILE } from './store/layout.ts';
import { lockHolder } from './store/lock.ts';
import { archivedVersions, namedGraphs, readManifest, type SourceStamp } from './store/manifest.ts';
import { isRunning, readRunFile } from './store/running.ts';
import { readHeld } from './store/remote/owners.ts';

/**
 * `weave status`, `/status` and the page's header: what the store holds and how current it is,
 * from its manifest and a look at the sources it was read from. Never reads a graph.
 */

export interface StoreStatus {
  dir: string;
  soul?: string;
  sessions: number;
  /** The named graphs a query of the store sees (store/manifest.ts namedGraphs), as /status and /void count them. */
  graphs: number;
  /** Which Weave built the session graphs (store/emitter.ts): their count by version, and this program's. */
  builtBy: { program: string; sessions: Record<string, number> };
  /** Source files the store was read from: transcripts, and side files (.meta.json, journals). */
  sources: { files: number; transcripts: number; gone: number };
  /** Sessions all of whose transcripts are gone from their folders: kept, read from the archive. */
  archivedOnly: number;
  /** Sessions found here that an external store already holds under another soul (copies of another machine's): by soul. */
  heldElsewhere?: Record<string, number>;
  /** The newest change of a source the store has taken in (its modification time). */
  lastChange?: string;
  /** When the store last changed (its manifest was written). */
  updated?: string;
  /**
   * Complete lines in the sources the store has not read yet: of files grown since read, of
   * transcripts new in the folders read (`files` of them, `inNew` lines), and of transcripts changed
   * since read (cut short, replaced or rewritten), which are read again whole.
   */
  pending: { lines: number; files: number; inNew: number; changed: { files: number; lines: number } };
  bytes: { graphs: number; archive: number };
  /** Earlier versions of source files kept in the archive (replaced, cut short or rewritten since read): files, versions, lines read of them. */
  versions: { files: number; versions: number; lines: number };
  /** The process writing the store now, if any (`stale` when it was killed). */
  writer?: { pid: number; command: string; since: string; stale: boolean };
  /** The server running for the store, if any: a `weave serve`, or a resident one a command started (`startedBy`). */
  server?: { pid: number; url: string; since: string; startedBy?: string; idleExitSeconds?: number };
}

/** `storeStatus` at most once per `ms` (for a server polled by its pages): concurrent askers share one look. */
export function cachedStoreStatus(dir: string, ms = 1000): () => Promise<StoreStatus> {
  let last: { at: number; value: Promise<StoreStatus> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > ms) last = { at: now, value: storeStatus(dir) };
    return last.value;
  };
}

export async function storeStatus(dir: string): Promise<StoreStatus> {
  const manifest = await readManifest(dir);
  const [graphs, archive] = await Promise.all([folderBytes(join(dir, GRAPHS_DIR)), folderBytes(join(dir, ARCHIVE_DIR))]);
  const status: StoreStatus = {
    dir,
    soul: manifest?.soul,
    sessions: 0,
    graphs: 0,
    builtBy: { program: WEAVE, sessions: emitterVersions(manifest) },
    sources: { files: 0, transcripts: 0, gone: 0 },
    archivedOnly: 0,
    pending: { lines: 0, files: 0, inNew: 0, changed: { files: 0, lines: 0 } },
    bytes: { graphs, archive },
    versions: { files: 0, versions: 0, lines: 0 },
  };
  const lock = await lockHolder(dir);
  if (lock) status.writer = { pid: lock.holder.pid, command: lock.holder.command, since: lock.holder.since, stale: lock.stale };
  const run = await readRunFile(dir);
  if (run && isRunning(run.pid))
    status.server = {
      pid: run.pid,
      url: run.url,
      since: run.startedAt,
      ...(run.startedBy && { startedBy: run.startedBy }),
      ...(run.idleExitSeconds && { idleExitSeconds: run.idleExitSeconds }),
    };
  if (!manifest) return status;
  status.updated = await stat(join(dir, MANIFEST_FILE)).then((s) => s.mtime.toISOString());

  let newest = 0;
  const tracked = new Set<string>();
  const present: SourceStamp[] = [];
  status.graphs = namedGraphs(manifest).size;
  for (const [graph, entry] of Object.entries(manifest.graphs)) {
    if (!entry.sessionId || entry.reader || graph !== sessionGraphIri(manifest.soul, entry.sessionId)) continue;
    status.sessions++;
    const transcripts = (entry.sources ?? []).filter(isTranscript);
    for (const file of archivedVersions(entry)) {
      status.versions.files++;
      status.versions.versions += file.versions.length;
      status.versions.lines += file.versions.reduce((n, v) => n + v.lines, 0);
    }
    if (transcripts.length && transcripts.every((s) => s.gone)) status.archivedOnly++;
    for (const source of entry.sources ?? []) {
      tracked.add(source.path);
      status.sources.files++;
      if (isTranscript(source)) status.sources.transcripts++;
      newest = Math.max(newest, source.mtimeMs);
      if (source.gone) status.sources.gone++;
      else if (isTranscript(source)) present.push(source);
    }
  }
  status.pending.lines += await sumOf(present, async (source) => {
    const unread = await unreadLines(source);
    if (unread.again) {
      status.pending.changed.files++;
      status.pending.changed.lines += unread.lines;
    }
    return unread.lines;
  });
  if (newest) status.lastChange = new Date(newest).toISOString();
  // Sessions left to the soul holding them: their files are no one's pending lines.
  for (const held of await readHeld(dir, manifest)) {
    status.heldElsewhere = { ...status.heldElsewhere, [held.soul]: (status.heldElsewhere?.[held.soul] ?? 0) + 1 };
    for (const path of held.paths) tracked.add(path);
  }
  // Transcripts in the folders read that the store has no graph for yet.
  const roots = [];
  for (const root of manifest.roots ?? []) if (await stampOf(root)) roots.push(root);
  const untracked: string[] = [];
  for (const session of roots.length ? await discoverSessions(roots).catch(() => []) : [])
    for (const { path } of transcriptsOf(session)) if (!tracked.has(path)) untracked.push(path);
  status.pending.files += untracked.length;
  status.pending.inNew += await sumOf(untracked, (path) => newlines(path, 0));
  status.pending.lines += status.pending.inNew;
  return status;
}

/**
 * How many files a status looks at together. One after another, the stats of a store's files and
 * sources kept `weave status` waiting on the disk: on the corpus's store (1,766 graph files, 313
 * sources) it took 0.56 s, and 0.35 s looking at them 64 at a time (medians of 8). A folder of
 * thousands is still never opened all at once.
 */
const AT_ONCE = 64;

/** The sum of `count` over `items`, AT_ONCE of them at a time. */
export async function sumOf<T>(items: readonly T[], count: (item: T) => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < items.length; i += AT_ONCE) for (const n of await Promise.all(items.slice(i, i + AT_ONCE).map(count))) total += n;
  return total;
}

function isTranscript(source: SourceStamp): boolean {
  return source.path.endsWith('.jsonl') && !source.path.endsWith('/journal.jsonl');
}

/** Complete lines a source has past what the store read of it, or all of them, read `again`, when it was replaced, cut short or rewritten. */
async function unreadLines(source: SourceStamp): Promise<{ lines: number; again: boolean }> {
  const now = await stampOf(source.path);
  if (!now || (now.size === source.size && now.mtimeMs === source.mtimeMs)) return { lines: 0, again: false };
  const read = source.read ?? source.size;
  // The bytes read are checked by their digests where the stamp has them (older stamps: by identity and length).
  const grown = source.digest ? (await changeOf(source, now)) === undefined : (!source.id || source.id === now.id) && now.size >= read;
  return { lines: await newlines(source.path, grown ? read : 0), again: !grown };
}

async function newlines(path: string, from: number): Promise<number> {
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return 0;
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let count = 0;
    for (let at = from; ; ) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, at);
      if (!bytesRead) return count;
      for (let i = buffer.indexOf(0x0a); i !== -1 && i < bytesRead; i = buffer.indexOf(0x0a, i + 1)) count++;
      at += bytesRead;
    }
  } finally {
    await file.close();
  }
}

async function folderBytes(folder: string): Promise<number> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return sumOf(names, (name) =>
    stat(join(folder, name)).then(
      (s) => s.size,
      () => 0,
    ),
  );
}
