import { stat } from 'node:fs/promises';
import { discoverSessions } from './acquire/discover.ts';
import { readLines } from './acquire/lines.ts';
import { transcriptsOf, type Dialect, type FactObserver, type SessionSource } from './dialect/dialect.ts';
import { sessionGraphIri } from './rdf/iri.ts';
import type { SessionCounts } from './emit/contract.ts';
import { SessionEmitter } from './emit/session.ts';
import { conversationModel } from './model/observer.ts';
import { iri, nquad, type Triple } from './rdf/terms.ts';
import { contentPolicyKey, type ContentPolicy } from './emit/content.ts';
import { linkAcrossSessions } from './link/crossSession.ts';
import type { GraphEntry, SourceStamp } from './store/manifest.ts';
import { openStoreForWriting, type StoreWriter } from './store/writer.ts';
import { DocCollector } from './search/docs.ts';
import { SearchIndex } from './search/index.ts';

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
  onSession?: (session: SessionSource, graph: string, counts: SessionCounts & { file: string }) => void | Promise<void>;
  /** Per-session observers of the records' facts; the conversation model when not given. */
  observers?: (session: SessionSource, soul: string) => FactObserver[];
  /** How much of each text to store (`--content`, `--text-limit`); default DEFAULT_POLICY. */
  content?: ContentPolicy;
  /** The dialects that find and read the sources; default every one Weave knows (src/dialect/index.ts). */
  dialects?: readonly Dialect[];
  /** Keep the store's full-text index (`<store>/search/`) current, session by session; default true. */
  search?: boolean;
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
  problems: LineProblem[];
  millis: number;
  /** Why the search index could not be kept current this run (weave search rebuilds it), if it could not. */
  searchIndex?: string;
}

/** The emitter's version; a graph is stamped `<dialect>+weave/<version> <content policy>`. */
const WEAVE = 'weave/0.9'; // 0.8: the conversation layer; 0.9: a session without a runtime title takes its first prompt as its title
const WRITE_BATCH = 1 << 20;

/** Reads transcripts into the store directory, one graph per session. */
export async function ingest(paths: string[], options: IngestOptions): Promise<IngestReport> {
  const started = performance.now();
  const sessions = await discoverSessions(paths, options.dialects);
  const store = await openStoreForWriting(options.storeDir, options.soul);
  const report: IngestReport = {
    sessions: 0,
    skipped: 0,
    files: 0,
    records: 0,
    bytes: 0,
    quads: 0,
    malformed: 0,
    pending: 0,
    replayed: 0,
    problems: [],
    millis: 0,
  };
  const progress: IngestProgress = { sessionsDone: 0, sessionsTotal: sessions.length, files: 0, records: 0, bytes: 0 };
  // A store built under another content policy holds other texts: it is rebuilt.
  const policy = contentPolicyKey(options.content);
  // The search index, opened when the first session is written (an unchanged store never loads it).
  let index: SearchIndex | undefined;

  try {
    for (const session of sessions) {
      const graph = sessionGraphIri(options.soul, session.sessionId);
      const builtWith = `${session.dialect.id}+${WEAVE} ${policy}`;
      const stamps = await stampsOf(session);
      const previous = store.manifest.graphs[graph];
      if (!options.force && previous?.builtWith === builtWith && sameStamps(previous.sources, stamps)) {
        report.skipped++;
        progress.sessionsDone++;
        options.onProgress?.(progress);
        continue;
      }
      const docs = options.search === false ? undefined : new DocCollector(session.sessionId);
      const { counts, entry } = await ingestSession(
        session,
        graph,
        store,
        { sources: stamps, sessionId: session.sessionId, builtWith },
        options,
        report,
        progress,
        docs,
      );
      if (docs && !report.searchIndex) {
        // The index is derived: a failure to keep it is reported, never a failed ingest.
        try {
          index ??= await SearchIndex.open(options.storeDir);
          await index.replaceSession(session.sessionId, entry, docs.docs(), docs.title());
        } catch (e) {
          report.searchIndex = (e as Error).message;
        }
      }
      report.sessions++;
      report.quads += counts.triples;
      report.malformed += counts.malformed;
      report.pending += counts.pending;
      report.replayed += counts.replayed;
      progress.sessionsDone++;
      options.onProgress?.(progress);
      await options.onSession?.(session, graph, { ...counts, file: entry.file });
    }
    // Links whose target is in another session's graph (a compaction's tail in an earlier file).
    if (report.sessions) await linkAcrossSessions(store);
    if (!report.searchIndex) await index?.save().catch((e: Error) => (report.searchIndex = e.message));
  } catch (e) {
    // The sessions stored before the failure keep their entries; the error is the one to report.
    await store.close().catch(() => undefined);
    throw e;
  }
  await store.close();
  report.millis = performance.now() - started;
  return report;
}

async function ingestSession(
  session: SessionSource,
  graph: string,
  store: StoreWriter,
  fields: Pick<GraphEntry, 'sources' | 'sessionId' | 'builtWith'>,
  options: IngestOptions,
  report: IngestReport,
  progress: IngestProgress,
  docs?: DocCollector,
): Promise<{ counts: SessionCounts; entry: GraphEntry }> {
  const { dialect } = session;
  const writer = await store.beginGraph(graph);
  const graphTerm = iri(graph);
  let buffer = '';
  const sink = (t: Triple) => {
    buffer += nquad(t, graphTerm);
    docs?.triple(t.s, t.p, t.o);
  };
  const emitter = new SessionEmitter(
    options.soul,
    session,
    sink,
    (options.observers ?? conversationModel)(session, options.soul),
    options.content,
  );
  const flush = async (force: boolean) => {
    if (buffer.length >= WRITE_BATCH || (force && buffer)) {
      await writer.write(buffer);
      buffer = '';
    }
  };
  try {
    for (const source of transcriptsOf(session)) {
      // A side file the dialect cannot read is reported, never counted as a line of the transcript.
      const opening = await dialect.openTranscript(source, (p) => options.onProblem?.({ ...p, kind: 'malformed' }));
      const ctx = emitter.beginTranscript(source, opening);
      let lines = 0;
      let bytes = 0;
      for await (const line of readLines(source.path)) {
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
      report.files++;
      report.bytes += bytes;
      progress.files++;
      progress.bytes += bytes;
      options.onProgress?.(progress);
    }
    const counts = emitter.finish();
    await flush(true);
    return { counts, entry: await writer.commit({ quads: counts.triples, ...fields }) };
  } catch (e) {
    await writer.abort();
    throw e;
  }
}

async function stampsOf(session: SessionSource): Promise<SourceStamp[]> {
  const paths = [...transcriptsOf(session).flatMap((t) => (t.metaPath ? [t.path, t.metaPath] : [t.path])), ...session.journals];
  return Promise.all(
    paths.map(async (path) => {
      const info = await stat(path);
      return { path, size: info.size, mtimeMs: info.mtimeMs };
    }),
  );
}

function sameStamps(a: SourceStamp[] | undefined, b: SourceStamp[]): boolean {
  return !!a && a.length === b.length && a.every((s, i) => s.path === b[i].path && s.size === b[i].size && s.mtimeMs === b[i].mtimeMs);
}
