import { redactLine } from './readers/redact.ts';
import { longNumbers, whileEmitting } from './rdf/json.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { archivedLines, foundToJson } from './acquire/archived.ts';
import { archiveSideFile, readStamp, restoreSideFile, TranscriptCopy, versionNote, type VersionKept } from './acquire/archiving.ts';
import { readLines, type SourceLine } from './acquire/lines.ts';
import { sameFile } from './acquire/stamps.ts';
import { transcriptsOf, type FactObserver, type SessionSource, type TranscriptContext, type TranscriptSource } from './dialect/dialect.ts';
import type { ContentPolicy } from './emit/content.ts';
import type { SessionCounts } from './emit/contract.ts';
import { SessionEmitter, WholeReadNeeded } from './emit/session.ts';
import { conversationModel } from './model/observer.ts';
import { iri, nquad, str, type Triple } from './rdf/terms.ts';
import { instanceIri } from './rdf/iri.ts';
import { a, dcterms, prov, weave } from './rdf/vocab.ts';
import { sessionNode } from './model/streams.ts';
import type { GraphDelta, GraphEntry, LeftFile, SourceStamp } from './store/manifest.ts';
import type { SessionGraphFile, StoreWriter } from './store/writer.ts';
import type { LineProblem } from './acquire/problems.ts';

export type { LineProblem } from './acquire/problems.ts';

/**
 * Reading one session into its graph, kept in parts: the spine (the quads of every complete line,
 * file after file), then, on the state those lines left (saved for the next read), a last line
 * still being written, the end of each file and what the whole session derives (the model, links
 * resolved by id): the derived part, rewritten at every read.
 *
 * A session read before, whose files have only grown (the same files, at least as long, starting
 * with the bytes read before; new files beside them are fine), is carried on: the saved state is loaded,
 * only the lines appended are read and their quads appended to the spine, and the derived part is
 * derived again. That gives the graph one read of the files as they are now would give. When it
 * cannot (a file replaced, rewritten or gone, a side file changed, an id first seen in a file read
 * later), the session is read whole.
 */

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
  /** Told, once the read is in the store, of each file's earlier version set aside in the archive (never what it says). */
  onNote?: (note: string) => void;
  /** Who writes the graph, stated in it (a store several machines feed): the machine and its user. */
  writtenBy?: WrittenBy;
}

export interface WrittenBy {
  host: string;
  user: string;
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
  /** Files whose archive was set aside as an earlier version (replaced, cut short, rewritten). */
  kept: VersionKept[];
}

/**
 * The state file: a first line saying where each transcript's last complete line left its end,
 * then the emitter's lines (SessionEmitter.save), here each parsed.
 */
interface ReadState {
  ends: Record<string, { lines: number; bytes: number }>;
  emitter: unknown[];
}

/** A state file read a line at a time (it can be more than one string holds). */
async function readState(path: string): Promise<ReadState> {
  const state: ReadState = { ends: {}, emitter: [] };
  for await (const line of readLines(path)) {
    if (!line.text) continue;
    const value = JSON.parse(line.text);
    if (line.lineNo === 1) state.ends = (value as Partial<ReadState>).ends ?? {};
    else state.emitter.push(value);
  }
  return state;
}

const WRITE_BATCH = 1 << 20;
/**
 * The largest derived part whose change a read carried on works out line by line (both versions
 * are held whole for it); past it, a loaded copy loads the graph again.
 */
const DELTA_LIMIT = 64 << 20;

export async function readSession(
  store: StoreWriter,
  target: SessionToRead,
  options: SessionReadOptions,
  tally: ReadTally,
): Promise<SessionRead> {
  let done: SessionRead | undefined;
  if (!target.whole && (await canCarryOn(target))) {
    const before = { ...tally, problems: tally.problems.length };
    try {
      done = await read(store, target, options, tally, target.previous);
    } catch (e) {
      if (!(e instanceof WholeReadNeeded)) throw e;
      // Counted again by the whole read.
      Object.assign(tally, { ...before, problems: tally.problems.slice(0, before.problems) });
    }
  }
  done ??= await read(store, target, options, tally, undefined);
  for (const kept of done.kept) options.onNote?.(versionNote(kept));
  return done;
}

/**
 * Whether the last read can be carried on: the graph is kept in parts with a state, built the same
 * way, and every transcript it read is the same file, grown or not (every byte read before still
 * its first bytes, digest for digest); no side file of one changed and no file is gone.
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
  /** Its archive's earlier version, set aside by this read. */
  kept?: VersionKept;
}

function read(store: StoreWriter, target: SessionToRead, options: SessionReadOptions, tally: ReadTally, resume: GraphEntry | undefined) {
  return new SessionReading(store, target, options, tally, resume).run();
}

