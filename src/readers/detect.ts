import { join } from 'node:path';
import { readerGraphIri, sessionGraphIri } from '../rdf/iri.ts';
import { readManifest, type Manifest } from '../store/manifest.ts';
import { lockStore, openStoreForWriting } from '../store/writer.ts';
import type { Reader } from './reader.ts';
import { READERS, selectReaders } from './registry.ts';
import {
  emptyReport,
  graphStamp,
  isStale,
  problem,
  readSession,
  writeDetectorGraphs,
  type DetectedGraph,
  type DetectProblem,
  type DetectReport,
  type ReaderRun,
} from './run.ts';
import { storeSecretKey } from './secret/key.ts';
import { spineFromGraph } from './spine-builder.ts';
import type { SessionSpine } from './spine.ts';

export type { DetectedGraph, DetectProblem, DetectReport } from './run.ts';

/**
 * Runs readers over the stored spine: for each session graph in the store, each selected reader
 * reads the session and its findings replace the reader's graph for that session whole (run.ts).
 * A session's spine is read from its graph file in one pass (spine-builder.ts); ingest runs the
 * readers on the sessions it reads as it writes them, so after an ingest this is left with the
 * sessions it did not read whose readers changed. `onlyStale` runs exactly the pairs whose inputs
 * changed.
 */

export interface DetectOptions {
  storeDir: string;
  /** Reader names or detectors (`emojikey` selects every `emojikey/…` reader); default all. */
  detectors?: string[];
  /** Session ids; default every session in the store. */
  sessions?: string[];
  /** Skip a reader whose graph for a session is current (same session graph, same reader version). */
  onlyStale?: boolean;
  /** Sessions the readers already read in this run (ingest's stream): passed over, not counted. */
  done?: ReadonlySet<string>;
  /** Called after each reader graph is written, e.g. to load it into a live store. */
  onGraph?: (graph: DetectedGraph) => void | Promise<void>;
  onProblem?: (problem: DetectProblem) => void;
  /** Called as each session is done (read or skipped), for a progress line. */
  onProgress?: (done: number, total: number) => void;
  /** Told when the store lock is taken over from a process that no longer runs. */
  onNote?: (note: string) => void;
  readers?: readonly Reader[];
}

export async function detect(options: DetectOptions): Promise<DetectReport> {
  const started = performance.now();
  const { storeDir } = options;
  const readers = selectReaders(options.detectors, options.readers ?? READERS);
  const existing = await readManifest(storeDir);
  const run: ReaderRun = {
    report: emptyReport(readers),
    onGraph: options.onGraph,
    onProblem: options.onProblem,
    context: { secretKey: Buffer.alloc(0) },
  };
  // An empty store (nothing ingested yet) has nothing to read.
  if (!existing) return run.report;
  const lock = await lockStore(storeDir, { onNote: options.onNote });
  try {
    return await detectLocked(options, readers, run, existing.soul, started);
  } finally {
    await lock.release();
  }
}

async function detectLocked(
  options: DetectOptions,
  readers: readonly Reader[],
  run: ReaderRun,
  soul: string,
  started: number,
): Promise<DetectReport> {
  const { storeDir } = options;
  run.context.secretKey = await storeSecretKey(storeDir);
  // Entries are merged into the manifest in batches; were this run to fail, the next reruns what it lost.
  const writer = await openStoreForWriting(storeDir, soul);
  const sessions = sessionGraphs(writer.manifest, options.sessions).filter((s) => !options.done?.has(s.sessionId));
  // Ingest's stream wrote them already when it read sessions.
  if (!options.done?.size) await writeDetectorGraphs(writer, readers, !!options.onlyStale, run);

  let done = 0;
  for (const { sessionId, graph, entry } of sessions) {
    options.onProgress?.(done++, sessions.length);
    const stamp = await graphStamp(storeDir, entry);
    const due = readers.filter(
      (r) => !options.onlyStale || isStale(writer.manifest.graphs[readerGraphIri(soul, sessionId, r.name)], r, stamp),
    );
    if (!due.length) {
      run.report.skipped++;
      continue;
    }
    let spine: SessionSpine;
    try {
      spine = await spineFromGraph(storeDir, entry, graph, sessionId);
    } catch (e) {
      // A graph file that does not read is named here, unless its reader named it (a part of it) already.
      const message = (e as Error).message;
      problem(run, { sessionId, message: message.startsWith(storeDir) ? message : `${join(storeDir, entry.file)}: ${message}` });
      continue;
    }
    await readSession(writer, spine, due, stamp, run);
  }
  await writer.close();
  options.onProgress?.(done, sessions.length);
  run.report.millis = performance.now() - started;
  return run.report;
}

/** The session graphs of the store (not reader graphs, nor anything else the manifest names). */
function sessionGraphs(manifest: Manifest, wanted: string[] | undefined) {
  const all = Object.entries(manifest.graphs)
    .filter(([graph, e]) => !e.reader && e.sessionId && graph === sessionGraphIri(manifest.soul, e.sessionId))
    .map(([graph, entry]) => ({ sessionId: entry.sessionId!, graph, entry }))
    .sort((a, b) => a.sessionId.localeCompare(b.sessionId));
  if (!wanted?.length) return all;
  const unknown = wanted.filter((id) => !all.some((s) => s.sessionId === id));
  if (unknown.length) throw new Error(`no session ${unknown.map((id) => `"${id}"`).join(', ')} in the store`);
  return all.filter((s) => wanted.includes(s.sessionId));
}
