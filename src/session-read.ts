import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { archivedLines, foundToJson } from './acquire/archived.ts';
import { archiveSideFile, readStamp, restoreSideFile, TranscriptCopy } from './acquire/archiving.ts';
import { readLines, type SourceLine } from './acquire/lines.ts';
import { sameFile } from './acquire/stamps.ts';
import { transcriptsOf, type FactObserver, type SessionSource, type TranscriptContext, type TranscriptSource } from './dialect/dialect.ts';
import type { ContentPolicy } from './emit/content.ts';
import type { SessionCounts } from './emit/contract.ts';
import { SessionEmitter, WholeReadNeeded } from './emit/session.ts';
import { conversationModel } from './model/observer.ts';
import { iri, nquad, type Triple } from './rdf/terms.ts';
import type { GraphDelta, GraphEntry, SourceStamp } from './store/manifest.ts';
import type { StoreWriter } from './store/writer.ts';

/**
 * Reading one session into its graph, kept in parts: the spine (the quads of every complete line,
 * file after file), then, on the state those lines left (saved for the next read), a last line
 * still being written, the end of each file and what the whole session derives (the model, links
 * resolved by id): the derived part, rewritten at every read.
 *
 * A session read before, whose files have only grown (the same files, at least as long, starting
 * with the same bytes; new files beside them are fine), is carried on: the saved state is loaded,
 * only the lines appended are read and their quads appended to the spine, and the derived part is
 * derived again. That gives the graph one read of the files as they are now would give. When it
 * cannot (a file replaced, rewritten or gone, a side file changed, an id first seen in a file read
 * later), the session is read whole.
 */

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

/** A session's reading failed at a file and line: that session is skipped, the run goes on. */
export class SessionFailure extends Error {
  constructor(
    readonly path: string,
    readonly lineNo: number,
    override readonly cause: unknown,
  ) {
    super(`${path}:${lineNo}`);
  }
}

/** The store itself failed (a full disk, say): that ends the run, as the store writer reports it. */
export class StoreFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('store');
  }
}

/** A store operation: its failure is the store's, never the session's. */
function stored<T>(operation: Promise<T>): Promise<T> {
  return operation.catch((e) => {
    throw new StoreFailure(e);
  });
}

export interface ReadTally {
  files: number;
  records: number;
  bytes: number;
  archived: number;
  problems: LineProblem[];
}

export interface SessionReadOptions {
  storeDir: string;
  soul: string;
  content?: ContentPolicy;
  observers?: (session: SessionSource, soul: string) => FactObserver[];
  onProblem?: (problem: LineProblem) => void;
  /** After each file read, with the tally so far. */
  onFile?: () => void;
  /** At the start of each read, whether it carries on the last (a read carried on may yet be read whole). */
  onBegin?: (carriedOn: boolean) => void;
  /** Each triple as it is emitted (the search index's documents and the readers' spine are collected so). */
  onTriple?: (triple: Triple) => void;
}

export interface SessionToRead {
  session: SessionSource;
  graph: string;
  /** The session's files as they are now (a gone file keeps the stamp it was read with, marked gone). */
  stamps: SourceStamp[];
  sessionId: string;
  builtWith: string;
  /** The session's entry as the store has it, if it has read the session before. */
  previous?: GraphEntry;
  /** Copy what is read into the archive. */
  keep: boolean;
  /** Read it whole, even where it could be carried on. */
  whole?: boolean;
}

export interface SessionRead {
  counts: SessionCounts;
  entry: GraphEntry;
  /** Whether only lines appended since the last read were read. */
  carriedOn: boolean;
  /** For a read carried on, what changed in the graph (when that is less than the graph). */
  delta?: GraphDelta;
}

/** What the state file holds besides the emitter's: where each transcript's last complete line left its end. */
interface ReadState {
  emitter: string;
  ends: Record<string, { lines: number; bytes: number }>;
}

const WRITE_BATCH = 1 << 20;

export async function readSession(
  store: StoreWriter,
  target: SessionToRead,
  options: SessionReadOptions,
  tally: ReadTally,
): Promise<SessionRead> {
  if (!target.whole && (await canCarryOn(target))) {
    const before = { ...tally, problems: tally.problems.length };
    try {
      return await read(store, target, options, tally, target.previous);
    } catch (e) {
      if (!(e instanceof WholeReadNeeded)) throw e;
      // Counted again by the whole read.
      Object.assign(tally, { ...before, problems: tally.problems.slice(0, before.problems) });
    }
  }
  return read(store, target, options, tally, undefined);
}

/**
 * Whether the last read can be carried on: the graph is kept in parts with a state, built the same
 * way, and every transcript it read is the same file, grown or not; no side file of one changed
 * and no file is gone.
 */
