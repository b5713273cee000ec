import type { DeriveProblem } from '../derive/loop.ts';
import { deriveStored, sessionGraphs } from '../derive/stored.ts';
import type { ReaderGraph } from '../ingest.ts';
import { readManifest } from '../store/manifest.ts';
import type { Reader } from './reader.ts';
import { READERS, selectReaders } from './registry.ts';
import { readerDerivation } from './run.ts';

export type DetectedGraph = ReaderGraph;
export type DetectProblem = DeriveProblem;

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
  const readers = selectReaders(options.detectors, options.readers ?? READERS);
  const report: DetectReport = {
    sessions: 0,
    skipped: 0,
    graphs: 0,
    findings: Object.fromEntries(readers.map((r) => [r.name, 0])),
    problems: [],
    millis: 0,
  };
  const existing = await readManifest(options.storeDir);
  // An empty store (nothing ingested yet) has nothing to read.
  if (!existing) return report;
  const wanted = options.sessions?.length ? options.sessions : undefined;
  const done = options.done;
  const sessions = done?.size
    ? sessionGraphs(existing, wanted)
        .filter((s) => !done.has(s.sessionId))
        .map((s) => s.sessionId)
    : wanted;
  if (sessions && !sessions.length) return report;
  const derived = await deriveStored(options.storeDir, existing.soul, readers.map(readerDerivation), {
    sessions,
    force: !options.onlyStale,
    onNote: options.onNote,
    onProgress: options.onProgress,
    onProblem: options.onProblem,
    onGraph: (graph, entry, by) => {
      if (entry?.reader)
        return options.onGraph?.({ sessionId: by.sessionId, reader: entry.reader, graph, entry, findings: by.findings ?? 0 });
    },
  });
  for (const r of readers) report.findings[r.name] = derived.ran[r.name]?.findings ?? 0;
  Object.assign(report, { sessions: derived.sessions, skipped: derived.skipped, graphs: derived.graphs, problems: derived.problems });
  report.millis = performance.now() - started;
  return report;
}
