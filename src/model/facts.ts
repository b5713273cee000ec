import type { Json } from '../rdf/json.ts';
import type { Term } from '../rdf/terms.ts';
import type { Evidence } from './evidence.ts';

/**
 * What the model is handed, in its own words, whatever runtime wrote the transcripts: per record
 * ids, links and a classification, never content; per stream what its side file said; per
 * session what its batch journals say. A dialect turns its records into these
 * (src/dialect/<runtime>/); everything the model derives at the end comes from them.
 */

/** Step kinds a single record can be. Blocks and calls are steps too, but of assistant records. */
export type RecordStep =
  | 'message.external'
  | 'context.injection'
  | 'runtime.notification'
  | 'epoch.boundary'
  | 'epoch.summary'
  | 'error.api'
  | 'control.interrupt'
  | 'control.permission'
  | 'control.command'
  | 'control.notice'
  | 'turn.duration'
  | 'agent.launch_ack';

interface BlockFact {
  order: number;
  kind: 'text' | 'thinking' | 'redacted';
}

interface ToolUseFact {
  id: string;
  order: number;
  /** The tool is one that runs an agent (the dialect says which): an agent.call whether or not a child is joined. */
  agent?: boolean;
}

interface ToolResultFact {
  toolUseId: string;
  order: number;
  isError: boolean;
}

/** The structured details a tool result carries beyond what the model saw (`toolUseResult`). */
export interface ToolOutcome {
  status?: string;
  agentId?: string;
  /** The batch (a workflow run) the call started, as the batch's journal and children name it. */
  runId?: string;
  backgroundTaskId?: string;
  interrupted?: boolean;
  /** The person refused the tool use. */
  denied?: boolean;
  durationMs?: number;
  exitCode?: number;
}

export interface RecordFact {
  /** Index of the stream (file) the record sits in. */
  stream: number;
  line: number;
  event: Term;
  /** The id the spine gave the record's content blocks: its uuid, else `L<line>`. */
  blockKey: string;
  /** The IRI path of the record's blocks, as the spine minted it (a hand-written uuid is scoped by its session); default [blockKey]. */
  blockPath?: string[];
  uuid?: string;
  parent?: string;
  logicalParent?: string;
  promptId?: string;
  /** The record's timestamp in ms; compared only where no id joins (a summariser to its compaction). */
  time?: number;
  /**
   * What the record states started it, in the model's trigger words: typed input (`external`), a
   * runtime notification, or something the model has no word for (`unknown`). Absent when the
   * record states nothing.
   */
  origin?: 'external' | 'notification' | 'unknown';
  step?: RecordStep;
  /** How sure the step kind is: exact where a field states it, inferred from text otherwise. */
  stepEvidence?: Evidence;
  /** In a stream without prompt ids, whether this record opens a run. */
  opensRun?: boolean;
  // assistant records
  messageId?: string;
  /** The API request id (`req_…`), which with the message id names the call across sessions. */
  requestId?: string;
  synthetic?: boolean;
  stopped?: boolean;
  blocks?: BlockFact[];
  toolUses?: ToolUseFact[];
  // tool results
  toolResults?: ToolResultFact[];
  outcome?: ToolOutcome;
  // notifications
  notification?: { taskId?: string; toolUseId?: string };
  /** A permission-mode record's mode. */
  permissionMode?: string;
  /** An agent_progress record: the tool use that runs this child agent. */
  agentProgress?: { agentId: string; toolUseId: string };
}

/**
 * One record as the dialect hands it over: its fact, and the two texts the model only compares
 * (a summariser's summary against the compaction summaries) and never keeps.
 */
export interface RecordFacts {
  fact: RecordFact;
  /** An epoch summary's text. */
  summaryText?: string;
  /** In a summariser stream, the summary body of this response, when it has one. */
  summaryBody?: string;
}

/** What the dialect read about one stream before its records (a side file, say). */
export interface StreamFacts {
  /** The tool use that started this child stream, when the runtime wrote it down. */
  launchedBy?: string;
}

/** What a batch's journal says: which children the batch started, and what each returned. */
export interface BatchJournal {
  /** The batch id, as tool results and the children's sources name it. */
  batch: string;
  started: string[];
  results: Map<string, Json>;
}