/** One read of a session: its files line by line into the spine, then the tails and what the whole session derives. */
class SessionReading {
  private saved?: ReadState;
  private emitter!: SessionEmitter;
  private file!: SessionGraphFile;
  /** Triples go to the spine while complete lines are read, then to the derived part. */
  private buffer = '';
  private toSpine = true;
  private spineQuads = 0;
  private derivedQuads = 0;
  /** A read carried on keeps the derived part it writes, to tell a loaded copy what changed in it (up to DELTA_LIMIT). */
  private readonly derivedText: string[] = [];
  private derivedLength = 0;
  /** Where reading is, so a failure names the file and line. */
  private at: { path: string; lineNo: number };
  private readonly read = new Map<string, SourceStamp>();
  private readonly copies: TranscriptCopy[] = [];
  /** Each copy's last bytes compressed and flushed while the session reads on: the commit waits for them. */
  private readonly copying: Promise<void>[] = [];
  private readonly restored: { remove(): Promise<void> }[] = [];
  private readonly readings: Reading[] = [];

  constructor(
    private readonly store: StoreWriter,
    private readonly target: SessionToRead,
    private readonly options: SessionReadOptions,
    private readonly tally: ReadTally,
    private readonly resume: GraphEntry | undefined,
  ) {
    this.at = { path: transcriptsOf(target.session)[0]?.path ?? target.session.projectDir, lineNo: 0 };
  }

  async run(): Promise<SessionRead> {
    const { session } = this.target;
    const graphTerm = iri(this.target.graph);
    this.options.onBegin?.(!!this.resume);
    if (this.resume) this.saved = await readState(join(this.options.storeDir, this.resume.state!.file));
    const sink = (t: Triple) => {
      this.buffer += nquad(t, graphTerm);
      this.options.onTriple?.(t);
      if (this.toSpine) this.spineQuads++;
      else this.derivedQuads++;
    };
    this.emitter = new SessionEmitter(
      this.options.soul,
      session,
      sink,
      (this.options.observers ?? conversationModel)(session, this.options.soul),
      this.options.content,
    );
    if (this.saved && !this.emitter.load(this.saved.emitter)) throw new WholeReadNeeded("the saved state is not this reading's");
    this.file = await stored(this.store.beginSession(this.target.graph, this.resume));
    try {
      for (const source of transcriptsOf(session)) await this.transcript(source);
      await this.flush(true);
      // The state the next read carries on from: the complete lines are all read.
      await this.saveState();
      this.tails();
      this.attribution();
      await this.sideFiles();
      const counts = await this.finish();
      await this.flush(true);
      return { counts, ...(await this.commit()) };
    } catch (e) {
      await this.file.abort();
      await Promise.allSettled(this.copying);
      for (const copy of this.copies) await copy.abort();
      throw e instanceof StoreFailure || e instanceof WholeReadNeeded || e instanceof SessionFailure
        ? e
        : new SessionFailure(this.at.path, this.at.lineNo, e);
    } finally {
      for (const r of this.restored) await r.remove();
    }
  }

  /** The state after the complete lines, written a batch at a time; none when an observer cannot save. */
  private async saveState(): Promise<void> {
    const lines = this.emitter.save();
    if (!lines) return;
    let batch = `${JSON.stringify({ ends: this.ends() })}\n`;
    for (const line of lines) {
      batch += line;
      if (batch.length < WRITE_BATCH) continue;
      await stored(this.file.writeState(batch));
      batch = '';
    }
    if (batch) await stored(this.file.writeState(batch));
  }

  /** Where each transcript's complete lines end. */
  private ends(): ReadState['ends'] {
    return Object.fromEntries(this.readings.map((r) => [r.source.path, r.complete]));
  }

  /** What the whole session derives, written out a batch at a time (it can be more than one string holds). */
  private async finish(): Promise<SessionCounts> {
    const finishing = this.emitter.finish();
    for (let step = finishing.next(); ; step = finishing.next()) {
      if (step.done) return step.value;
      if (this.buffer.length >= WRITE_BATCH) await this.flush(false);
    }
  }

  private async flush(force: boolean): Promise<void> {
    if (this.buffer.length < WRITE_BATCH && !(force && this.buffer)) return;
    if (this.toSpine) await stored(this.file.writeSpine(this.buffer));
    else {
      await stored(this.file.writeDerived(this.buffer));
      this.derivedLength += this.buffer.length;
      if (this.resume && this.derivedLength <= DELTA_LIMIT) this.derivedText.push(this.buffer);
    }
    this.buffer = '';
  }

