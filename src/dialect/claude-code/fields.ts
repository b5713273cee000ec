/**
 * The fields claude-code/1 reads, per record type. A field named here is mapped to the graph by
 * the emitter; any other field of a line lands in the record's `extra` JSON literal instead.
 * A new Claude Code field is added here and in the emitter together.
 */

export const ENVELOPE_FIELDS = [
  'type',
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'timestamp',
  'sessionId',
  'agentId',
  'isSidechain',
  'isMeta',
  'userType',
  'cwd',
  'version',
  'gitBranch',
  'slug',
  'entrypoint',
  'promptId',
  'origin',
] as const;

export const RECORD_FIELDS: Record<string, readonly string[]> = {
  user: [
    'message',
    'toolUseResult',
    'sourceToolAssistantUUID',
    'sourceToolUseID',
    'isCompactSummary',
    'isVisibleInTranscriptOnly',
    'permissionMode',
  ],
  assistant: ['message', 'requestId', 'isApiErrorMessage', 'error'],
  system: [
    'subtype',
    'content',
    'level',
    'toolUseID',
    // turn_duration
    'durationMs',
    'messageCount',
    'pendingBackgroundAgentCount',
    'pendingWorkflowCount',
    // api_error
    'retryInMs',
    'retryAttempt',
    'maxRetries',
    'error',
    'cause',
    // stop_hook_summary
    'hookCount',
    'hookInfos',
    'hookErrors',
    'preventedContinuation',
    'stopReason',
    'hasOutput',
    // compact_boundary, microcompact_boundary
    'compactMetadata',
    'microcompactMetadata',
    // bridge_status
    'url',
  ],
  attachment: ['attachment'],
  progress: ['data', 'toolUseID', 'parentToolUseID'],
  summary: ['summary', 'leafUuid'],
  'custom-title': ['customTitle'],
  'agent-name': ['agentName'],
  'ai-title': ['aiTitle'],
  'last-prompt': ['lastPrompt', 'leafUuid'],
  'permission-mode': ['permissionMode'],
  mode: ['mode'],
  'agent-setting': ['agentSetting'],
  'pr-link': ['prNumber', 'prUrl', 'prRepository'],
  'queue-operation': ['operation', 'content', 'reason'],
  'file-history-snapshot': ['messageId', 'snapshot', 'isSnapshotUpdate'],
  'file-history-delta': ['messageId', 'snapshotMessageId', 'backup', 'trackingPath'],
  'worktree-state': ['worktreeSession'],
  'bridge-session': ['bridgeSessionId', 'lastSequenceNum'],
  'cost-state': [
    'totalCostUSD',
    'totalAPIDuration',
    'totalAPIDurationWithoutRetries',
    'totalToolDuration',
    'totalDuration',
    'totalLinesAdded',
    'totalLinesRemoved',
    'hasUnknownModelCost',
    'modelUsage',
  ],
};

/** Fields of `message` read for each role. */
export const MESSAGE_FIELDS: Record<string, readonly string[]> = {
  user: ['role', 'content'],
  assistant: ['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage'],
};

/** Fields of each content block type read; unknown block types are kept whole. */
export const BLOCK_FIELDS: Record<string, readonly string[]> = {
  text: ['type', 'text'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
  tool_use: ['type', 'id', 'name', 'input', 'caller'],
  server_tool_use: ['type', 'id', 'name', 'input', 'caller'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  advisor_tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  image: ['type', 'source'],
  document: ['type', 'source'],
  tool_reference: ['type', 'tool_name'],
};

/**
 * The JSON type each field is read as, where the emitter or the model relies on it. A field of
 * another type (a number for a uuid, an array for a timestamp) is not read: it stays in `extra`
 * (and so in weave:extraJson) with a warning naming file and line, and the line is still read.
 * `null` is allowed where Claude Code writes it.
 */
export type FieldType = 'string' | 'string|null' | 'boolean' | 'object' | 'content';

const ENVELOPE_TYPES: Record<string, FieldType> = {
  uuid: 'string',
  parentUuid: 'string|null',
  logicalParentUuid: 'string|null',
  timestamp: 'string',
  sessionId: 'string',
  agentId: 'string',
  isSidechain: 'boolean',
  isMeta: 'boolean',
  userType: 'string',
  cwd: 'string',
  version: 'string',
  gitBranch: 'string',
  slug: 'string',
  entrypoint: 'string',
  promptId: 'string',
};

export const FIELD_TYPES: Record<string, Record<string, FieldType>> = {
  user: {
    ...ENVELOPE_TYPES,
    message: 'object',
    sourceToolAssistantUUID: 'string',
    sourceToolUseID: 'string',
    isCompactSummary: 'boolean',
    isVisibleInTranscriptOnly: 'boolean',
    permissionMode: 'string',
  },
  assistant: { ...ENVELOPE_TYPES, message: 'object', requestId: 'string', isApiErrorMessage: 'boolean' },
};
/** Every other record type: the envelope (its own fields are read by type where they are used). */
export const ENVELOPE_FIELD_TYPES = ENVELOPE_TYPES;

/** Fields of `message`, per role. */
export const MESSAGE_TYPES: Record<string, Record<string, FieldType>> = {
  user: { role: 'string', content: 'content' },
  assistant: {
    id: 'string',
    type: 'string',
    role: 'string',
    model: 'string',
    content: 'content',
    stop_reason: 'string|null',
    stop_sequence: 'string|null',
    usage: 'object',
  },
};
