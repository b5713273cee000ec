import type { SourceLine } from '../acquire/lines.ts';
import type { SessionSource, TranscriptSource } from '../acquire/sources.ts';
import type { JsonObject, ReadRecord } from '../dialect/claude-code/records.ts';
import { idPath } from '../dialect/claude-code/ids.ts';
import { instanceIri } from '../rdf/iri.ts';
import { jsonLiteral } from '../rdf/json.ts';
import { emitSpine, eventIri, type Reference } from './spine.ts';
import { DEFAULT_POLICY, type ContentPolicy } from './content.ts';
import { dialectObservers } from './records/observers.ts';
import { int, str, type Term, type Triple } from '../rdf/terms.ts';
import { a, weave } from '../rdf/vocab.ts';

/** One transcript file as it is being read. */
export interface TranscriptContext {
  source: TranscriptSource;
  node: Term;
  /** Unique within the session: the session id for the main file, else `agent-<id>`. */
  streamKey: string;
}

export interface SessionCounts {
  records: number;
  malformed: number;
  pending: number;
  replayed: number;
  triples: number;
}

/** Something that wants to see every record of a session as it streams past (the model, say). */
export interface RecordObserver {
  /** A transcript file begins: its node, and its `.meta.json` sidecar when it has one. */
  transcript?(transcript: TranscriptContext, meta?: JsonObject): void;
  record(transcript: TranscriptContext, line: SourceLine, read: ReadRecord, event: Term): void;
  /** Called once all files are read; returns derived triples. */
  finish?(resolve: (space: Reference['space'], id: string) => Term | undefined): Iterable<Triple>;
}

/**
 * Assembles one session's graph from its files: streams the spine of each record to `sink`,
 * keeps the first copy of a replayed uuid, and resolves references by id across all of the
 * session's files once they are read.
 */
export class SessionEmitter {
  readonly counts: SessionCounts = { records: 0, malformed: 0, pending: 0, replayed: 0, triples: 0 };
  private readonly events = new Map<string, Term>();
  private readonly toolUses = new Map<string, Term>();
  private readonly references: Reference[] = [];
  private readonly replays = new Map<string, number>();
  private readonly described = new Set<Term>();
  private readonly observers: RecordObserver[];
  readonly mainTranscript: Term;

  constructor(
    private readonly soul: string,
    readonly session: SessionSource,
    private readonly sink: (triple: Triple) => void,
    observers: RecordObserver[] = [],
    private readonly content: ContentPolicy = DEFAULT_POLICY,
  ) {
    this.mainTranscript = instanceIri(soul, 'Transcript', session.sessionId);
    this.observers = [...dialectObservers(), ...observers];
  }

  private emit(s: Term, p: Term, o: Term): void {
    this.counts.triples++;
    this.sink({ s, p, o });
  }

  beginTranscript(source: TranscriptSource, meta?: JsonObject): TranscriptContext {
    const { sessionId } = this.session;
    const isMain = source === this.session.main;
    const streamKey = isMain ? sessionId : `agent-${source.agentId ?? source.path}`;
    const node = isMain ? this.mainTranscript : instanceIri(this.soul, 'Transcript', sessionId, streamKey);
    const t = this.emit.bind(this);
    // Superclasses are stated too (no inference in the store): `?t a weave:Transcript` must work.
    t(node, a, weave.Transcript);
    t(node, a, weave.ClaudeCodeTranscript);
    t(node, weave.sessionId, str(sessionId));
    t(node, weave.sessionSlug, str(sessionId));
    t(node, weave.sourcePath, str(source.path));
    t(node, weave.transcriptLayout, str(source.layout));
    if (!isMain) {
      t(node, weave.parentTranscript, this.mainTranscript);
      if (source.agentId) t(node, weave.agentId, str(source.agentId));
      if (source.workflowRunId) t(node, weave.workflowRunId, str(source.workflowRunId));
    }
    if (meta) {
      if (typeof meta.agentType === 'string') t(node, weave.agentType, str(meta.agentType));
      if (typeof meta.description === 'string') t(node, weave.agentDescription, str(meta.description));
      if (typeof meta.toolUseId === 'string') t(node, weave.launchingToolUseId, str(meta.toolUseId));
      t(node, weave.agentMetaJson, jsonLiteral(meta));
    }
    const ctx = { source, node, streamKey };
    for (const observer of this.observers) observer.transcript?.(ctx, meta);
    return ctx;
  }

  record(ctx: TranscriptContext, line: SourceLine, read: ReadRecord): void {
    this.counts.records++;
    const uuid = read.record.uuid;
    const event = eventIri(this.soul, read.record, ctx.streamKey, line.lineNo, this.session.sessionId);
    if (uuid && this.events.has(uuid)) {
      // A replay (resume, compaction, a copied record): the first copy stands, this one is noted.
      this.counts.replayed++;
      const n = (this.replays.get(uuid) ?? 0) + 1;
      this.replays.set(uuid, n);
      const node = instanceIri(this.soul, 'ReplayedRecord', ...idPath(uuid, this.session.sessionId), n);
      const t = this.emit.bind(this);
      t(node, a, weave.ReplayedRecord);
      t(node, weave.replayOf, this.events.get(uuid)!);
      t(node, weave.inTranscript, ctx.node);
      t(node, weave.sourceLine, int(line.lineNo));
      t(node, weave.sourceOffset, int(line.offset));
      return;
    }
    if (uuid) this.events.set(uuid, event);
    const out = emitSpine(read, event, {
      soul: this.soul, transcript: ctx.node, lineNo: line.lineNo, offset: line.offset, session: this.session.sessionId, content: this.content,
      described: this.described,
    });
    for (const triple of out.triples) this.emit(triple.s, triple.p, triple.o);
    for (const [id, block] of out.toolUses) if (!this.toolUses.has(id)) this.toolUses.set(id, block);
    this.references.push(...out.references);
    for (const observer of this.observers) observer.record(ctx, line, read, event);
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
    const resolve = (space: Reference['space'], id: string) => (space === 'event' ? this.events : this.toolUses).get(id);
    for (const ref of this.references) {
      const target = resolve(ref.space, ref.id);
      if (target) this.emit(ref.subject, ref.predicate, target);
    }
    for (const observer of this.observers) for (const t of observer.finish?.(resolve) ?? []) this.emit(t.s, t.p, t.o);
    return this.counts;
  }
}