  private stampOf(path: string): SourceStamp {
    return this.target.stamps.find((s) => s.path === path)!;
  }

  private before(path: string): SourceStamp | undefined {
    return this.target.previous?.sources?.find((s) => s.path === path);
  }

  private line(ctx: TranscriptContext, source: TranscriptSource, read: SourceLine): void {
    this.at = { path: source.path, lineNo: read.lineNo };
    // --redact-secrets: the line as the store is to hold it (its offset and length stay the source's).
    const line = this.options.content?.redactSecrets ? { ...read, text: redactLine(read.text) } : read;
    const result = this.target.session.dialect.readLine(line);
    if (result.kind === 'record') {
      // A number longer than a double holds is written in rdf:JSON as the line wrote it (rdf/json.ts).
      whileEmitting(longNumbers(line.text), () => this.emitter.record(ctx, line, result));
      this.tally.records++;
      for (const message of result.warnings ?? []) this.problem({ path: source.path, lineNo: line.lineNo, kind: 'warning', message });
    } else if (result.kind !== 'blank') {
      const message = result.kind === 'malformed' ? result.error : 'the last line is incomplete (still being written?)';
      this.emitter.unreadable(ctx, line, result.kind, message);
      this.problem({ path: source.path, lineNo: line.lineNo, kind: result.kind, message });
    }
  }

  private problem(p: LineProblem): void {
    this.tally.problems.push(p);
    this.options.onProblem?.(p);
  }

  /** One transcript: opened (or resumed where the last read ended), its complete lines read, copied to the archive. */
  private async transcript(source: TranscriptSource): Promise<void> {
    this.at = { path: source.path, lineNo: 0 };
    const stamp = this.stampOf(source.path);
    const last = this.resume ? this.before(source.path) : undefined;
    const end = last ? this.saved!.ends[source.path] : undefined;
    if (last && !end) throw new WholeReadNeeded(`${source.path}: read before, but not where it ended`);
    const ctx = last && end ? this.emitter.resumeTranscript(source) : await this.open(source, stamp);
    const start = last && end ? last.read! : 0;
    const firstLine = last && end ? last.lines! + 1 : 1;
    const copy = stamp.gone ? undefined : await TranscriptCopy.begin(this.store, stamp, this.before(source.path), this.target.keep, start);
    if (copy) this.copies.push(copy);
    const reading: Reading = { ctx, source, complete: { lines: end?.lines ?? 0, bytes: end?.bytes ?? 0 } };
    const from = { start, firstLine, tap: copy?.tap };
    const lines = stamp.gone ? archivedLines(this.options.storeDir, stamp.archive!, from) : readLines(source.path, from);
    for await (const line of lines) {
      if (!line.terminated) {
        reading.tail = line;
        break;
      }
      this.line(ctx, source, line);
      // As one read of the whole file counts it, so that a carried-on read says the same.
      reading.complete = { lines: line.lineNo, bytes: line.offset + line.byteLength + 1 };
      await this.flush(false);
    }
    if (copy) {
      const copied = this.copied(copy, stamp, reading, firstLine);
      // Awaited at the commit; until then a failure is not left unhandled.
      copied.catch(() => undefined);
      this.copying.push(copied);
    }
    this.readings.push(reading);
    this.tally.files++;
    this.options.onFile?.();
  }

  /** A transcript read from its start: what its dialect says before its lines (a side file gone is read from the archive). */
  private async open(source: TranscriptSource, stamp: SourceStamp): Promise<TranscriptContext> {
    // A side file the dialect cannot read is reported, never counted as a line of the transcript.
    let opened = source;
    if (source.metaPath && this.stampOf(source.metaPath).gone) {
      const meta = await restoreSideFile(this.options.storeDir, source.metaPath, this.stampOf(source.metaPath).archive!);
      this.restored.push(meta);
      opened = { ...source, metaPath: meta.path };
    }
    const opening = await this.target.session.dialect.openTranscript(
      opened,
      (p) => this.options.onProblem?.({ ...p, path: p.path === opened.metaPath ? source.metaPath! : p.path, kind: 'malformed' }),
      // --redact-secrets: the side file as the store is to hold it, as each line is.
      this.options.content?.redactSecrets ? redactLine : undefined,
    );
    return this.emitter.beginTranscript(source, opening, { archivedOnly: !!stamp.gone });
  }

  /** The archive copy of a transcript done: how far the spine holds the file, to the start of a last line still being written, else to its end. */
  private async copied(copy: TranscriptCopy, stamp: SourceStamp, reading: Reading, firstLine: number): Promise<void> {
    const done = await copy.finish();
    const complete = reading.tail ? reading.tail.offset : done.size;
    const lines = reading.tail ? reading.tail.lineNo - 1 : Math.max(reading.complete.lines, firstLine - 1);
    this.read.set(reading.source.path, readStamp(stamp, complete, lines, done));
    if (copy.kept) reading.kept = copy.kept;
    this.tally.archived += done.archived;
  }

