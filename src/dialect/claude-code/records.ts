/**
 * Typed records of the claude-code/1 dialect: what one JSONL line of a Claude Code transcript
 * says, with every field this dialect reads named and typed. Whatever a record holds beyond
 * these stays in `extra`, so a newer Claude Code never loses data on the way into the graph.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Fields shared by every conversation record (user, assistant, system, attachment, progress). */
export interface Envelope {
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

export interface TextBlock { type: 'text'; text: string }
export interface ThinkingBlock { type: 'thinking'; thinking: string; signature?: string }
export interface RedactedThinkingBlock { type: 'redacted_thinking'; data: string }
export interface ToolUseBlock { type: 'tool_use' | 'server_tool_use'; id: string; name: string; input: Json }
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
export interface ToolReferenceBlock { type: 'tool_reference'; tool_name: string }
/** A block type this dialect does not know: kept whole. */
export interface OtherBlock { type: string; [key: string]: Json | undefined }

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

export interface SystemRecord extends Envelope {
  type: 'system';
  subtype?: string;
  content?: string;
  level?: string;
  toolUseID?: string;
}

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
 * and types this dialect has never seen. Their own fields stay in `extra` until a later
 * reader names them.
 */
export interface MetadataRecord extends Envelope {
  type: string;
  leafUuid?: string;
  messageId?: string;
}

export type ClaudeRecord = UserRecord | AssistantRecord | SystemRecord | AttachmentRecord | ProgressRecord | MetadataRecord;

/** A parsed line: the typed record and what the dialect does not (yet) read. */
export interface ReadRecord {
  record: ClaudeRecord;
  /** Fields of the line this dialect does not read, kept as JSON. Absent when there are none. */
  extra?: JsonObject;
}
