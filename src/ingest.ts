import { resolve } from 'node:path';
import { archivedLines, foundToJson } from './acquire/archived.ts';
import { archiveSideFile, readStamp, restoreSideFile, TranscriptCopy } from './acquire/archiving.ts';
import { discoverSessions } from './acquire/discover.ts';
import { readLines } from './acquire/lines.ts';
import { planSessions } from './acquire/sessions.ts';
import { sameStamps } from './acquire/stamps.ts';
import { transcriptsOf, type Dialect, type FactObserver, type SessionSource } from './dialect/dialect.ts';
import type { SessionCounts } from './emit/contract.ts';
import { SessionEmitter } from './emit/session.ts';
import { conversationModel } from './model/observer.ts';
import { iri, nquad } from './rdf/terms.ts';
import { contentPolicyKey, type ContentPolicy } from './emit/content.ts';
import { linkAcrossSessions } from './link/crossSession.ts';
import type { GraphEntry, SourceStamp } from './store/manifest.ts';
import { lockStore, openStoreForWriting, type StoreWriter } from './store/writer.ts';

/** A line that could not be read, named by file and line. Never carries the line's content. */
export interface LineProblem {
  path: string;
  lineNo: number;
  kind: 'malformed' | 'pending';
  message: string;
}

export interface IngestProgress {
  sessionsDone: number;
  sessionsTotal: number;
  files: number;
  records: number;
  bytes: number;
}

export interface IngestOptions {
  storeDir: string;
  soul: string;
  /** Read every session again, even those whose files have not changed. */
  force?: boolean;
  onProgress?: (progress: IngestProgress) => void;
  onProblem?: (problem: LineProblem) => void;
  /** Called after each session's graph file is in place (its manifest entry may still be pending). */
  onSession?: (session: SessionSource, graph: string, counts: SessionCounts & { entry: GraphEntry }) => void | Promise<void>;
  /** Per-session observers of the records' facts; the conversation model when not given. */
  observers?: (session: SessionSource, soul: string) => FactObserver[];
  /** How much of each text to store (`--content`, `--text-limit`); default DEFAULT_POLICY. */
  content?: ContentPolicy;
  /** The dialects that find and read the sources; default every one Weave knows (src/dialect/index.ts). */
  dialects?: readonly Dialect[];
  /** Told when the store lock is taken over from a process that no longer runs, and what it left is removed. */
  onNote?: (note: string) => void;
  /** Keep a compressed copy of every source line read in the store (default true; `--no-archive` says false). */
  archive?: boolean;
  /** Read every session the store holds again: from its files, or from the archive where they are gone. */
  rebuild?: boolean;
}

export interface IngestReport {
  sessions: number;
  skipped: number;
  files: number;
  records: number;
  bytes: number;
  quads: number;
  malformed: number;
  pending: number;
  replayed: number;
  /** Source bytes newly copied into the archive. */
  archived: number;
  /** Sessions read with files that are gone, from the archive: their transcripts are marked archived-only. */
  archivedOnly: number;
  /** Sessions whose files are gone without an archive to read them from: their graphs stay as they are. */
  unarchived: string[];
  problems: LineProblem[];
  millis: number;
}

/** The emitter's version; a graph is stamped `<dialect>+weave/<version> <content policy>`. */
const WEAVE = 'weave/0.7';
const WRITE_BATCH = 1 << 20;

/** Reads transcripts into the store directory, one graph per session, holding the store's lock. */
export async function ingest(paths: string[], options: IngestOptions): Promise<IngestReport> {
  const lock = await lockStore(options.storeDir, { onNote: options.onNote });
  try {
    return await ingestLocked(paths, options);
  } finally {
    await lock.release();
  }
}

