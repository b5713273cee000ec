import type { Glossary, GlossaryEntry } from '../glossary.ts';
import { DIALECT } from './read.ts';

/**
 * What Claude Code calls each term of the conversation model, and where it writes it. It sits
 * beside the reader on purpose: when Claude Code renames a field, this table and the extraction
 * change in the same place. An entry with no `runtime` is derived by this project: Claude Code
 * has no word for it, and its note says what it is.
 */

const T = (model: string, runtime: string, where: string, note?: string, read = true): GlossaryEntry =>
  note ? { model, runtime, where, note, read } : { model, runtime, where, read };
const DERIVED = (model: string, note: string, read = true): GlossaryEntry => ({ model, note, read });

export const CLAUDE_CODE_GLOSSARY: Glossary = {
  dialect: DIALECT,
  label: 'Claude Code',
  terms: [
    // Structure
    DERIVED(
      'conversation',
      "supplied, never inferred: the session id, one conversation per session; one that goes on from an earlier file's record says so",
    ),
    DERIVED(
      'segment',
      'a window of activity chosen for commit: the main stream cut after ten idle minutes (v1+idle=10m0s); the last window is open, earlier ones candidates',
    ),
    T('session', 'sessionId', "every record, and the session file's name"),
    T(
      'stream',
      'agentId',
      "a child transcript's file name, agent-<id>.jsonl",
      'the main stream is the session file itself; a record belongs to the stream of the file it sits in',
    ),
    DERIVED('epoch', 'the records of a stream between two compact_boundary records'),
    DERIVED(
      'talk',
      'one readable interaction: a run with an external trigger (or none stated) opens one, notified runs continue it; a child stream is one talk',
    ),
    T(
      'run',
      'promptId',
      'user records and tool results',
      'one loop per (stream, promptId). A response carries none and reaches one through its parents; a file without promptIds gets one run per typed prompt, command or notification; a chain no prompt reaches that holds a response or a tool result (after a compaction, from another file, from a root) is a run of its own',
    ),
    DERIVED('step', 'one observed occurrence inside a run: a record, a block, or records tied by an id'),
    // Steps
    T(
      'message.external',
      'origin.kind == "human"',
      'a user record, or a queued_command attachment with commandMode "prompt"',
      'also a user record with no origin at all, read as typed input (strong_inference)',
    ),
    T('message.assistant', 'text block', 'an assistant record', 'not counted when the response is <synthetic>'),
    T('message.synthetic', 'message.model == "<synthetic>"', 'an assistant record', 'the client wrote it; no model produced it'),
    T('context.injection', 'attachment', 'an attachment record', 'also a user record with isMeta: true'),
    T(
      'llm.call',
      'message.id',
      'assistant records sharing one',
      "its fragments need not be adjacent; usage is the last fragment's in line order, never a sum",
    ),
    T(
      'thinking',
      'thinking block',
      'an assistant record',
      'also redacted_thinking; the text is empty in newer versions (content state unavailable)',
    ),
    T(
      'tool',
      'tool_use + tool_result',
      'an assistant record and a user record',
      'one step here, two blocks there, joined by the exact tool_use id across every file of the session',
    ),
    T(
      'agent.call',
      'Agent, Task, Skill or Workflow tool_use',
      'an assistant record',
      'an agent call whether or not a child stream is joined to it; the join is its own link (starts)',
    ),
    T('agent.launch_ack', 'toolUseResult.status == "async_launched"', 'a tool result record', 'an acknowledgement, not a result'),
    DERIVED('agent.output', "the last non-synthetic response of a child stream, with the journal's result when a workflow wrote one"),
    T(
      'runtime.notification',
      '<task-notification>',
      'a user record with origin.kind "task-notification", or attachment.origin.kind',
      'before origin existed, a user record whose text opens with <task-notification> (strong_inference)',
    ),
    T('epoch.boundary', 'system/compact_boundary', 'a system record'),
    T('epoch.summary', 'isCompactSummary', 'a user record'),
    T('error.api', 'system/api_error', 'a system record'),
    T('control.interrupt', '[Request interrupted by user]', 'a user record', 'also toolUseResult.interrupted on a tool result'),
    T('control.permission', 'permission-mode', 'a record type', 'a step only where the mode changes; also a tool use the person rejected'),
    T(
      'control.command',
      'system/local_command',
      'a system record',
      'also a user record whose text is <command-name>, <local-command-stdout> or <bash-input>',
    ),
    T(
      'control.notice',
      'system/away_summary, stop_hook_summary, informational, …',
      'a system record',
      'every system subtype no other row names',
    ),
    T('turn.duration', 'system/turn_duration', 'a system record', 'measured by the runtime; not the gap between two timestamps'),
    // Relations
    DERIVED('within', 'containment: the one place of a node in the tree session → stream → epoch → talk → run → step'),
    T(
      'starts',
      'toolUseResult.agentId',
      'a tool result',
      "also the child's .meta.json toolUseId and agent_progress records; a workflow's children join through runId and journal.jsonl (strong_inference)",
    ),
    T(
      'reports',
      '<task-id>',
      "a notification's text",
      'exact when it names a child or a background task; through <tool-use-id> it is inferred',
    ),
    DERIVED('ends_with', "a child stream's final output"),
    T('result_of', 'tool_use_id', 'a tool_result block', 'also stated as sourceToolAssistantUUID'),
    T('follows', 'logicalParentUuid', 'a compact_boundary record'),
    T('summarizes', 'parentUuid', 'an isCompactSummary record'),
    T(
      'produces',
      'agent-acompact-<id>.jsonl',
      "a compaction summariser's file name",
      "joined to the isCompactSummary record holding its <summary> text verbatim, or whose boundary's logicalParentUuid its records' parentUuid names; else to the first compact_boundary after its last record (strong_inference)",
    ),
    T('cancels', 'toolUseResult.interrupted', 'a tool result', 'also [Request interrupted by user], which cancels what it follows'),
    DERIVED('in_segment', "a talk's commit window: by position for a main-stream talk, by time for a child's"),
    DERIVED('retries', 'unavailable: Claude Code links no retried attempt to the one it replaced', false),
    DERIVED('input_of', 'unavailable: the serialized provider request is not written locally', false),
    // Roles
    T('id', 'uuid', 'every conversation record'),
    T('parent', 'parentUuid', 'every conversation record', "null at a session's start, a sidechain's root and a compact boundary"),
    T('call', 'message.id', 'an assistant record', 'not requestId, which a client-written record can reuse'),
    T('batch', 'toolUseResult.runId', 'a Workflow launch result', "also the wf_<runId> folder the batch's children are filed in"),
    T(
      'continues',
      'logicalParentUuid',
      'a compact_boundary record',
      "the only way back across a reset: a boundary's own parentUuid is null",
    ),
    T('child', 'toolUseResult.agentId', 'a launch result, a journal record'),
    T('time', 'timestamp', 'every conversation record', 'not an order: line order is'),
    T('trigger', 'origin.kind', 'a record, and attachment.origin.kind'),
    T('model', 'message.model', 'an assistant record', '<synthetic> when the client wrote the record'),
    // Evidence
    DERIVED('exact_unique', 'an identifier matched exactly one candidate'),
    DERIVED('exact_ambiguous', 'an identifier matched several; all are linked and none chosen'),
    DERIVED('strong_inference', 'no identifier, but a sound structural argument'),
    DERIVED('weak_inference', 'plausible only'),
    DERIVED('unresolved', 'no usable evidence: the link ends at an Unresolved placeholder'),
    DERIVED('conflict', 'sources disagree; none is preferred'),
    // Content states
    DERIVED('available', 'the whole text is in the graph'),
    DERIVED('truncated', 'the first bytes of the text, with its full length and digest'),
    DERIVED('hash_only', 'only the length and digest of the bytes (images, by default)'),
    DERIVED('size_only', 'only the length: the runtime kept the text elsewhere (a persisted tool output)'),
    DERIVED('unavailable', 'the runtime never wrote the text (empty thinking)'),
    DERIVED('omitted', 'left out by the content policy (thinking signatures, by default); length and digest kept'),
    T('redacted', 'redacted_thinking', 'a content block', 'the provider withheld the text'),
    // Triggers
    T('external', 'origin.kind == "human"', 'a record', 'also a run none of whose records states an origin, opened by typed input'),
    T('notification', 'origin.kind == "task-notification"', 'a record, or attachment.origin'),
    DERIVED('unknown', 'no record of the run states what started it'),
  ],
  notCarried: [
    {
      field: 'requestId',
      why: "kept on each record as weave:requestId, but no model node is grouped by it: a client-written record can reuse a real request's id",
    },
    {
      field: 'agentId (on records)',
      why: 'the child stream is named from its file; the field repeats it (kept as weave:recordAgentId, on the transcript and on a record where it differs)',
    },
    {
      field: 'sessionId (on records)',
      why: "the session is the file's; forks rewrite the field (kept as weave:recordSessionId, on the transcript and on a record where it differs)",
    },
    {
      field: 'isSidechain',
      why: 'missing on many main-stream records, so it cannot say which stream a record belongs to; the file can (kept as weave:isSidechain, on the transcript and on a record where it differs)',
    },
    {
      field: 'cwd, gitBranch, slug, version, userType, entrypoint',
      why: 'environment, not conversation: stated on the transcript and on a record where it differs, not on model nodes',
    },
    {
      field: 'thinking.signature',
      why: 'a provider verifies it; nobody can read it (omitted by default: its length and SHA-256 stay on the block; --content signature=keep stores it as weave:signature)',
    },
    {
      field: 'progress records',
      why: 'runtime progress of a tool, hook or child; only agent_progress is read, as a join from a tool call to its child stream',
    },
    { field: 'server_tool_use', why: 'a tool the provider ran itself: no tool_result block answers it, so it is not a tool step' },
  ],
  notSupplied: [
    {
      what: 'tool execution timing',
      why: 'only some tools report one (WebFetch and Glob durationMs, WebSearch durationSeconds, Agent totalDurationMs); a gap between timestamps includes model and harness time',
    },
    { what: 'turn duration everywhere', why: 'turn_duration is written by the interactive CLI only' },
    {
      what: "a talk's title",
      why: 'Claude Code names the session, a child agent and a workflow, never a talk: a talk is labelled by its first external message',
    },
    { what: 'retry identity', why: 'a retried provider attempt is not linked to the one it replaced' },
    { what: 'the serialized provider request', why: 'never written locally, so what each call saw as input is not known' },
    { what: 'a published record schema', why: 'none exists, and the format changed under this project' },
  ],
};