async function canCarryOn({ previous, builtWith, stamps, session, keep }: SessionToRead): Promise<boolean> {
  if (!previous?.state || !previous.derived || previous.builtWith !== builtWith || !previous.sources) return false;
  // An archive is carried on only where there is one.
  if (keep && previous.sources.some((s) => !s.archive)) return false;
  if (stamps.some((s) => s.gone) || previous.sources.some((s) => s.gone)) return false;
  const now = new Map(stamps.map((s) => [s.path, s]));
  const transcripts = new Set(transcriptsOf(session).map((t) => t.path));
  for (const before of previous.sources) {
    const stamp = now.get(before.path);
    if (!stamp) return false;
    if (transcripts.has(before.path)) {
      if (before.read === undefined || before.lines === undefined || !(await sameFile(before, stamp))) return false;
    } else if (
      !session.journals.includes(before.path) &&
      (stamp.size !== before.size || stamp.mtimeMs !== before.mtimeMs || stamp.id !== before.id)
    ) {
      // A sub-agent's side file: what it says is in the spine (the transcript's description).
      return false;
    }
  }
  return true;
}

interface Reading {
  ctx: TranscriptContext;
  source: TranscriptSource;
  /** The last line, when it is still being written (no newline after it). */
  tail?: SourceLine;
  /** Where the complete lines end, as a transcript's line count and byte length say it. */
  complete: { lines: number; bytes: number };
}

