import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { detectorGraphIri, readerGraphIri } from '../rdf/iri.ts';
import { filesOf, type GraphEntry, type SourceStamp } from '../store/manifest.ts';
import type { StoreWriter } from '../store/writer.ts';
import { detectorGraphText, FINDINGS_FORMAT, readerGraphText } from './emit.ts';
import type { Finding, ReadContext, Reader } from './reader.ts';
import type { SessionSpine } from './spine.ts';

/**
 * Readers at work on one session's spine, whoever built it (ingest from the triples it writes,
 * `weave detect` from the session's graph file): each reader's findings replace its graph for
 * the session, which records what it was read from (the session graph's version) and
 * the reader's version, so a later run redoes exactly the pairs whose inputs changed.
 */

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

/** A session graph that could not be read, or a reader that failed on one session. */
export interface DetectProblem {
  sessionId: string;
  reader?: string;
  message: string;
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

/** Where the readers' results go: the report, and the callers' hooks. */
export interface ReaderRun {
  report: DetectReport;
  /** Called after each reader graph is written, e.g. to load it into a live store. */
  onGraph?: (graph: DetectedGraph) => void | Promise<void>;
  onProblem?: (problem: DetectProblem) => void;
  /** What every reader is handed besides the spine (the store's secret key). */
  context: ReadContext;
}

export function emptyReport(readers: readonly Reader[]): DetectReport {
  return { sessions: 0, skipped: 0, graphs: 0, findings: Object.fromEntries(readers.map((r) => [r.name, 0])), problems: [], millis: 0 };
}

/** Two runs' reports as one: ingest's readers on what it read, then detect's on the rest. */
export function joinReports(a: DetectReport, b: DetectReport): DetectReport {
  const findings = { ...a.findings };
  for (const [name, n] of Object.entries(b.findings)) findings[name] = (findings[name] ?? 0) + n;
  return {
    sessions: a.sessions + b.sessions,
    skipped: a.skipped + b.skipped,
    graphs: a.graphs + b.graphs,
    findings,
    problems: [...a.problems, ...b.problems],
    millis: a.millis + b.millis,
  };
}

export function problem(run: ReaderRun, p: DetectProblem): void {
  run.report.problems.push(p);
  run.onProblem?.(p);
}

export function builtWith(reader: Reader): string {
  return `${reader.name}@${reader.version} ${FINDINGS_FORMAT}`;
}

/** Each reader describes itself once, in its own graph, not in every session's. */
export async function writeDetectorGraphs(
  writer: StoreWriter,
  readers: readonly Reader[],
  onlyStale: boolean,
  run: ReaderRun,
): Promise<void> {
  for (const reader of readers) {
    const graph = detectorGraphIri(writer.soul, reader);
    if (onlyStale && writer.manifest.graphs[graph]?.builtWith === builtWith(reader)) continue;
    const { text, quads } = detectorGraphText(writer.soul, reader);
    const entry = await writer.writeGraph(graph, text, { quads, reader: reader.name, builtWith: builtWith(reader) });
    await run.onGraph?.({ reader: reader.name, graph, entry, quads, findings: 0 });
  }
}

/** Runs `readers` on one session's spine and writes each one's graph; `stamp` is the session graph file's. */
export async function readSession(
  writer: StoreWriter,
  spine: SessionSpine,
  readers: readonly Reader[],
  stamp: SourceStamp,
  run: ReaderRun,
): Promise<void> {
  const { sessionId } = spine;
  for (const reader of readers) {
    const readerGraph = readerGraphIri(writer.soul, sessionId, reader.name);
    let findings: Finding[];
    let text: string;
    let quads: number;
    try {
      findings = reader.read(spine, run.context);
      // Findings the framework cannot write (a foreign type, a bad field) fail the reader too.
      ({ text, quads } = readerGraphText(writer.soul, reader, findings, readerGraph));
    } catch (e) {
      // One reader failing on one session costs only that graph, which keeps its last version.
      problem(run, { sessionId, reader: reader.name, message: (e as Error).message });
      continue;
    }
    const entry = await writer.writeGraph(readerGraph, text, {
      quads,
      sessionId,
      reader: reader.name,
      builtWith: builtWith(reader),
      sources: [stamp],
    });
    run.report.graphs++;
    run.report.findings[reader.name] += findings.length;
    await run.onGraph?.({ sessionId, reader: reader.name, graph: readerGraph, entry, quads, findings: findings.length });
  }
  run.report.sessions++;
}

/**
 * What a reader graph was read from: the session graph's version. Every version is a new file and
 * appends move the length the manifest names, so the files and lengths tell one version from
 * another; an entry from before lengths were recorded is told by its file's size and time.
 */
export async function graphStamp(storeDir: string, entry: GraphEntry): Promise<SourceStamp> {
  const files = filesOf(entry);
  if (files.every((f) => f.bytes !== undefined))
    return { path: files.map((f) => f.file).join(' '), size: files.reduce((n, f) => n + f.bytes!, 0), mtimeMs: 0 };
  const info = await stat(join(storeDir, entry.file));
  return { path: entry.file, size: info.size, mtimeMs: info.mtimeMs };
}

export function isStale(entry: GraphEntry | undefined, reader: Reader, stamp: SourceStamp): boolean {
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
