import oxigraph from 'oxigraph';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { detectorGraphIri, readerGraphIri, sessionGraphIri } from '../rdf/iri.ts';
import { filesOf, readManifest, type GraphEntry, type Manifest, type SourceStamp } from '../store/manifest.ts';
import { loadGraph, type OxStore } from '../store/store.ts';
import { lockStore, openStoreForWriting } from '../store/writer.ts';
import { detectorGraphText, FINDINGS_FORMAT, readerGraphText } from './emit.ts';
import type { Finding, Reader } from './reader.ts';
import { READERS, selectReaders } from './registry.ts';
import { storeSecretKey } from './secret/key.ts';
import { loadSpine, type SessionSpine } from './spine.ts';

/**
 * Runs readers over the stored spine: for each session graph in the store, each selected
 * reader reads the session and its findings replace the reader's graph for that session whole.
 * A reader graph records what it was read from (the session graph file's size and time) and
 * the reader's version, so `onlyStale` runs exactly the pairs whose inputs changed.
 */

export interface DetectOptions {
  storeDir: string;
  /** Reader names or detectors (`emojikey` selects every `emojikey/…` reader); default all. */
  detectors?: string[];
  /** Session ids; default every session in the store. */
  sessions?: string[];
  /** Skip a reader whose graph for a session is current (same session graph, same reader version). */
  onlyStale?: boolean;
  /** A store already holding the session graphs (a server's); else each is loaded from its file. */
  store?: OxStore;
  /** Called after each reader graph is written, e.g. to load it into a live store. */
  onGraph?: (graph: DetectedGraph) => void | Promise<void>;
  onProblem?: (problem: DetectProblem) => void;
  /** Called as each session is done (read or skipped), for a progress line. */
  onProgress?: (done: number, total: number) => void;
  /** Told when the store lock is taken over from a process that no longer runs. */
  onNote?: (note: string) => void;
  readers?: readonly Reader[];
}

export interface DetectedGraph {
  /** Absent for a reader's own graph (the detector's description). */
  sessionId?: string;
  reader: string;
  graph: string;
  /** Its manifest entry, which names its file. */
  entry: GraphEntry;
  quads: number;
  findings: number;
}

export interface DetectReport {
  /** Sessions at least one reader ran on. */
  sessions: number;
  /** Sessions every selected reader was current on. */
  skipped: number;
  graphs: number;
  /** Findings per reader name. */
  findings: Record<string, number>;
  /** Sessions or readers that failed; everything else still ran. */
  problems: DetectProblem[];
  millis: number;
}

/** A session graph that could not be read, or a reader that failed on one session. */
export interface DetectProblem {
  sessionId: string;
  reader?: string;
  message: string;
}

export async function detect(options: DetectOptions): Promise<DetectReport> {
  const started = performance.now();
  const { storeDir } = options;
  const readers = selectReaders(options.detectors, options.readers ?? READERS);
  const report: DetectReport = {
    sessions: 0,
    skipped: 0,
    graphs: 0,
    findings: Object.fromEntries(readers.map((r) => [r.name, 0])),
    problems: [],
    millis: 0,
  };
  const problem = (p: DetectProblem) => {
    report.problems.push(p);
    options.onProblem?.(p);
  };
  const existing = await readManifest(storeDir);
  // An empty store (nothing ingested yet) has nothing to read.
  if (!existing) return report;
  const lock = await lockStore(storeDir, { onNote: options.onNote });
  try {
    return await detectLocked(options, readers, report, problem, existing.soul, started);
  } finally {
    await lock.release();
  }
}

