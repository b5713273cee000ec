import { stat } from 'node:fs/promises';
import { discoverSessions } from './acquire/discover.ts';
import { readLines } from './acquire/lines.ts';
import { transcriptsOf, type Dialect, type FactObserver, type SessionSource } from './dialect/dialect.ts';
import { sessionGraphIri } from './rdf/iri.ts';
import type { SessionCounts } from './emit/contract.ts';
import { SessionEmitter } from './emit/session.ts';
import { conversationModel } from './model/observer.ts';
import { iri, nquad } from './rdf/terms.ts';
import { contentPolicyKey, type ContentPolicy } from './emit/content.ts';
import { linkAcrossSessions } from './link/crossSession.ts';
import type { GraphEntry, SourceStamp } from './store/manifest.ts';
import { openStoreForWriting, type StoreWriter } from './store/writer.ts';

/**
 * Something of the sources that could not be read as it should, named by file and line (0 for a
 * whole file or folder). Never carries what the source said.
 *
 * - malformed: a line that is not a record (kept as a weave:MalformedLine);
 * - pending: a last line still being written;
 * - warning: a record read, but a field of it kept as JSON only (it had another type);
 * - unreadable: a file or folder that could not be read (no permission, gone, a broken link):
 *   skipped, with the rest of the run going on;
 * - failed: a session whose reading failed inside Weave; skipped, its earlier graph kept.
 */
export interface LineProblem {
  path: string;
  lineNo: number;
  kind: 'malformed' | 'pending' | 'warning' | 'unreadable' | 'failed';
  message: string;
  /** For `failed`: where in Weave it failed, as stack frames (never the error's message, which can quote data). */
  frames?: string[];
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
  /** Records read with a field kept as JSON only (see LineProblem). */
  warnings: number;
  /** Sessions skipped because a file of theirs could not be read. */
  unreadable: number;
  /** Sessions skipped because reading them failed inside Weave. */
  failed: number;
  problems: LineProblem[];
  millis: number;
}

/** The emitter's version; a graph is stamped `<dialect>+weave/<version> <content policy>`. */
const WEAVE = 'weave/0.8';
const WRITE_BATCH = 1 << 20;

