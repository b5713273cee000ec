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
import { int, str, type Term, type Triple } from '../rdf/terms.ts';
import { a, weave } from '../rdf/vocab.ts';
import { DEFAULT_POLICY, type ContentPolicy } from './content.ts';
import type { Reference, Resolve, SessionCounts } from './contract.ts';

/**
 * Assembles one session's graph from its files, whatever its dialect: describes each transcript,
 * streams each record's triples (the dialect writes them) to `sink`, keeps the first copy of a
 * replayed record, hands each record to the dialect's observers and its facts to the model, and
 * resolves references by id across all of the session's files once they are read.
 */
export class SessionEmitter {
  readonly counts: SessionCounts = { records: 0, malformed: 0, pending: 0, replayed: 0, triples: 0 };
  private readonly events = new Map<string, Term>();
  private readonly toolUses = new Map<string, Term>();
  private readonly references: Reference[] = [];
  private readonly replays = new Map<string, number>();
  private readonly described = new Set<Term>();
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

  private emit(s: Term, p: Term, o: Term): void {
    this.counts.triples++;
    this.sink({ s, p, o });
  }

  /** A transcript file begins: its node, with what its dialect says about it (`opening`). */
  beginTranscript(source: TranscriptSource, opening: TranscriptOpening = { about: [], stream: {} }): TranscriptContext {
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
      if (source.agentId) t(node, weave.agentId, str(source.agentId));
    }
    for (const [p, o] of opening.about) t(node, p, o);
    const ctx: TranscriptContext = { source, node, streamKey, index: this.transcripts.indexOf(source) };
    for (const observer of this.factObservers) observer.transcript?.(ctx, opening.stream);
    return ctx;
  }

  /** One record of the transcript `ctx` (a `kind: 'record'` line of the session's dialect). */
  record(ctx: TranscriptContext, line: SourceLine, record: object): void {
    this.counts.records++;
    const uuid = this.dialect.recordId(record);
    if (uuid && this.events.has(uuid)) {
      // A replay (resume, compaction, a copied record): the first copy stands, this one is noted.
      this.counts.replayed++;
      const n = (this.replays.get(uuid) ?? 0) + 1;
      this.replays.set(uuid, n);
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
    });
    const { event } = out;
    if (uuid) this.events.set(uuid, event);
    for (const triple of out.triples) this.emit(triple.s, triple.p, triple.o);
    for (const [id, block] of out.toolUses) if (!this.toolUses.has(id)) this.toolUses.set(id, block);
    this.references.push(...out.references);
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
    if (kind === 'malformed') t(node, weave.rawText, str(line.text));
  }

  endTranscript(ctx: TranscriptContext, stats: { lines: number; bytes: number }): void {
    this.emit(ctx.node, weave.lineCount, int(stats.lines));
    this.emit(ctx.node, weave.byteLength, int(stats.bytes));
  }

  /** Resolves what could only be resolved with the whole session in hand. */
  finish(): SessionCounts {
    const resolve: Resolve = (space, id) => (space === 'event' ? this.events : this.toolUses).get(id);
    for (const ref of this.references) {
      const target = resolve(ref.space, ref.id);
      if (target) this.emit(ref.subject, ref.predicate, target);
    }
    for (const observer of [...this.recordObservers, ...this.factObservers])
      for (const t of observer.finish?.(resolve) ?? []) this.emit(t.s, t.p, t.o);
    return this.counts;
  }
}