async function ingestLocked(paths: string[], options: IngestOptions): Promise<IngestReport> {
  const started = performance.now();
  const discovered = await discoverSessions(paths, options.dialects);
  const store = await openStoreForWriting(options.storeDir, options.soul);
  const roots = paths.map((p) => resolve(p));
  store.addRoots(roots);
  const report: IngestReport = {
    sessions: 0, skipped: 0, files: 0, records: 0, bytes: 0, quads: 0, malformed: 0, pending: 0, replayed: 0, archived: 0, archivedOnly: 0, unarchived: [],
    problems: [], millis: 0,
  };
  const keep = options.archive ?? true;
  // A store built under another content policy holds other texts: it is rebuilt.
  const policy = contentPolicyKey(options.content);

  try {
    const plan = await planSessions(discovered, store.manifest, options.storeDir, { roots, rebuild: options.rebuild });
    report.unarchived = plan.unarchived;
    const progress: IngestProgress = { sessionsDone: 0, sessionsTotal: plan.sessions.length, files: 0, records: 0, bytes: 0 };
    for (const { session, graph, stamps } of plan.sessions) {
      const builtWith = `${session.dialect.id}+${WEAVE} ${policy}`;
      const previous = store.manifest.graphs[graph];
      if (!options.force && !options.rebuild && previous?.builtWith === builtWith && sameStamps(previous.sources, stamps)) {
        report.skipped++;
        // A session read before the archive was kept (or without it) is copied in now, unread.
        if (keep) report.archived += await archiveUnread(store, graph, previous, session, stamps);
        progress.sessionsDone++;
        options.onProgress?.(progress);
        continue;
      }
      const { counts, entry } = await ingestSession(session, graph, store, { stamps, sessionId: session.sessionId, builtWith, previous, keep }, options, report, progress);
      report.sessions++;
      if (stamps.some((s) => s.gone)) report.archivedOnly++;
      report.quads += counts.triples;
      report.malformed += counts.malformed;
      report.pending += counts.pending;
      report.replayed += counts.replayed;
      progress.sessionsDone++;
      options.onProgress?.(progress);
      await options.onSession?.(session, graph, { ...counts, entry });
    }
    // Links whose target is in another session's graph (a compaction's tail in an earlier file).
    if (report.sessions) await linkAcrossSessions(store);
  } catch (e) {
    // The sessions stored before the failure keep their entries; the error is the one to report.
    await store.close().catch(() => store.abandon());
    throw e;
  }
  await store.close();
  report.millis = performance.now() - started;
  return report;
}

interface SessionFields {
  stamps: SourceStamp[];
  sessionId: string;
  builtWith: string;
  /** The session's entry as the store has it, if it has read the session before. */
  previous?: GraphEntry;
  /** Copy what is read into the archive. */
  keep: boolean;
}

