import { resolve } from 'node:path';
import { archiveUnread } from './acquire/archiving.ts';
import { discoverSessions } from './acquire/discover.ts';
import { planSessions } from './acquire/sessions.ts';
import { sameStamps } from './acquire/stamps.ts';
import { readSession, SessionFailure, StoreFailure, type LineProblem, type ReadTally, type SessionRead } from './session-read.ts';
import { transcriptsOf, type Dialect, type FactObserver, type SessionSource } from './dialect/dialect.ts';
import type { SessionCounts } from './emit/contract.ts';
import type { Triple } from './rdf/terms.ts';
import { contentPolicyKey, type ContentPolicy } from './emit/content.ts';
import { linkAcrossSessions } from './link/crossSession.ts';
import { linksGraphIri } from './rdf/iri.ts';
import type { Reader } from './readers/reader.ts';
import {
  emptyReport,
  graphStamp,
  readSession as runReaders,
  writeDetectorGraphs,
  type DetectedGraph,
  type DetectProblem,
  type DetectReport,
  type ReaderRun,
} from './readers/run.ts';
import { storeSecretKey } from './readers/secret/key.ts';
import { SpineBuilder, spineFromGraph } from './readers/spine-builder.ts';
import type { SessionSpine } from './readers/spine.ts';
import type { GraphDelta, GraphEntry } from './store/manifest.ts';
import { lockStore, openStoreForWriting } from './store/writer.ts';
import { SearchIndex } from './search/index.ts';
import { DocCollector } from './search/docs.ts';

export type { LineProblem } from './session-read.ts';

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
  onSession?: (
    session: SessionSource,
    graph: string,
    counts: SessionCounts & { entry: GraphEntry; delta?: GraphDelta },
  ) => void | Promise<void>;
  /** Called when a graph other than a session's changed (the links across sessions); no entry: it went. */
  onGraph?: (graph: string, entry: GraphEntry | undefined) => void | Promise<void>;
  /** Per-session observers of the records' facts; the conversation model when not given. */
  observers?: (session: SessionSource, soul: string) => FactObserver[];
  /** How much of each text to store (`--content`, `--text-limit`); default DEFAULT_POLICY. */
  content?: ContentPolicy;
  /** The dialects that find and read the sources; default every one Weave knows (src/dialect/index.ts). */
  dialects?: readonly Dialect[];
  /** Keep the store's full-text index (`<store>/search/`) current, session by session; default true. */
  search?: boolean;
  /** Told when the store lock is taken over from a process that no longer runs, and what it left is removed. */
  onNote?: (note: string) => void;
  /** Keep a compressed copy of every source line read in the store (default true; `--no-archive` says false). */
  archive?: boolean;
  /** Read every session the store holds again: from its files, or from the archive where they are gone. */
  rebuild?: boolean;
  /**
   * Readers to run on each session read, on its spine as its triples are written (its graph is
   * not read back; a read carried on saw only the appended lines, so its spine comes from its
   * graph's parts), writing the graphs `weave detect` would; sessions not read are detect's.
   */
  readers?: {
    list: readonly Reader[];
    onGraph?: (graph: DetectedGraph) => void | Promise<void>;
    onProblem?: (problem: DetectProblem) => void;
  };
}

export interface IngestReport {
  sessions: number;
  skipped: number;
  /** Sessions read before whose files only grew: only their appended lines were read. */
  carriedOn: number;
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
  /** Records read with a field kept as JSON only (see LineProblem). */
  warnings: number;
  /** Sessions skipped because a file of theirs could not be read. */
  unreadable: number;
  /** Sessions skipped because reading them failed inside Weave. */
  failed: number;
  problems: LineProblem[];
  millis: number;
  /** Why the search index could not be kept current this run (weave search rebuilds it), if it could not. */
  searchIndex?: string;
  /** What the readers did on the sessions read (when asked for), with the wall and CPU time they took. */
  readers?: DetectReport & { cpuMillis: number };
}

