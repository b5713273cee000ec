/**
 * Typed records of the claude-code/1 dialect: what one JSONL line of a Claude Code transcript
 * says, with every field this dialect reads named and typed. Whatever a record holds beyond
 * these stays in `extra`, so a newer Claude Code never loses data on the way into the graph.
 */

import type { Json, JsonObject } from '../../rdf/json.ts';

export type { Json, JsonObject };

/** Fields shared by every conversation record (user, assistant, system, attachment, progress). */
interface Envelope {
  uuid?: string;
  parentUuid?: string | null;
  logicalParentUuid?: string;
  timestamp?: string;
  sessionId?: string;
  agentId?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  userType?: string;
  cwd?: string;
  version?: string;
  gitBranch?: string;
  /** The three-word session nickname (`radiant-floating-music`), not the project slug. */
  slug?: string;
  entrypoint?: string;
  promptId?: string;
  origin?: { kind?: string; server?: string } & JsonObject;
}

interface TextBlock {
  type: 'text';
  text: string;
}
interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}
interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}
export interface ToolUseBlock {
  type: 'tool_use' | 'server_tool_use';
  id: string;
  name: string;
  input: Json;
  /** Who made the call (Claude Code 2.1.17+): `{"type":"direct"}`, or a program run in a server tool, `{"type":"code_execution_…","tool_id":"srvtoolu_…"}`. */
  caller?: Json;
}
export interface ToolResultBlock {
  type: 'tool_result' | 'advisor_tool_result';
  tool_use_id: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
}
export interface ImageBlock {
  type: 'image' | 'document';
  source?: { type?: string; media_type?: string; data?: string; url?: string; text?: string };
}
interface ToolReferenceBlock {
  type: 'tool_reference';
  tool_name: string;
}
/** A block type this dialect does not know: kept whole. */
interface OtherBlock {
  type: string;
  [key: string]: Json | undefined;
}

export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | ImageBlock
  | ToolReferenceBlock
  | OtherBlock;

export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /** The cache writes by lifetime (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`); older records lack it. */
  cache_creation?: Json;
  [key: string]: Json | undefined;
}

export interface UserRecord extends Envelope {
  type: 'user';
  message: { role: 'user'; content: string | ContentBlock[] };
  toolUseResult?: Json;
  sourceToolAssistantUUID?: string;
  sourceToolUseID?: string;
  isCompactSummary?: boolean;
  isVisibleInTranscriptOnly?: boolean;
  permissionMode?: string;
}

export interface AssistantRecord extends Envelope {
  type: 'assistant';
  requestId?: string;
  message: {
    id?: string;
    role: 'assistant';
    model?: string;
    content: string | ContentBlock[];
    stop_reason?: string | null;
    stop_sequence?: string | null;
    usage?: Usage;
  };
  isApiErrorMessage?: boolean;
  error?: Json;
}

/**
 * A system record; which fields it carries depends on its subtype. The emitter reads each field
 * only when it has the type named here, and keeps it in extraJson otherwise.
 */
export interface SystemRecord extends Envelope {
  type: 'system';
  subtype?: string;
  content?: string;
  level?: string;
  toolUseID?: string;
  /** turn_duration */
  durationMs?: number;
  messageCount?: number;
  pendingBackgroundAgentCount?: number;
  pendingWorkflowCount?: number;
  /** api_error */
  retryInMs?: number;
  retryAttempt?: number;
  maxRetries?: number;
  error?: Json;
  cause?: Json;
  /** stop_hook_summary */
  hookCount?: number;
  hookInfos?: ({ command?: string; durationMs?: number } & JsonObject)[];
  hookErrors?: Json[];
  preventedContinuation?: boolean;
  stopReason?: string;
  hasOutput?: boolean;
  /** compact_boundary (its tail is the envelope's logicalParentUuid) */
  compactMetadata?: { trigger?: string; preTokens?: number; postTokens?: number; durationMs?: number } & JsonObject;
  /** microcompact_boundary (its tail is its parentUuid) */
  microcompactMetadata?: { trigger?: string; preTokens?: number; tokensSaved?: number; compactedToolIds?: string[] } & JsonObject;
  /** bridge_status */
  url?: string;
}

/**
 * An attachment: a context injection, tagged by `attachment.type`. Each kind's fields are read
 * by emit/attachment.ts beside it; the kinds are an open set.
 */
export interface AttachmentRecord extends Envelope {
  type: 'attachment';
  attachment: { type: string } & JsonObject;
}

export interface ProgressRecord extends Envelope {
  type: 'progress';
  data?: { type?: string } & JsonObject;
  toolUseID?: string;
  parentToolUseID?: string;
}

/**
 * Every other top-level type: metadata records (titles, snapshots, queue operations, ...)
 * and types this dialect has never seen. The fields read per type are listed in
 * RECORD_FIELDS (fields.ts); a type not listed keeps all its own fields in `extra`.
 */
interface MetadataRecord extends Envelope {
  type: string;
  /** summary, last-prompt: the conversation leaf the record describes. */
  leafUuid?: string;
  /** file-history-snapshot, file-history-delta: the user turn the snapshot belongs to. */
  messageId?: string;
  summary?: string;
  customTitle?: string;
  aiTitle?: string;
  agentName?: string;
  lastPrompt?: string;
  permissionMode?: string;
  mode?: string;
  agentSetting?: string;
  prNumber?: number;
  prUrl?: string;
  prRepository?: string;
  /** queue-operation */
  operation?: string;
  content?: string;
  reason?: string;
  /** file-history-snapshot */
  snapshot?: {
    messageId?: string;
    timestamp?: string;
    trackedFileBackups?: Record<string, { backupFileName?: string | null; version?: number; backupTime?: string } & JsonObject>;
  } & JsonObject;
  isSnapshotUpdate?: boolean;
  /** file-history-delta */
  snapshotMessageId?: string;
  trackingPath?: string;
  backup?: Json;
  /** worktree-state */
  worktreeSession?: JsonObject;
  /** bridge-session */
  bridgeSessionId?: string;
  lastSequenceNum?: number;
  /** cost-state */
  totalCostUSD?: number;
  modelUsage?: JsonObject;
}

export type ClaudeRecord = UserRecord | AssistantRecord | SystemRecord | AttachmentRecord | ProgressRecord | MetadataRecord;

/** A parsed line: the typed record and what the dialect does not (yet) read. */
export interface ReadRecord {
  record: ClaudeRecord;
  /** Fields of the line this dialect does not read, kept as JSON. Absent when there are none. */
  extra?: JsonObject;
  /** Fields not read because they had another type (kept in `extra`): one message each. */
  warnings?: string[];
}