async function detectLocked(
  options: DetectOptions,
  readers: readonly Reader[],
  report: DetectReport,
  problem: (p: DetectProblem) => void,
  soul: string,
  started: number,
): Promise<DetectReport> {
  const { storeDir } = options;
  // Entries are merged into the manifest in batches; were this run to fail, the next reruns what it lost.
  const writer = await openStoreForWriting(storeDir, soul);
  const sessions = sessionGraphs(writer.manifest, options.sessions);
  const context = { secretKey: await storeSecretKey(storeDir) };

  // Each reader describes itself once, in its own graph, not in every session's.
  for (const reader of readers) {
    const graph = detectorGraphIri(soul, reader);
    if (options.onlyStale && writer.manifest.graphs[graph]?.builtWith === builtWith(reader)) continue;
    const { text, quads } = detectorGraphText(soul, reader);
    const entry = await writer.writeGraph(graph, text, { quads, reader: reader.name, builtWith: builtWith(reader) });
    await options.onGraph?.({ reader: reader.name, graph, entry, quads, findings: 0 });
  }

  let done = 0;
  for (const { sessionId, graph, entry } of sessions) {
    options.onProgress?.(done++, sessions.length);
    const stamp = await stampOf(storeDir, entry);
    const due = readers.filter(
      (r) => !options.onlyStale || isStale(writer.manifest.graphs[readerGraphIri(soul, sessionId, r.name)], r, stamp),
    );
    if (!due.length) {
      report.skipped++;
      continue;
    }
    const scratch = options.store ? undefined : new oxigraph.Store();
    try {
      let spine: SessionSpine;
      try {
        if (scratch) await loadGraph(scratch, storeDir, entry);
        spine = loadSpine(options.store ?? scratch!, graph, sessionId);
      } catch (e) {
        // A graph file that does not load is named by its loader already.
        const file = join(storeDir, entry.file);
        const message = (e as Error).message;
        problem({ sessionId, message: message.startsWith(file) ? message : `${file}: ${message}` });
        continue;
      }
      for (const reader of due) {
        const readerGraph = readerGraphIri(soul, sessionId, reader.name);
        let findings: Finding[];
        let text: string;
        let quads: number;
        try {
          findings = reader.read(spine, context);
          // Findings the framework cannot write (a foreign type, a bad field) fail the reader too.
          ({ text, quads } = readerGraphText(soul, reader, findings, readerGraph));
        } catch (e) {
          // One reader failing on one session costs only that graph, which keeps its last version.
          problem({ sessionId, reader: reader.name, message: (e as Error).message });
          continue;
        }
        const written = await writer.writeGraph(readerGraph, text, {
          quads,
          sessionId,
          reader: reader.name,
          builtWith: builtWith(reader),
          sources: [stamp],
        });
        report.graphs++;
        report.findings[reader.name] += findings.length;
        await options.onGraph?.({ sessionId, reader: reader.name, graph: readerGraph, entry: written, quads, findings: findings.length });
      }
    } finally {
      (scratch as { free?: () => void } | undefined)?.free?.();
    }
    report.sessions++;
  }
  await writer.close();
  options.onProgress?.(done, sessions.length);
  report.millis = performance.now() - started;
  return report;
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

function builtWith(reader: Reader): string {
  return `${reader.name}@${reader.version} ${FINDINGS_FORMAT}`;
}

/**
 * What a reader graph was read from: the session graph's version. Every version is a new file and
 * appends move the length the manifest names, so the files and lengths tell one version from
 * another; an entry from before lengths were recorded is told by its file's size and time.
 */
async function stampOf(storeDir: string, entry: GraphEntry): Promise<SourceStamp> {
  const files = filesOf(entry);
  if (files.every((f) => f.bytes !== undefined))
    return { path: files.map((f) => f.file).join(' '), size: files.reduce((n, f) => n + f.bytes!, 0), mtimeMs: 0 };
  const info = await stat(join(storeDir, entry.file));
  return { path: entry.file, size: info.size, mtimeMs: info.mtimeMs };
}

function isStale(entry: GraphEntry | undefined, reader: Reader, stamp: SourceStamp): boolean {
  const from = entry?.sources?.[0];
  return (
    !entry ||
    entry.builtWith !== builtWith(reader) ||
    !from ||
    from.path !== stamp.path ||
    from.size !== stamp.size ||
    from.mtimeMs !== stamp.mtimeMs
  );
}
