import type { FactObserver, FoundSession, TranscriptContext } from '../dialect/dialect.ts';
import type { Triple } from '../rdf/terms.ts';
import { assemble } from './assemble.ts';
import { summaryTextMatches } from './compactions.ts';
import { Derivation } from './evidence.ts';
import type { RecordFact, RecordFacts, StreamFacts } from './facts.ts';
import { streamsOf, type StreamInfo } from './streams.ts';

/**
 * The conversation model as an observer of facts: it keeps what the session's dialect hands it
 * while the files stream through the emitter, and derives the model once all of them are read.
 */
class ConversationObserver implements FactObserver {
  private readonly facts: RecordFact[] = [];
  private readonly byUuid = new Map<string, number>();
  private readonly streams: StreamInfo[];
  /**
   * The only texts the model holds, until finish compares them: each compaction summary, and each
   * summariser's final summary body. Nothing of them reaches the graph.
   */
  private readonly summaries = new Map<number, string>();
  private readonly summariserBodies = new Map<number, string>();

  constructor(
    private readonly session: FoundSession,
    private readonly soul: string,
  ) {
    this.streams = streamsOf(soul, session);
  }

  transcript(transcript: TranscriptContext, stream: StreamFacts): void {
    const s = this.streams[transcript.index];
    if (!s) return;
    s.transcript = transcript.node;
    if (stream.launchedBy) s.metaToolUseId = stream.launchedBy;
  }

  record(transcript: TranscriptContext, { fact, summaryText, summaryBody }: RecordFacts): void {
    if (!this.streams[transcript.index]) return;
    if (fact.uuid !== undefined && !this.byUuid.has(fact.uuid)) this.byUuid.set(fact.uuid, this.facts.length);
    if (summaryText !== undefined) this.summaries.set(this.facts.length, summaryText);
    if (summaryBody !== undefined) this.summariserBodies.set(fact.stream, summaryBody);
    this.facts.push(fact);
  }

  finish(): Iterable<Triple> {
    return assemble({
      d: new Derivation(this.soul, this.session.sessionId),
      streams: this.streams,
      facts: this.facts,
      byUuid: this.byUuid,
      batches: this.session.batches,
      summaryMatches: summaryTextMatches(this.summariserBodies, this.summaries),
    });
  }
}

/** The observer factory `ingest()` uses by default: one conversation model per session. */
export function conversationModel(session: FoundSession, soul: string): FactObserver[] {
  return [new ConversationObserver(session, soul)];
}
