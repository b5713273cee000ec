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
  tool_use: ['type', 'id', 'name', 'input'],
  server_tool_use: ['type', 'id', 'name', 'input'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  advisor_tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
  image: ['type', 'source'],
  document: ['type', 'source'],
  tool_reference: ['type', 'tool_name'],
};