/** The emitter's version; a graph is stamped `<dialect>+weave/<version> <content policy>`. */
// 0.8: the conversation layer; 0.9: a session without a runtime title takes its first prompt as its title;
// 0.10: the lean graph (issue 16): the envelope stated once per transcript, roles and record types by class,
// one Usage and FileBackup node per session and content, id literals only where a link does not resolve,
// no Content node for a text kept whole where its dialect puts it; 0.11: a call's Usage is named by its
// message id where the API minted it, so copies of a call in several sessions share it (issue 10).
const WEAVE = 'weave/0.11';

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
  const report: IngestReport = {
    sessions: 0,
    skipped: 0,
    carriedOn: 0,
    files: 0,
    records: 0,
    bytes: 0,
    quads: 0,
    malformed: 0,
    pending: 0,
    replayed: 0,
    archived: 0,
    archivedOnly: 0,
    unarchived: [],
    warnings: 0,
    unreadable: 0,
    failed: 0,
    problems: [],
    millis: 0,
  };
  const problem = (p: LineProblem) => {
    report.problems.push(p);
    options.onProblem?.(p);
  };
  // A folder or file that cannot be read is reported and skipped; the rest is read.
  const discovered = await discoverSessions(paths, options.dialects, (p) => problem({ ...p, kind: 'unreadable' }));
  const store = await openStoreForWriting(options.storeDir, options.soul);
  const roots = paths.map((p) => resolve(p));
  store.addRoots(roots);
  const keep = options.archive ?? true;
  // A store built under another content policy holds other texts: it is rebuilt.
  const policy = contentPolicyKey(options.content);
  // The search index, opened when the first session is written (an unchanged store never loads it).
  let index: SearchIndex | undefined;
  const readers = options.readers;
  const run: ReaderRun | undefined = readers && {
    report: emptyReport(readers.list),
    onGraph: readers.onGraph,
    onProblem: readers.onProblem,
    context: { secretKey: await storeSecretKey(options.storeDir) },
  };
  let readerCpu = 0;

  try {
    if (readers && run) await writeDetectorGraphs(store, readers.list, true, run);
    const plan = await planSessions(discovered, store.manifest, options.storeDir, { roots, rebuild: options.rebuild });
    report.unarchived = plan.unarchived;
    for (const graph of plan.regrouped) {
      const sessionId = store.manifest.graphs[graph].sessionId;
      // With the readers' graphs of it: they read a session that is now part of another.
      for (const [name, entry] of Object.entries(store.manifest.graphs))
        if (name === graph || (entry.reader && entry.sessionId === sessionId)) await store.removeGraph(name);
    }
    const progress: IngestProgress = { sessionsDone: 0, sessionsTotal: plan.sessions.length, files: 0, records: 0, bytes: 0 };
    const tally: ReadTally = { files: 0, records: 0, bytes: 0, archived: 0, problems: report.problems };
    const reading = {
      storeDir: options.storeDir,
      soul: options.soul,
      content: options.content,
      observers: options.observers,
      onProblem: options.onProblem,
    };
    const onFile = () => {
      Object.assign(progress, { files: tally.files, records: tally.records, bytes: tally.bytes });
      options.onProgress?.(progress);
    };
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
      let read: SessionRead;
      // What the search index and the readers take from the triples as they are written, begun
      // again with each read: a read carried on that must be read whole starts over.
      let docs: DocCollector | undefined;
      let spine: SpineBuilder | undefined;
      const onBegin = (carriedOn: boolean) => {
        docs = options.search === false ? undefined : new DocCollector(session.sessionId);
        spine = readers && !carriedOn ? new SpineBuilder() : undefined;
      };
      const onTriple = (t: Triple) => {
        docs?.triple(t.s, t.p, t.o);
        spine?.add(t.s, t.p, t.o);
      };
      try {
        read = await readSession(
          store,
          { session, graph, stamps, sessionId: session.sessionId, builtWith, previous, keep, whole: options.force || options.rebuild },
          { ...reading, onFile, onBegin, onTriple },
          tally,
        );
      } catch (e) {
        // One session that cannot be read costs that session only; its earlier graph stays.
        if (e instanceof StoreFailure) throw e.cause;
        failedSession(
          e instanceof SessionFailure ? e : new SessionFailure(transcriptsOf(session)[0]?.path ?? session.projectDir, 0, e),
          session.sessionId,
          report,
          problem,
        );
        progress.sessionsDone++;
        options.onProgress?.(progress);
        continue;
      }
      const { counts, entry, carriedOn, delta } = read;
      if (docs && !report.searchIndex) {
        // The index is derived: a failure to keep it is reported, never a failed ingest.
        try {
          index ??= await SearchIndex.open(options.storeDir);
          // A read carried on saw only the new lines (and the derived part again): their documents are added to the session's.
          if (carriedOn) await index.extendSession(session.sessionId, entry, docs.docs(), docs.title());
          else await index.replaceSession(session.sessionId, entry, docs.docs(), docs.title());
        } catch (e) {
          report.searchIndex = (e as Error).message;
        }
      }
      report.sessions++;
      if (carriedOn) report.carriedOn++;
      if (stamps.some((s) => s.gone)) report.archivedOnly++;
      report.quads += counts.triples;
      report.malformed += counts.malformed;
      report.pending += counts.pending;
      report.replayed += counts.replayed;
      progress.sessionsDone++;
      options.onProgress?.(progress);
      await options.onSession?.(session, graph, { ...counts, entry, delta });
      if (readers && run) {
        // The readers' share of the work, timed apart: the spine (as it was written, or for a read
        // carried on from the graph's parts), the readers, their graphs.
        const wall = performance.now();
        const cpu = process.cpuUsage();
        let sessionSpine: SessionSpine | undefined;
        try {
          sessionSpine = spine
            ? spine.build(graph, session.sessionId)
            : await spineFromGraph(options.storeDir, entry, graph, session.sessionId);
        } catch (e) {
          const message = (e as Error).message;
          run.report.problems.push({ sessionId: session.sessionId, message });
          readers.onProblem?.({ sessionId: session.sessionId, message });
        }
        if (sessionSpine) await runReaders(store, sessionSpine, readers.list, await graphStamp(options.storeDir, entry), run);
        const used = process.cpuUsage(cpu);
        readerCpu += (used.user + used.system) / 1000;
        run.report.millis += performance.now() - wall;
      }
    }
    Object.assign(report, { files: tally.files, records: tally.records, bytes: tally.bytes });
    report.warnings = report.problems.filter((p) => p.kind === 'warning').length;
    report.archived += tally.archived;
    // Links whose target is in another session's graph (a compaction's tail in an earlier file).
    if (report.sessions) {
      const links = linksGraphIri(options.soul);
      const before = JSON.stringify(store.manifest.graphs[links] ?? null);
      await linkAcrossSessions(store);
      const after = store.manifest.graphs[links];
      if (JSON.stringify(after ?? null) !== before) await options.onGraph?.(links, after);
    }
    if (!report.searchIndex) await index?.save().catch((e: Error) => (report.searchIndex = e.message));
  } catch (e) {
    // The sessions stored before the failure keep their entries; the error is the one to report.
    await store.close().catch(() => store.abandon());
    throw e;
  }
  await store.close();
  report.millis = performance.now() - started;
  if (run) report.readers = { ...run.report, cpuMillis: readerCpu };
  return report;
}

