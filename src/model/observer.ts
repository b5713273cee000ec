import type { FactObserver, SessionSource, TranscriptContext } from '../dialect/dialect.ts';
import type { RecordDerivation } from '../derive/derivation.ts';
import type { Term, Triple } from '../rdf/terms.ts';
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
  /**
   * Every record's fact as handed over. The only texts the model holds, until finish compares
   * them, ride along: each compaction summary, and each summariser's summary body. Nothing of them
   * reaches the graph.
   */
  private readonly records: RecordFacts[] = [];
  private readonly streams: StreamInfo[];

  constructor(
    private readonly session: SessionSource,
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

  record(transcript: TranscriptContext, facts: RecordFacts): void {
    if (this.streams[transcript.index]) this.records.push(facts);
  }

  finish(): Iterable<Triple> {
    // In reading order, stream by stream and line by line, however the lines came (appended ones
    // are read after the rest of the session).
    const records = [...this.records].sort((x, y) => x.fact.stream - y.fact.stream || x.fact.line - y.fact.line);
    const facts: RecordFact[] = [];
    const byUuid = new Map<string, number>();
    const summaries = new Map<number, string>();
    const summariserBodies = new Map<number, string>();
    for (const { fact, summaryText, summaryBody } of records) {
      if (fact.uuid !== undefined && !byUuid.has(fact.uuid)) byUuid.set(fact.uuid, facts.length);
      if (summaryText !== undefined) summaries.set(facts.length, summaryText);
      if (summaryBody !== undefined) summariserBodies.set(fact.stream, summaryBody);
      facts.push(fact);
    }
    return assemble({
      d: new Derivation(this.soul, this.session.sessionId),
      streams: this.streams,
      facts,
      byUuid,
      batches: this.session.batches,
      summaryMatches: summaryTextMatches(summariserBodies, summaries),
      ids: this.session.dialect.ids,
    });
  }

  save(): unknown {
    return { records: this.records, streams: this.streams.map((s) => ({ transcript: s.transcript, metaToolUseId: s.metaToolUseId })) };
  }

  load(state: unknown, stream: (indexAtSave: number) => number): void {
    const saved = state as { records: RecordFacts[]; streams: { transcript?: Term; metaToolUseId?: string }[] };
    for (const r of saved.records) this.records.push({ ...r, fact: { ...r.fact, stream: stream(r.fact.stream) } });
    saved.streams.forEach((s, i) => {
      const now = this.streams[stream(i)];
      if (s.transcript) now.transcript = s.transcript;
      if (s.metaToolUseId) now.metaToolUseId = s.metaToolUseId;
    });
  }
}

/** The observer factory `ingest()` uses by default: one conversation model per session. */
export function conversationModel(session: SessionSource, soul: string): FactObserver[] {
  return [new ConversationObserver(session, soul)];
}

/** The conversation model as a derivation: it reads the records as they are read and writes into the session graph's derived part. */
export const conversation: RecordDerivation = {
  name: 'conversation',
  // 2: synthetic messages are not llm.calls; every Agent/Task/Skill/Workflow use is an agent.call; a shared tool node gets no placeholder.
  version: '2',
  description: 'The conversation model: talks, runs, llm.calls, tools, streams, epochs and the evidence behind each link.',
  reads: 'records',
  observers: conversationModel,
};