/** Reads transcripts into the store directory, one graph per session. */
export async function ingest(paths: string[], options: IngestOptions): Promise<IngestReport> {
  const started = performance.now();
  const report: IngestReport = {
    sessions: 0, skipped: 0, files: 0, records: 0, bytes: 0, quads: 0, malformed: 0, pending: 0, replayed: 0, warnings: 0, unreadable: 0, failed: 0,
    problems: [], millis: 0,
  };
  const problem = (p: LineProblem) => {
    report.problems.push(p);
    options.onProblem?.(p);
  };
  const sessions = await discoverSessions(paths, options.dialects, (p) => problem({ ...p, kind: 'unreadable' }));
  const store = await openStoreForWriting(options.storeDir, options.soul);
  const progress: IngestProgress = { sessionsDone: 0, sessionsTotal: sessions.length, files: 0, records: 0, bytes: 0 };
  // A store built under another content policy holds other texts: it is rebuilt.
  const policy = contentPolicyKey(options.content);

  try {
    for (const session of sessions) {
      const graph = sessionGraphIri(options.soul, session.sessionId);
      const builtWith = `${session.dialect.id}+${WEAVE} ${policy}`;
      let read: Awaited<ReturnType<typeof ingestSession>>;
      try {
        const stamps = await stampsOf(session);
        const previous = store.manifest.graphs[graph];
        if (!options.force && previous?.builtWith === builtWith && sameStamps(previous.sources, stamps)) {
          report.skipped++;
          progress.sessionsDone++;
          options.onProgress?.(progress);
          continue;
        }
        read = await ingestSession(session, graph, store, { sources: stamps, sessionId: session.sessionId, builtWith }, options, report, progress, problem);
      } catch (e) {
        // One session that cannot be read costs that session only; its earlier graph stays.
        if (e instanceof StoreFailure) throw e.cause;
        const at = e instanceof SessionFailure ? e : new SessionFailure(transcriptsOf(session)[0]?.path ?? session.projectDir, 0, e);
        const io = (at.cause as NodeJS.ErrnoException)?.code;
        if (io && IO_ERRORS.has(io)) report.unreadable++;
        else report.failed++;
        problem({
          path: at.path,
          lineNo: at.lineNo,
          kind: io && IO_ERRORS.has(io) ? 'unreadable' : 'failed',
          // The error's kind, never its message: it can quote the data.
          message: io && IO_ERRORS.has(io) ? `cannot be read (${io}); session ${session.sessionId} skipped` : `reading failed (${(at.cause as Error)?.name ?? 'error'}); session ${session.sessionId} skipped`,
          ...(io && IO_ERRORS.has(io) ? {} : { frames: String((at.cause as Error)?.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).map((l) => l.trim()) }),
        });
        progress.sessionsDone++;
        options.onProgress?.(progress);
        continue;
      }
      const { counts, entry } = read;
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
  problem: (p: LineProblem) => void,
): Promise<{ counts: SessionCounts; entry: GraphEntry }> {
  const { dialect } = session;
  const writer = await store.beginGraph(graph).catch((e) => {
    throw new StoreFailure(e);
  });
  // Where reading is, so a failure names the file and line.
  let at = { path: transcriptsOf(session)[0]?.path ?? session.projectDir, lineNo: 0 };
  const graphTerm = iri(graph);
  let buffer = '';
  const emitter = new SessionEmitter(options.soul, session, (t) => (buffer += nquad(t, graphTerm)), (options.observers ?? conversationModel)(session, options.soul), options.content);
  const flush = async (force: boolean) => {
    if (buffer.length >= WRITE_BATCH || (force && buffer)) {
      await writer.write(buffer).catch((e) => {
        throw new StoreFailure(e);
      });
      buffer = '';
    }
  };
  try {
    for (const source of transcriptsOf(session)) {
      at = { path: source.path, lineNo: 0 };
      // A side file the dialect cannot read is reported, never counted as a line of the transcript.
      const opening = await dialect.openTranscript(source, (p) => problem({ ...p, kind: 'malformed' }));
      const ctx = emitter.beginTranscript(source, opening);
      let lines = 0;
      let bytes = 0;
      for await (const line of readLines(source.path)) {
        lines = line.lineNo;
        bytes = line.offset + line.byteLength + (line.terminated ? 1 : 0);
        at = { path: source.path, lineNo: line.lineNo };
        const result = dialect.readLine(line);
        if (result.kind === 'record') {
          emitter.record(ctx, line, result);
          for (const message of result.warnings ?? []) {
            report.warnings++;
            problem({ path: source.path, lineNo: line.lineNo, kind: 'warning', message });
          }
        } else if (result.kind !== 'blank') {
          const message = result.kind === 'malformed' ? result.error : 'the last line is incomplete (still being written?)';
          emitter.unreadable(ctx, line, result.kind, message);
          problem({ path: source.path, lineNo: line.lineNo, kind: result.kind, message });
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
    at = { path: at.path, lineNo: 0 };
    const counts = emitter.finish();
    await flush(true);
    return { counts, entry: await writer.commit({ quads: counts.triples, ...fields }).catch((e) => { throw new StoreFailure(e); }) };
  } catch (e) {
    await writer.abort();
    throw e instanceof StoreFailure ? e : new SessionFailure(at.path, at.lineNo, e);
  }
}

/** Errors of the sources' own files and folders: the session is skipped, the run goes on. */
const IO_ERRORS = new Set(['EACCES', 'EPERM', 'ENOENT', 'EISDIR', 'ENOTDIR', 'ELOOP', 'EIO', 'EMFILE', 'ENFILE', 'ENAMETOOLONG']);

/** A session's reading failed at a file and line. */
class SessionFailure extends Error {
  constructor(readonly path: string, readonly lineNo: number, override readonly cause: unknown) {
    super(`${path}:${lineNo}`);
  }
}

/** The store itself failed (a full disk, say): that ends the run, as the store writer reports it. */
class StoreFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('store');
  }
}

async function stampsOf(session: SessionSource): Promise<SourceStamp[]> {
  const paths = [...transcriptsOf(session).flatMap((t) => (t.metaPath ? [t.path, t.metaPath] : [t.path])), ...session.journals];
  return Promise.all(paths.map(async (path) => {
    const info = await stat(path);
    return { path, size: info.size, mtimeMs: info.mtimeMs };
  }));
}

function sameStamps(a: SourceStamp[] | undefined, b: SourceStamp[]): boolean {
  return !!a && a.length === b.length && a.every((s, i) => s.path === b[i].path && s.size === b[i].size && s.mtimeMs === b[i].mtimeMs);
}