async function read(
  store: StoreWriter,
  target: SessionToRead,
  options: SessionReadOptions,
  tally: ReadTally,
  resume: GraphEntry | undefined,
): Promise<SessionRead> {
  const { session, graph, stamps, keep } = target;
  const { dialect } = session;
  const graphTerm = iri(graph);
  options.onBegin?.(!!resume);
  let saved: ReadState | undefined;
  if (resume) saved = JSON.parse(await readFile(join(options.storeDir, resume.state!.file), 'utf8')) as ReadState;
  // Triples go to the spine while complete lines are read, then to the derived part.
  let buffer = '';
  let spineQuads = 0;
  let derivedQuads = 0;
  let toSpine = true;
  const sink = (t: Triple) => {
    buffer += nquad(t, graphTerm);
    options.onTriple?.(t);
    if (toSpine) spineQuads++;
    else derivedQuads++;
  };
  const emitter = new SessionEmitter(
    options.soul,
    session,
    sink,
    (options.observers ?? conversationModel)(session, options.soul),
    options.content,
  );
  if (saved && !emitter.load(saved.emitter)) throw new WholeReadNeeded("the saved state is not this reading's");
  const file = await stored(store.beginSession(graph, resume));
  // Where reading is, so a failure names the file and line.
  let at = { path: transcriptsOf(session)[0]?.path ?? session.projectDir, lineNo: 0 };
  // A read carried on keeps the derived part it writes, to tell a loaded copy what changed in it.
  const derivedText: string[] = [];
  const flush = async (force: boolean) => {
    if (buffer.length < WRITE_BATCH && !(force && buffer)) return;
    if (toSpine) await stored(file.writeSpine(buffer));
    else {
      await stored(file.writeDerived(buffer));
      if (resume) derivedText.push(buffer);
    }
    buffer = '';
  };
  const stampOf = (path: string) => stamps.find((s) => s.path === path)!;
  const before = (path: string) => target.previous?.sources?.find((s) => s.path === path);
  const read = new Map<string, SourceStamp>();
  const copies: TranscriptCopy[] = [];
  const restored: { remove(): Promise<void> }[] = [];
  const readings: Reading[] = [];
  const lineOf = (ctx: TranscriptContext, source: TranscriptSource, line: SourceLine) => {
    at = { path: source.path, lineNo: line.lineNo };
    const result = dialect.readLine(line);
    if (result.kind === 'record') {
      emitter.record(ctx, line, result);
      tally.records++;
      for (const message of result.warnings ?? []) {
        const warning = { path: source.path, lineNo: line.lineNo, kind: 'warning' as const, message };
        tally.problems.push(warning);
        options.onProblem?.(warning);
      }
    } else if (result.kind !== 'blank') {
      const message = result.kind === 'malformed' ? result.error : 'the last line is incomplete (still being written?)';
      emitter.unreadable(ctx, line, result.kind, message);
      const problem = { path: source.path, lineNo: line.lineNo, kind: result.kind, message };
      tally.problems.push(problem);
      options.onProblem?.(problem);
    }
  };
  try {
    for (const source of transcriptsOf(session)) {
      at = { path: source.path, lineNo: 0 };
      const stamp = stampOf(source.path);
      const last = resume ? before(source.path) : undefined;
      const end = last ? saved!.ends[source.path] : undefined;
      if (last && !end) throw new WholeReadNeeded(`${source.path}: read before, but not where it ended`);
      let ctx: TranscriptContext;
      if (last && end) ctx = emitter.resumeTranscript(source);
      else {
        // A side file the dialect cannot read is reported, never counted as a line of the transcript.
        let opened = source;
        if (source.metaPath && stampOf(source.metaPath).gone) {
          const meta = await restoreSideFile(options.storeDir, source.metaPath, stampOf(source.metaPath).archive!);
          restored.push(meta);
          opened = { ...source, metaPath: meta.path };
        }
        const opening = await dialect.openTranscript(opened, (p) =>
          options.onProblem?.({ ...p, path: p.path === opened.metaPath ? source.metaPath! : p.path, kind: 'malformed' }),
        );
        ctx = emitter.beginTranscript(source, opening, { archivedOnly: !!stamp.gone });
      }
      const start = last && end ? last.read! : 0;
      const firstLine = last && end ? last.lines! + 1 : 1;
      const copy = stamp.gone ? undefined : await TranscriptCopy.begin(store, stamp, before(source.path), keep, start);
      if (copy) copies.push(copy);
      const reading: Reading = { ctx, source, complete: { lines: end?.lines ?? 0, bytes: end?.bytes ?? 0 } };
      const from = { start, firstLine, tap: copy?.tap };
      for await (const line of stamp.gone ? archivedLines(options.storeDir, stamp.archive!, from) : readLines(source.path, from)) {
        if (!line.terminated) {
          reading.tail = line;
          break;
        }
        lineOf(ctx, source, line);
        // As one read of the whole file counts it, so that a carried-on read says the same.
        reading.complete = { lines: line.lineNo, bytes: line.offset + line.byteLength + 1 };
        await flush(false);
      }
      if (copy) {
        const done = await copy.finish();
        // How far the spine holds the file: to the start of a last line still being written, else to its end.
        const complete = reading.tail ? reading.tail.offset : done.size;
        read.set(
          source.path,
          await readStamp(
            stamp,
            complete,
            reading.tail ? reading.tail.lineNo - 1 : Math.max(reading.complete.lines, firstLine - 1),
            done.head,
            done.archive,
          ),
        );
        tally.archived += done.archived;
      }
      readings.push(reading);
      tally.files++;
      options.onFile?.();
    }
    // The state the next read carries on from: the complete lines are all read.
    const state = emitter.save();
    await flush(true);
    emitter.beginTails();
    toSpine = false;
    for (const reading of readings) {
      let end = reading.complete;
      if (reading.tail) {
        lineOf(reading.ctx, reading.source, reading.tail);
        end = { lines: reading.tail.lineNo, bytes: reading.tail.offset + reading.tail.byteLength };
      }
      emitter.endTranscript(reading.ctx, end);
      tally.bytes += end.bytes - (resume ? (saved!.ends[reading.source.path]?.bytes ?? 0) : 0);
    }
    // Side files (a sub-agent's .meta.json, a workflow's journal) are kept whole.
    for (const stamp of stamps) {
      if (stamp.gone || read.has(stamp.path)) continue;
      const done = await archiveSideFile(store, stamp, before(stamp.path), keep);
      read.set(stamp.path, done.stamp);
      tally.archived += done.archived;
    }
    const counts = emitter.finish();
    await flush(true);
    const sources = stamps.map((s) => read.get(s.path) ?? s);
    const found = keep ? await stored(store.writeFound(graph, foundToJson(session))) : undefined;
    const ends = Object.fromEntries(readings.map((r) => [r.source.path, r.complete]));
    // Read before the commit: once the manifest no longer names it, the old derived part goes.
    const oldDerived = resume?.derived ? await readFile(join(options.storeDir, resume.derived.file)) : undefined;
    const entry = await stored(
      file.commit({
        spineQuads,
        derivedQuads,
        state: state === undefined ? undefined : JSON.stringify({ emitter: state, ends } satisfies ReadState),
        sources,
        sessionId: target.sessionId,
        builtWith: target.builtWith,
        ...(found ? { found } : {}),
      }),
    );
    const delta =
      resume && oldDerived
        ? deltaOf(resume, entry, oldDerived.subarray(0, resume.derived!.bytes).toString('utf8'), derivedText.join(''))
        : undefined;
    return { counts, entry, carriedOn: !!resume, ...(delta ? { delta } : {}) };
  } catch (e) {
    await file.abort();
    for (const copy of copies) await copy.abort();
    throw e instanceof StoreFailure || e instanceof WholeReadNeeded || e instanceof SessionFailure
      ? e
      : new SessionFailure(at.path, at.lineNo, e);
  } finally {
    for (const r of restored) await r.remove();
  }
}

/**
 * What a carried-on read changed in the graph: the spine's new bytes, and the derived lines that
 * went and came (most of a derived part stays the same from one read to the next). None when the
 * change is most of the derived part: a loaded copy then loads the graph again.
 */
function deltaOf(before: GraphEntry, after: GraphEntry, oldDerived: string, newDerived: string): GraphDelta | undefined {
  const old = new Set(oldDerived.split('\n'));
  const added: string[] = [];
  for (const line of newDerived.split('\n')) {
    if (!line) continue;
    if (old.has(line)) old.delete(line);
    else added.push(line);
  }
  old.delete('');
  if (added.length + old.size > after.derived!.quads / 2) return undefined;
  const lines = (list: Iterable<string>) => [...list].map((l) => `${l}\n`).join('');
  return { spine: { file: after.file, from: before.bytes!, to: after.bytes! }, removed: lines(old), added: lines(added) };
}
