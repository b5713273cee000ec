import type { SourceLine } from '../acquire/lines.ts';
import type {
  Dialect,
  FactObserver,
  RecordObserver,
  SessionSource,
  TranscriptContext,
  TranscriptOpening,
  TranscriptSource,
} from '../dialect/dialect.ts';
import { transcriptsOf } from '../dialect/dialect.ts';
import { instanceIri, related } from '../rdf/iri.ts';
import { bool, int, str, type Term, type Triple } from '../rdf/terms.ts';
import { a, weave } from '../rdf/vocab.ts';
import { DEFAULT_POLICY, emitContent, WHOLE_LINE, type ContentKind, type ContentPolicy } from './content.ts';
import type { Reference, Resolve, SessionCounts } from './contract.ts';
import { TranscriptDefaults, type SavedDefaults } from './defaults.ts';

/** Where a record sits: its file and line. The session's files in order, then lines, is the reading order. */
type Position = [path: string, line: number];

/**
 * A read carried on after lines were appended met a record that the whole read would have taken
 * otherwise (an id first seen in a file read later than this one): the session is read whole.
 */
export class WholeReadNeeded extends Error {}

/**
 * The emitter's state after the lines read so far (see `save`): this head, then one entry per id,
 * link and observer field, each a line of JSON of its own. A long session's state is more text
 * than one string holds; a line is never more than one record's worth.
 */
interface StateHead {
  version: 4;
  transcripts: string[];
  counts: SessionCounts;
  described: Term[];
  /** Per transcript node, what it states once (see TranscriptDefaults). */
  defaults: [Term, SavedDefaults][];
  observers: number;
}

/**
 * An entry after the head. An observer's state is given whole (`key` null), or, when it is an
 * object, field by field, an array field as its length and then one entry per item.
 */
type StateEntry =
  | ['event', string, Term, Position]
  | ['toolUse', string, Term, Position]
  | ['reference', Reference]
  | ['replay', string, Position[]]
  | ['observer', number, string | null, unknown]
  | ['observerItem', number, string, unknown];

/**
 * Assembles one session's graph from its files, whatever its dialect: describes each transcript,
 * streams each record's triples (the dialect writes them) to `sink`, keeps the first copy of a
 * replayed record, hands each record to the dialect's observers and its facts to the model, and
 * resolves references by id across all of the session's files once they are read.
 *
 * A read can carry on: `save` gives the state after the lines read so far, `load` takes it back in
 * a fresh emitter, and lines appended since are read as if they had followed in one read. Where a
 * first-seen-wins choice (an event's uuid, a tool use's id, a replay's number) would fall
 * otherwise than in one read, `record` throws `WholeReadNeeded`.
 */
export class SessionEmitter {
  readonly counts: SessionCounts = { records: 0, malformed: 0, pending: 0, replayed: 0, triples: 0 };
  private readonly events = new Map<string, Term>();
  private readonly toolUses = new Map<string, Term>();
  private readonly references: Reference[] = [];
  /** uuid → where each replayed copy sits, in the order they were numbered. */
  private readonly replays = new Map<string, Position[]>();
  private readonly described = new Set<Term>();
  private readonly eventAt = new Map<string, Position>();
  private readonly toolUseAt = new Map<string, Position>();
  /** Carrying on a saved read: records may come before others in reading order. */
  private continuing = false;
  /** Per transcript node: what it states once for its records (saved with the state, so a read carried on states the same). */
  private readonly defaults = new Map<Term, TranscriptDefaults>();
  private readonly dialect: Dialect;
  private readonly recordObservers: RecordObserver[];
  private readonly transcripts: TranscriptSource[];
  readonly mainTranscript: Term;

  constructor(
    private readonly soul: string,
    readonly session: SessionSource,
    private readonly sink: (triple: Triple) => void,
    private readonly factObservers: FactObserver[] = [],
    private readonly content: ContentPolicy = DEFAULT_POLICY,
  ) {
    this.mainTranscript = instanceIri(soul, 'Transcript', session.sessionId);
    this.dialect = session.dialect;
    this.recordObservers = this.dialect.observers(this.content);
    this.transcripts = transcriptsOf(session);
  }

  /** A text that is no record's field (a side file's, a malformed line's), stored under the content policy as a record's texts are. */
  private storeText(node: Term, property: Term, value: unknown, kind: ContentKind, pointer: string): void {
    const texts: Triple[] = [];
    emitContent(texts, this.content, node, property, value, { kind, pointer, conventional: true });
    for (const triple of texts) this.emit(triple.s, triple.p, triple.o);
  }