async function ingestSession(
  session: SessionSource,
  graph: string,
  store: StoreWriter,
  { stamps, sessionId, builtWith, previous, keep }: SessionFields,
  options: IngestOptions,
  report: IngestReport,
  progress: IngestProgress,
): Promise<{ counts: SessionCounts; entry: GraphEntry }> {
  const { dialect } = session;
  const writer = await store.beginGraph(graph);
  const graphTerm = iri(graph);
  let buffer = '';
  const emitter = new SessionEmitter(options.soul, session, (t) => (buffer += nquad(t, graphTerm)), (options.observers ?? conversationModel)(session, options.soul), options.content);
  const flush = async (force: boolean) => {
    if (buffer.length >= WRITE_BATCH || (force && buffer)) {
      await writer.write(buffer);
      buffer = '';
    }
  };
  const stampOf = (path: string) => stamps.find((s) => s.path === path)!;
  const before = (path: string) => previous?.sources?.find((s) => s.path === path);
  const read = new Map<string, SourceStamp>();
  const copies: TranscriptCopy[] = [];
  const restored: { remove(): Promise<void> }[] = [];
  try {
    for (const source of transcriptsOf(session)) {
      const stamp = stampOf(source.path);
      // A side file the dialect cannot read is reported, never counted as a line of the transcript.
      let opened = source;
      if (source.metaPath && stampOf(source.metaPath).gone) {
        const meta = await restoreSideFile(options.storeDir, source.metaPath, stampOf(source.metaPath).archive!);
        restored.push(meta);
        opened = { ...source, metaPath: meta.path };
      }
      const opening = await dialect.openTranscript(opened, (p) => options.onProblem?.({ ...p, path: p.path === opened.metaPath ? source.metaPath! : p.path, kind: 'malformed' }));
      const ctx = emitter.beginTranscript(source, opening, { archivedOnly: !!stamp.gone });
      const copy = stamp.gone ? undefined : await TranscriptCopy.begin(store, stamp, before(source.path), keep);
      if (copy) copies.push(copy);
      let lines = 0;
      let bytes = 0;
      // Where the next line starts, after the last complete one: how far the graph holds the file.
      let complete = 0;
      let terminated = true;
      for await (const line of stamp.gone ? archivedLines(options.storeDir, stamp.archive!) : readLines(source.path, { tap: copy!.tap })) {
        if (terminated) complete = line.offset;
        terminated = line.terminated;
        lines = line.lineNo;
        bytes = line.offset + line.byteLength + (line.terminated ? 1 : 0);
        const result = dialect.readLine(line);
        if (result.kind === 'record') emitter.record(ctx, line, result);
        else if (result.kind !== 'blank') {
          const message = result.kind === 'malformed' ? result.error : 'the last line is incomplete (still being written?)';
          emitter.unreadable(ctx, line, result.kind, message);
          const problem = { path: source.path, lineNo: line.lineNo, kind: result.kind, message };
          report.problems.push(problem);
          options.onProblem?.(problem);
        }
        if (result.kind === 'record') {
          report.records++;
          progress.records++;
        }
        await flush(false);
      }
      emitter.endTranscript(ctx, { lines, bytes });
      if (copy) {
        const done = await copy.finish();
        read.set(source.path, readStamp(stamp, terminated ? done.size : complete, done.head, done.archive));
        report.archived += done.archived;
      }
      report.files++;
      report.bytes += bytes;
      progress.files++;
      progress.bytes += bytes;
      options.onProgress?.(progress);
    }
    // Side files (a sub-agent's .meta.json, a workflow's journal) are kept whole.
    for (const stamp of stamps) {
      if (stamp.gone || read.has(stamp.path)) continue;
      const done = await archiveSideFile(store, stamp, before(stamp.path), keep);
      read.set(stamp.path, done.stamp);
      report.archived += done.archived;
    }
    const counts = emitter.finish();
    await flush(true);
    const sources = stamps.map((s) => read.get(s.path) ?? s);
    const found = keep ? await store.writeFound(graph, foundToJson(session)) : undefined;
    const entry = await writer.commit({ quads: counts.triples, sources, sessionId, builtWith, ...(found ? { found } : {}) });
    return { counts, entry };
  } catch (e) {
    await writer.abort();
    for (const copy of copies) await copy.abort();
    throw e;
  } finally {
    for (const r of restored) await r.remove();
  }
}

/**
 * Copies into the archive the files of a session read before the archive was kept (or read
 * with `--no-archive`): its complete lines as they are now, without reading it again. The graph
 * stays; its entry gains the archive. Returns the bytes archived.
 */
async function archiveUnread(store: StoreWriter, graph: string, previous: GraphEntry, session: SessionSource, now: SourceStamp[]): Promise<number> {
  // As read before, with what the disk says of the files now (they have not changed).
  const sources = (previous.sources ?? []).map((s) => ({ ...s, id: s.id ?? now.find((n) => n.path === s.path)?.id }));
  if (sources.every((s) => s.archive || s.gone) && previous.found) return 0;
  let archived = 0;
  const transcripts = new Set(transcriptsOf(session).map((t) => t.path));
  const updated: SourceStamp[] = [];
  for (const stamp of sources) {
    if (stamp.archive || stamp.gone) {
      updated.push(stamp);
      continue;
    }
    if (transcripts.has(stamp.path)) {
      const copy = await TranscriptCopy.begin(store, stamp, undefined, true);
      try {
        let complete = 0;
        let terminated = true;
        for await (const line of readLines(stamp.path, { tap: copy.tap, end: stamp.size })) {
          if (terminated) complete = line.offset;
          terminated = line.terminated;
        }
        const done = await copy.finish();
        updated.push(readStamp(stamp, terminated ? done.size : complete, done.head, done.archive));
        archived += done.archived;
      } catch (e) {
        await copy.abort();
        throw e;
      }
    } else {
      const done = await archiveSideFile(store, stamp, undefined, true);
      updated.push(done.stamp);
      archived += done.archived;
    }
  }
  const found = await store.writeFound(graph, foundToJson(session));
  await store.putEntry(graph, { ...previous, sources: updated, found });
  return archived;
}
