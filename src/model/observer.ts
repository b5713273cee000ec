import type { SourceLine } from '../acquire/lines.ts';
import type { SessionSource, TranscriptSource } from '../acquire/sources.ts';
import { idPath } from '../dialect/claude-code/ids.ts';
import type { AssistantRecord, JsonObject, ReadRecord, UserRecord } from '../dialect/claude-code/records.ts';
import type { RecordObserver, TranscriptContext } from '../emit/session.ts';
import type { Term, Triple } from '../rdf/terms.ts';
import { assemble } from './assemble.ts';
import { messageText, summaryBody, summaryTextMatches } from './compactions.ts';
import { Derivation } from './evidence.ts';
import { recordFact, type RecordFact } from './facts.ts';
import { streamsOf, type StreamInfo } from './streams.ts';

/**
 * The conversation model as a record observer: it keeps compact facts while the session's
 * files stream through the emitter, and derives the model once all of them are read.
 */
class ConversationObserver implements RecordObserver {
  private readonly facts: RecordFact[] = [];
  private readonly byUuid = new Map<string, number>();
  private readonly streams: StreamInfo[];
  private readonly streamOf = new Map<TranscriptSource, number>();
  /**
   * The only texts the model holds, until finish compares them: each compaction summary, and each
   * summariser's final summary body. Nothing of them reaches the graph.
   */
  private readonly summaries = new Map<number, string>();
  private readonly summariserBodies = new Map<number, string>();

  constructor(private readonly session: SessionSource, private readonly soul: string) {
    this.streams = streamsOf(soul, session);
    for (const s of this.streams) this.streamOf.set(s.source, s.index);
  }

  transcript(transcript: TranscriptContext, meta?: JsonObject): void {
    const stream = this.streamOf.get(transcript.source);
    if (stream === undefined) return;
    this.streams[stream].transcript = transcript.node;
    // The sidecar's tool use id: the call that started this child, when the runtime wrote one.
    if (typeof meta?.toolUseId === 'string' && meta.toolUseId) this.streams[stream].metaToolUseId = meta.toolUseId;
  }

  record(transcript: TranscriptContext, line: SourceLine, read: ReadRecord, event: Term): void {
    const stream = this.streamOf.get(transcript.source);
    if (stream === undefined) return;
    const fact = recordFact(read, stream, line.lineNo, event);
    if (read.record.uuid) fact.blockPath = idPath(read.record.uuid, this.session.sessionId);
    if (fact.uuid !== undefined && !this.byUuid.has(fact.uuid)) this.byUuid.set(fact.uuid, this.facts.length);
    const { record } = read;
    if (fact.step === 'epoch.summary') this.summaries.set(this.facts.length, messageText((record as UserRecord).message?.content));
    if (this.streams[stream].summariser && record.type === 'assistant') {
      const body = summaryBody(messageText((record as AssistantRecord).message?.content));
      if (body) this.summariserBodies.set(stream, body);
    }
    this.facts.push(fact);
  }

  finish(): Iterable<Triple> {
    return assemble({
      d: new Derivation(this.soul, this.session.sessionId),
      streams: this.streams,
      facts: this.facts,
      byUuid: this.byUuid,
      journals: this.session.journals,
      summaryMatches: summaryTextMatches(this.summariserBodies, this.summaries),
    });
  }
}

/** The observer factory `ingest()` uses by default: one conversation model per session. */
export function conversationModel(session: SessionSource, soul: string): RecordObserver[] {
  return [new ConversationObserver(session, soul)];
}