  private emit(s: Term, p: Term, o: Term): void {
    this.counts.triples++;
    this.sink({ s, p, o });
  }

  /**
   * A transcript file begins: its node, with what its dialect says about it (`opening`). A file
   * that is gone from its folder, read from the archive, is marked `archivedOnly`.
   */
  beginTranscript(
    source: TranscriptSource,
    opening: TranscriptOpening = { about: [], stream: {} },
    { archivedOnly = false } = {},
  ): TranscriptContext {
    const { sessionId } = this.session;
    const isMain = source === this.session.main;
    const streamKey = isMain ? sessionId : `agent-${source.agentId ?? source.path}`;
    const node = isMain ? this.mainTranscript : instanceIri(this.soul, 'Transcript', sessionId, streamKey);
    const t = this.emit.bind(this);
    // Superclasses are stated too (no inference in the store): `?t a weave:Transcript` must work.
    t(node, a, weave.Transcript);
    t(node, a, this.dialect.transcriptClass);
    t(node, weave.sessionId, str(sessionId));
    t(node, weave.sessionSlug, str(sessionId));
    t(node, weave.sourcePath, str(source.path));
    t(node, weave.transcriptLayout, str(source.layout));
    if (!isMain) {
      t(node, weave.parentTranscript, this.mainTranscript);
      if (!this.session.main) this.describeAbsentMain();
      if (source.agentId) t(node, weave.agentId, str(source.agentId));
    }
    for (const [p, o] of opening.about) t(node, p, o);
    for (const { property, value, kind, pointer } of opening.sideTexts ?? []) this.storeText(node, property, value, kind, pointer);
    if (archivedOnly) t(node, weave.archivedOnly, bool(true));
    this.defaults.set(node, new TranscriptDefaults(node));
    const ctx: TranscriptContext = { source, node, streamKey, index: this.transcripts.indexOf(source) };
    for (const observer of this.factObservers) observer.transcript?.(ctx, opening.stream);
    return ctx;
  }

  /**
   * A session whose main file is absent (sub-agent files only): the transcript their
   * weave:parentTranscript names is still the session's, so it is described, once, as one: its
   * classes and session id, and weave:fileAbsent instead of a file's path, layout and size.
   */
  private describeAbsentMain(): void {
    const node = this.mainTranscript;
    if (this.described.has(node)) return;
    this.described.add(node);
    this.emit(node, a, weave.Transcript);
    this.emit(node, a, this.dialect.transcriptClass);
    this.emit(node, weave.sessionId, str(this.session.sessionId));
    this.emit(node, weave.sessionSlug, str(this.session.sessionId));
    this.emit(node, weave.fileAbsent, bool(true));
  }

  /** A transcript read before, carried on: its context, without describing it again. */
  resumeTranscript(source: TranscriptSource): TranscriptContext {
    const isMain = source === this.session.main;
    const streamKey = isMain ? this.session.sessionId : `agent-${source.agentId ?? source.path}`;
    const node = isMain ? this.mainTranscript : instanceIri(this.soul, 'Transcript', this.session.sessionId, streamKey);
    // Its defaults come with the saved state; a transcript whose records stated none has none there.
    if (!this.defaults.has(node)) this.defaults.set(node, new TranscriptDefaults(node));
    return { source, node, streamKey, index: this.transcripts.indexOf(source) };
  }

  /** Whether `a` comes after `b` in reading order (the session's files in order, then lines). */
  private after(a: Position, b: Position): boolean {
    const fileA = this.transcripts.findIndex((t) => t.path === a[0]);
    const fileB = this.transcripts.findIndex((t) => t.path === b[0]);
    return fileA > fileB || (fileA === fileB && a[1] > b[1]);
  }