/** Errors of the sources' own files and folders: the session is skipped, the run goes on. */
const IO_ERRORS = new Set(['EACCES', 'EPERM', 'ENOENT', 'EISDIR', 'ENOTDIR', 'ELOOP', 'EIO', 'EMFILE', 'ENFILE', 'ENAMETOOLONG']);

/** Counts and reports a session skipped: unreadable (a file error) or failed (a fault inside Weave, with its frames). */
function failedSession(at: SessionFailure, sessionId: string, report: IngestReport, problem: (p: LineProblem) => void): void {
  const io = (at.cause as NodeJS.ErrnoException)?.code;
  const unreadable = !!io && IO_ERRORS.has(io);
  if (unreadable) report.unreadable++;
  else report.failed++;
  problem({
    path: at.path,
    lineNo: at.lineNo,
    kind: unreadable ? 'unreadable' : 'failed',
    // The error's kind, never its message: it can quote the data.
    message: unreadable
      ? `cannot be read (${io}); session ${sessionId} skipped`
      : `reading failed (${(at.cause as Error)?.name ?? 'error'}); session ${sessionId} skipped`,
    ...(unreadable
      ? {}
      : {
          frames: String((at.cause as Error)?.stack ?? '')
            .split('\n')
            .filter((l) => /^\s+at /.test(l))
            .map((l) => l.trim()),
        }),
  });
}