  /** Each transcript's last line still being written, and its end, into the derived part. */
  private tails(): void {
    this.emitter.beginTails();
    this.toSpine = false;
    for (const reading of this.readings) {
      let end = reading.complete;
      if (reading.tail) {
        this.line(reading.ctx, reading.source, reading.tail);
        end = { lines: reading.tail.lineNo, bytes: reading.tail.offset + reading.tail.byteLength };
      }
      this.emitter.endTranscript(reading.ctx, end);
      this.tally.bytes += end.bytes - (this.resume ? (this.saved!.ends[reading.source.path]?.bytes ?? 0) : 0);
    }
  }

  /**
   * Who wrote this version of the graph, in its derived part (rewritten at every read): the
   * session attributed to the soul, the soul with the machine and user it wrote from. Not handed
   * to `onTriple`: it is not what the session says.
   */
  private attribution(): void {
    const by = this.options.writtenBy;
    if (!by) return;
    const graph = iri(this.target.graph);
    const soul = this.options.soul;
    const agent = instanceIri(soul, 'Soul', soul);
    const triples: Triple[] = [
      { s: sessionNode(soul, this.target.sessionId), p: prov.wasAttributedTo, o: agent },
      { s: agent, p: a, o: weave.Soul },
      { s: agent, p: dcterms.identifier, o: str(soul) },
      { s: agent, p: weave.hostName, o: str(by.host) },
      { s: agent, p: weave.osUser, o: str(by.user) },
    ];
    for (const t of triples) this.buffer += nquad(t, graph);
    this.derivedQuads += triples.length;
  }

  /** Side files (a sub-agent's .meta.json, a workflow's journal) are kept whole. */
  private async sideFiles(): Promise<void> {
    // The transcripts' own stamps are set as their copies end, which may be later.
    const transcripts = new Set(this.readings.map((r) => r.source.path));
    for (const stamp of this.target.stamps) {
      if (stamp.gone || transcripts.has(stamp.path)) continue;
      const done = await archiveSideFile(this.store, stamp, this.before(stamp.path), this.target.keep);
      this.read.set(stamp.path, done.stamp);
      this.tally.archived += done.archived;
    }
  }

  /** The graph's parts in place and its entry recorded, with what changed for a loaded copy of a graph carried on. */
  private async commit(): Promise<Omit<SessionRead, 'counts'>> {
    const { target, resume } = this;
    for (const copied of this.copying) await copied;
    const sources = target.stamps.map((s) => this.read.get(s.path) ?? s);
    const left = target.keep ? leftFiles(target.previous, target.stamps) : [];
    const found = target.keep ? await stored(this.store.writeFound(target.graph, foundToJson(target.session))) : undefined;
    // Read before the commit: once the manifest no longer names it, the old derived part goes.
    const small = !!resume?.derived && resume.derived.bytes <= DELTA_LIMIT && this.derivedLength <= DELTA_LIMIT;
    const oldDerived = small ? await readFile(join(this.options.storeDir, resume!.derived!.file)) : undefined;
    const entry = await stored(
      this.file.commit({
        spineQuads: this.spineQuads,
        derivedQuads: this.derivedQuads,
        sources,
        sessionId: target.sessionId,
        builtWith: target.builtWith,
        ...(found ? { found } : {}),
        ...(left.length ? { left } : {}),
      }),
    );
    const delta =
      resume && oldDerived
        ? deltaOf(resume, entry, oldDerived.subarray(0, resume.derived!.bytes).toString('utf8'), this.derivedText.join(''))
        : undefined;
    const kept = this.readings.flatMap((r) => (r.kept ? [r.kept] : []));
    return { entry, carriedOn: !!resume, kept, ...(delta ? { delta } : {}) };
  }
}

/**
 * The files the session was read from before that are no longer its, with what the archive holds
 * of them (their archive, the last version): kept, as the archive only grows.
 */
function leftFiles(previous: GraphEntry | undefined, now: SourceStamp[]): LeftFile[] {
  const left = [...(previous?.left ?? [])];
  for (const s of previous?.sources ?? []) {
    if (now.some((n) => n.path === s.path)) continue;
    const versions = [...(s.versions ?? []), ...(s.archive && s.archive.raw > 0 ? [{ ...s.archive, lines: s.lines ?? 0 }] : [])];
    if (versions.length) left.push({ path: s.path, versions });
  }
  return left;
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