  /** One record of the transcript `ctx` (a `kind: 'record'` line of the session's dialect). */
  record(ctx: TranscriptContext, line: SourceLine, record: object): void {
    const at: Position = [ctx.source.path, line.lineNo];
    const uuid = this.dialect.recordId(record);
    if (this.continuing && uuid) {
      const first = this.eventAt.get(uuid);
      if (first && this.after(first, at))
        throw new WholeReadNeeded(`${ctx.source.path}:${line.lineNo}: a record read before one later in the session`);
      if (first && (this.replays.get(uuid) ?? []).some((r) => this.after(r, at)))
        throw new WholeReadNeeded(`${ctx.source.path}:${line.lineNo}: a replay read before one later in the session`);
    }
    this.counts.records++;
    if (uuid && this.events.has(uuid)) {
      // A replay (resume, compaction, a copied record): the first copy stands, this one is noted.
      this.counts.replayed++;
      const copies = this.replays.get(uuid) ?? [];
      copies.push(at);
      this.replays.set(uuid, copies);
      const n = copies.length;
      const node = related(this.events.get(uuid)!, 'ReplayedRecord', n);
      const t = this.emit.bind(this);
      t(node, a, weave.ReplayedRecord);
      t(node, weave.replayOf, this.events.get(uuid)!);
      t(node, weave.inTranscript, ctx.node);
      t(node, weave.sourceLine, int(line.lineNo));
      t(node, weave.sourceOffset, int(line.offset));
      return;
    }
    const out = this.dialect.emitRecord(record, {
      soul: this.soul,
      transcript: ctx.node,
      streamKey: ctx.streamKey,
      lineNo: line.lineNo,
      offset: line.offset,
      session: this.session.sessionId,
      content: this.content,
      described: this.described,
      defaults: this.defaults.get(ctx.node),
    });
    const { event } = out;
    if (this.continuing)
      for (const [id] of out.toolUses) {
        const first = this.toolUseAt.get(id);
        if (first && this.after(first, at))
          throw new WholeReadNeeded(`${ctx.source.path}:${line.lineNo}: a tool use read before one later in the session`);
      }
    if (uuid) {
      this.events.set(uuid, event);
      this.eventAt.set(uuid, at);
    }
    for (const triple of out.triples) this.emit(triple.s, triple.p, triple.o);
    for (const [id, block] of out.toolUses)
      if (!this.toolUses.has(id)) {
        this.toolUses.set(id, block);
        this.toolUseAt.set(id, at);
      }
    // A link whose target was read already is written now: the first copy of an id stays the
    // one it names. Only links to what comes later wait for the whole session.
    for (const ref of out.references) {
      const target = (ref.space === 'event' ? this.events : this.toolUses).get(ref.id);
      if (target) this.emit(ref.subject, ref.predicate, target);
      else this.references.push(ref);
    }
    for (const observer of this.recordObservers) observer.record(ctx, line, record, event);
    if (!this.factObservers.length) return;
    const facts = this.dialect.facts(record, {
      source: ctx.source,
      stream: ctx.index,
      line: line.lineNo,
      event,
      session: this.session.sessionId,
    });
    for (const observer of this.factObservers) observer.record(ctx, facts);
  }

  /** A line that is not a record: kept, with the parser's message, so nothing is silently lost. */
  unreadable(ctx: TranscriptContext, line: SourceLine, kind: 'malformed' | 'pending', error?: string): void {
    const node = instanceIri(this.soul, kind === 'malformed' ? 'MalformedLine' : 'PendingLine', ctx.streamKey, `L${line.lineNo}`);
    const t = this.emit.bind(this);
    this.counts[kind]++;
    t(node, a, kind === 'malformed' ? weave.MalformedLine : weave.PendingLine);
    t(node, weave.inTranscript, ctx.node);
    t(node, weave.sourceLine, int(line.lineNo));
    t(node, weave.sourceOffset, int(line.offset));
    t(node, weave.byteLength, int(line.byteLength));
    if (error) t(node, weave.parseError, str(error));
    // A malformed line's text is a text like any other, whatever it held: under the policy's `text`.
    if (kind === 'malformed') this.storeText(node, weave.rawText, line.text, 'text', WHOLE_LINE);
  }

  endTranscript(ctx: TranscriptContext, stats: { lines: number; bytes: number }): void {
    this.emit(ctx.node, weave.lineCount, int(stats.lines));
    this.emit(ctx.node, weave.byteLength, int(stats.bytes));
  }

  /**
   * The complete lines are read; what comes now (a last line still being written, the end of each
   * file, what `finish` derives) is read again at every read, so it is read last, on the state the
   * complete lines left, whichever read this is.
   */
  beginTails(): void {
    this.continuing = false;
  }

  /**
   * The state after the lines read so far, as lines of JSON (each ending in a newline): the ids
   * seen and where, the links waiting to be resolved, the counts, and each observer's own state.
   * Undefined when an observer cannot save. Take the lines before reading more: they are made as
   * they are taken.
   */
  save(): Iterable<string> | undefined {
    const observers = [...this.recordObservers, ...this.factObservers];
    if (!observers.every((o) => o.save)) return undefined;
    return this.stateLines(observers);
  }

