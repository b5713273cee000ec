import type { IdRules } from '../dialect/dialect.ts';
import type { Term } from '../rdf/terms.ts';
import type { Derivation, Evidence } from './evidence.ts';
import type { BatchJournal, RecordFact } from './facts.ts';
import type { StreamInfo } from './streams.ts';

/** What every part of the model's assembly reads: one session's streams and record facts. */
export interface ModelContext {
  d: Derivation;
  streams: StreamInfo[];
  /** In reading order: stream by stream, each in line order (line order is authoritative). */
  facts: RecordFact[];
  /** uuid → index in `facts` (the first copy; replays never reach the model). */
  byUuid: Map<string, number>;
  /** What the session's batch journals say (Claude Code: workflow runs' `journal.jsonl`). */
  batches: BatchJournal[];
  /** Summariser stream → the summary records whose text holds its summary verbatim (compared while reading). */
  summaryMatches: Map<number, number[]>;
  /** The session's dialect's rules for which ids name one thing in every session. */
  ids: IdRules;
}

/** Where a step hangs in the tree, and how sure that is. */
export interface Placement {
  node: Term;
  evidence: Evidence;
}