  private *stateLines(observers: (RecordObserver | FactObserver)[]): Generator<string> {
    const line = (value: StateHead | StateEntry) => `${JSON.stringify(value)}\n`;
    yield line({
      version: 4,
      transcripts: this.transcripts.map((t) => t.path),
      counts: { ...this.counts },
      described: [...this.described],
      defaults: [...this.defaults].map(([node, d]) => [node, d.save()]),
      observers: observers.length,
    });
    for (const [uuid, term] of this.events) yield line(['event', uuid, term, this.eventAt.get(uuid)!]);
    for (const [id, term] of this.toolUses) yield line(['toolUse', id, term, this.toolUseAt.get(id)!]);
    for (const ref of this.references) yield line(['reference', ref]);
    for (const [uuid, copies] of this.replays) yield line(['replay', uuid, copies]);
    for (const [i, o] of observers.entries()) {
      const saved = o.save!();
      if (!saved || typeof saved !== 'object' || Array.isArray(saved)) {
        yield line(['observer', i, null, saved]);
        continue;
      }
      yield line(['observer', i, null, {}]);
      for (const [key, value] of Object.entries(saved)) {
        if (!Array.isArray(value)) {
          yield line(['observer', i, key, value]);
          continue;
        }
        yield line(['observer', i, key, []]);
        for (const item of value) yield line(['observerItem', i, key, item]);
      }
    }
  }

  /**
   * Carries on from a saved read (in a fresh emitter for the same session, whose files may since
   * have grown, or gained new files): the lines `save` gave, each parsed. False when the state
   * cannot be carried on here.
   */
  load(entries: Iterable<unknown>): boolean {
    const all = entries[Symbol.iterator]();
    const head = all.next().value as StateHead | undefined;
    const observers = [...this.recordObservers, ...this.factObservers];
    if (head?.version !== 4 || head.observers !== observers.length || !observers.every((o) => o.load)) return false;
    const index = head.transcripts.map((path) => this.transcripts.findIndex((t) => t.path === path));
    if (index.some((i) => i === -1)) return false;
    // The main file came since: the stand-in described for it (describeAbsentMain) is to go.
    if (this.session.main && !head.transcripts.includes(this.session.main.path)) return false;
    Object.assign(this.counts, head.counts);
    for (const node of head.described) this.described.add(node);
    for (const [node, saved] of head.defaults) this.defaults.set(node, TranscriptDefaults.load(node, saved));
    const saved: unknown[] = observers.map(() => undefined);
    for (let step = all.next(); !step.done; step = all.next()) {
      const entry = step.value as StateEntry;
      switch (entry[0]) {
        case 'event':
          this.events.set(entry[1], entry[2]);
          this.eventAt.set(entry[1], entry[3]);
          break;
        case 'toolUse':
          this.toolUses.set(entry[1], entry[2]);
          this.toolUseAt.set(entry[1], entry[3]);
          break;
        case 'reference':
          this.references.push(entry[1]);
          break;
        case 'replay':
          this.replays.set(entry[1], entry[2]);
          break;
        case 'observer':
          if (entry[2] === null) saved[entry[1]] = entry[3];
          else ((saved[entry[1]] ??= {}) as Record<string, unknown>)[entry[2]] = entry[3];
          break;
        case 'observerItem':
          ((saved[entry[1]] as Record<string, unknown[]>)[entry[2]] as unknown[]).push(entry[3]);
          break;
      }
    }
    for (const [i, o] of observers.entries()) o.load!(saved[i], (at) => index[at]);
    this.continuing = true;
    return true;
  }

  /**
   * Resolves what could only be resolved with the whole session in hand. It pauses after each
   * triple it emits, so that the caller can write out what the sink holds: a long session's
   * derived part is more text than one string can hold.
   */
  *finish(): Generator<void, SessionCounts> {
    // What only reading and saving needed goes before the model takes its share of memory.
    this.eventAt.clear();
    this.toolUseAt.clear();
    this.described.clear();
    this.replays.clear();
    const resolve: Resolve = (space, id) => (space === 'event' ? this.events : this.toolUses).get(id);
    for (const ref of this.references) {
      const target = resolve(ref.space, ref.id);
      if (target) this.emit(ref.subject, ref.predicate, target);
      else if (ref.literal) this.emit(ref.subject, ref.literal, str(ref.id));
      yield;
    }
    for (const observer of this.recordObservers)
      for (const t of observer.finish?.(resolve) ?? []) {
        this.emit(t.s, t.p, t.o);
        yield;
      }
    // The model reads its own facts: the ids go before it takes its share (a long session's
    // map of event ids alone is a tenth of the heap then).
    this.events.clear();
    this.toolUses.clear();
    this.references.length = 0;
    for (const observer of this.factObservers)
      for (const t of observer.finish?.() ?? []) {
        this.emit(t.s, t.p, t.o);
        yield;
      }
    return this.counts;
  }
}
