import { createHash } from 'node:crypto';
import type {
  AssistantRecord, ClaudeRecord, ContentBlock, ImageBlock, JsonObject, ReadRecord, ToolResultBlock, ToolUseBlock, Usage, UserRecord,
} from '../dialect/claude-code/records.ts';
import { BLOCK_FIELDS } from '../dialect/claude-code/fields.ts';
import { instanceIri } from './iri.ts';
import { jsonLiteral } from './json.ts';
import { bool, dateTime, int, str, type Term, type Triple } from './terms.ts';
import { a, weave } from './vocab.ts';

/**
 * The spine: one record of a transcript as triples (layer 01 of the ontology card). Pure: what
 * it cannot know alone (which Event a parentUuid names, which tool use a result answers) it
 * returns as references for the session to resolve once all of the session's files are read.
 */

export interface Where {
  soul: string;
  transcript: Term;
  lineNo: number;
  offset: number;
}

/** A link whose target is known only by an id until the whole session is read. */
export interface Reference {
  subject: Term;
  predicate: Term;
  /** Which id space the target lives in. */
  space: 'event' | 'toolUse';
  id: string;
}

/** Every id a record states is kept as a literal too, so links across sessions stay findable. */
const ID_PREDICATE: Record<string, Term> = {
  parentEvent: weave.parentEventId,
  logicalParentEvent: weave.logicalParentEventId,
  sourceToolAssistant: weave.sourceToolAssistantId,
  reportsOnToolUse: weave.parentToolUseId,
  leafEvent: weave.leafEventId,
};

export interface SpineOut {
  triples: Triple[];
  references: Reference[];
  /** The Event's IRI (absent for nothing: every record is an Event). */
  event: Term;
  /** Tool uses this record declares, by id, with their block IRI. */
  toolUses: [string, Term][];
}

/** The IRI kind of an event: turns are `Turn` (the Pool/Soul join anchor), all else `Event`. */
export function eventKind(type: string): 'Turn' | 'Event' {
  return type === 'user' || type === 'assistant' ? 'Turn' : 'Event';
}

/** Classes of the record types the card names; any other type is a plain `weave:Event`. */
const RECORD_CLASS: Record<string, string> = {
  user: 'UserTurn',
  assistant: 'AssistantTurn',
  system: 'SystemEvent',
  attachment: 'Attachment',
  progress: 'ProgressEvent',
  summary: 'SummaryEvent',
  'file-history-snapshot': 'FileHistorySnapshot',
  'queue-operation': 'QueueOperation',
  'permission-mode': 'PermissionModeEvent',
  'last-prompt': 'LastPromptEvent',
  mode: 'ModeEvent',
  'ai-title': 'AiTitleEvent',
  'pr-link': 'PrLinkEvent',
  'custom-title': 'CustomTitleEvent',
  'agent-name': 'AgentNameEvent',
};

/** The record's own id, or a stable one from its transcript and line for metadata records. */
export function eventIri(soul: string, record: ClaudeRecord, streamKey: string, lineNo: number): Term {
  return record.uuid
    ? instanceIri(soul, eventKind(record.type), record.uuid)
    : instanceIri(soul, 'Event', streamKey, `L${lineNo}`);
}

export function emitSpine({ record, extra }: ReadRecord, event: Term, where: Where): SpineOut {
  const out: SpineOut = { triples: [], references: [], event, toolUses: [] };
  const t = (s: Term, p: Term, o: Term) => out.triples.push({ s, p, o });
  const ref = (predicate: Term, space: Reference['space'], id: string) => {
    out.references.push({ subject: event, predicate, space, id });
    const local = predicate.slice(predicate.indexOf('#') + 1, -1);
    if (ID_PREDICATE[local]) t(event, ID_PREDICATE[local], str(id));
  };

  t(where.transcript, weave.hasEvent, event);
  // Superclasses are stated too: the store does no RDFS inference, and `?t a weave:Turn` must work.
  t(event, a, weave.Event);
  if (record.type === 'user' || record.type === 'assistant') t(event, a, weave.Turn);
  if (RECORD_CLASS[record.type]) t(event, a, weave[RECORD_CLASS[record.type]]);
  t(event, weave.recordType, str(record.type));
  t(event, weave.sourceLine, int(where.lineNo));
  t(event, weave.sourceOffset, int(where.offset));
  if (record.uuid) t(event, weave.eventId, str(record.uuid));
  if (record.timestamp) t(event, weave.timestamp, dateTime(record.timestamp));
  if (record.parentUuid) ref(weave.parentEvent, 'event', record.parentUuid);
  if (record.logicalParentUuid) ref(weave.logicalParentEvent, 'event', record.logicalParentUuid);
  if (typeof record.isMeta === 'boolean') t(event, weave.isMeta, bool(record.isMeta));
  if (typeof record.isSidechain === 'boolean') t(event, weave.isSidechain, bool(record.isSidechain));
  for (const [field, predicate] of ENVELOPE_STRINGS) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') t(event, predicate, str(value));
  }
  if (record.origin) {
    if (typeof record.origin.kind === 'string') t(event, weave.originKind, str(record.origin.kind));
    if (typeof record.origin.server === 'string') t(event, weave.originServer, str(record.origin.server));
    t(event, weave.origin, jsonLiteral(record.origin));
  }
  if (extra) t(event, weave.extraJson, jsonLiteral(extra));

  if (record.type === 'user' || record.type === 'assistant') emitTurn(record as UserRecord | AssistantRecord, event, where, out);
  else emitOther(record, event, t, ref);
  return out;
}

type Field = 'sessionId' | 'agentId' | 'userType' | 'cwd' | 'version' | 'gitBranch' | 'slug' | 'entrypoint' | 'promptId';
const ENVELOPE_STRINGS: [Field, Term][] = [
  ['promptId', weave.promptId],
  ['userType', weave.userType],
  ['cwd', weave.cwd],
  ['version', weave.cliVersion],
  ['gitBranch', weave.gitBranch],
  ['slug', weave.sessionNickname],
  ['entrypoint', weave.entrypoint],
  // The transcript already names both; a record's own copy is kept for forks, which rewrite it.
  ['sessionId', weave.recordSessionId],
  ['agentId', weave.recordAgentId],
];

function emitTurn(record: UserRecord | AssistantRecord, event: Term, where: Where, out: SpineOut): void {
  const t = (s: Term, p: Term, o: Term) => out.triples.push({ s, p, o });
  t(event, weave.role, str(record.type));
  if (record.type === 'assistant') {
    const { message } = record;
    if (message.model) t(event, weave.model, str(message.model));
    if (message.id) t(event, weave.messageId, str(message.id));
    if (record.requestId) t(event, weave.requestId, str(record.requestId));
    if (message.stop_reason) t(event, weave.stopReason, str(message.stop_reason));
    if (typeof message.stop_sequence === 'string') t(event, weave.stopSequence, str(message.stop_sequence));
    if (message.usage) emitUsage(message.usage, event, where.soul, record.uuid ?? `${where.lineNo}`, t);
    if (typeof record.isApiErrorMessage === 'boolean') t(event, weave.isApiErrorMessage, bool(record.isApiErrorMessage));
    if (record.error !== undefined) t(event, weave.apiError, jsonLiteral(record.error));
  } else {
    if (record.toolUseResult !== undefined) t(event, weave.toolUseResult, jsonLiteral(record.toolUseResult));
    if (record.sourceToolAssistantUUID) {
      out.references.push({ subject: event, predicate: weave.sourceToolAssistant, space: 'event', id: record.sourceToolAssistantUUID });
      t(event, weave.sourceToolAssistantId, str(record.sourceToolAssistantUUID));
    }
    if (record.sourceToolUseID) t(event, weave.sourceToolUseId, str(record.sourceToolUseID));
    if (typeof record.isCompactSummary === 'boolean') t(event, weave.isCompactSummary, bool(record.isCompactSummary));
    if (typeof record.isVisibleInTranscriptOnly === 'boolean')
      t(event, weave.isVisibleInTranscriptOnly, bool(record.isVisibleInTranscriptOnly));
    if (record.permissionMode) t(event, weave.permissionMode, str(record.permissionMode));
  }
  const content = record.message.content;
  const blocks: ContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
  const id = record.uuid ?? `L${where.lineNo}`;
  blocks.forEach((block, order) => emitBlock(block, event, [id, order], where.soul, out));
}

function emitUsage(usage: Usage, event: Term, soul: string, id: string, t: (s: Term, p: Term, o: Term) => void): void {
  const node = instanceIri(soul, 'Usage', id);
  t(event, weave.hasUsage, node);
  t(node, a, weave.Usage);
  for (const [key, predicate] of USAGE_COUNTS) {
    const n = usage[key];
    if (typeof n === 'number') t(node, predicate, int(n));
  }
  t(node, weave.usageJson, jsonLiteral(usage));
}

const USAGE_COUNTS: [string, Term][] = [
  ['input_tokens', weave.inputTokens],
  ['output_tokens', weave.outputTokens],
  ['cache_creation_input_tokens', weave.cacheCreationInputTokens],
  ['cache_read_input_tokens', weave.cacheReadInputTokens],
];

const BLOCK_CLASS: Record<string, string> = {
  text: 'TextBlock',
  thinking: 'ThinkingBlock',
  redacted_thinking: 'RedactedThinkingBlock',
  tool_use: 'ToolUseBlock',
  server_tool_use: 'ServerToolUseBlock',
  tool_result: 'ToolResultBlock',
  advisor_tool_result: 'AdvisorToolResultBlock',
  image: 'ImageBlock',
  document: 'DocumentBlock',
  tool_reference: 'ToolReferenceBlock',
};

/** A content block; `path` is its place: the turn id, then its order at each level of nesting. */
function emitBlock(block: ContentBlock, owner: Term, path: (string | number)[], soul: string, out: SpineOut): void {
  const t = (s: Term, p: Term, o: Term) => out.triples.push({ s, p, o });
  const node = instanceIri(soul, 'ContentBlock', ...path);
  const order = path[path.length - 1] as number;
  t(owner, weave.hasContentBlock, node);
  t(node, weave.blockOrder, int(order));
  t(node, a, weave.ContentBlock);
  if (typeof block !== 'object' || block === null || typeof block.type !== 'string') {
    // Not a block at all: keep it whole.
    t(node, weave.blockJson, jsonLiteral(block));
    return;
  }
  const known = BLOCK_FIELDS[block.type];
  if (BLOCK_CLASS[block.type]) t(node, a, weave[BLOCK_CLASS[block.type]]);
  if (!known) {
    t(node, weave.blockType, str(block.type));
    t(node, weave.blockJson, jsonLiteral(block));
    return;
  }
  const extra = Object.fromEntries(Object.entries(block).filter(([k]) => !known.includes(k)));
  if (Object.keys(extra).length) t(node, weave.extraJson, jsonLiteral(extra));

  switch (block.type) {
    case 'text':
      if (typeof (block as { text?: unknown }).text === 'string') t(node, weave.text, str((block as { text: string }).text));
      break;
    case 'thinking': {
      const b = block as { thinking?: unknown; signature?: unknown };
      if (typeof b.thinking === 'string') t(node, weave.text, str(b.thinking));
      if (typeof b.signature === 'string') t(node, weave.signature, str(b.signature));
      break;
    }
    case 'redacted_thinking': {
      const data = (block as { data?: unknown }).data;
      if (typeof data === 'string') t(node, weave.redactedData, str(data));
      break;
    }
    case 'tool_use':
    case 'server_tool_use': {
      const b = block as ToolUseBlock;
      if (typeof b.name === 'string') t(node, weave.toolName, str(b.name));
      if (typeof b.id === 'string') {
        t(node, weave.toolUseId, str(b.id));
        out.toolUses.push([b.id, node]);
      }
      if (b.input !== undefined) t(node, weave.toolInput, jsonLiteral(b.input));
      break;
    }
    case 'tool_result':
    case 'advisor_tool_result': {
      const b = block as ToolResultBlock;
      if (typeof b.tool_use_id === 'string') {
        t(node, weave.toolUseId, str(b.tool_use_id));
        out.references.push({ subject: node, predicate: weave.toolUseRef, space: 'toolUse', id: b.tool_use_id });
      }
      t(node, weave.toolIsError, bool(b.is_error === true));
      if (typeof b.content === 'string') t(node, weave.text, str(b.content));
      else if (Array.isArray(b.content)) b.content.forEach((inner, i) => emitBlock(inner, node, [...path, i], soul, out));
      else if (b.content !== undefined) t(node, weave.blockJson, jsonLiteral(b.content));
      break;
    }
    case 'image':
    case 'document':
      emitMedia(block as ImageBlock, node, t);
      break;
    case 'tool_reference': {
      const name = (block as { tool_name?: unknown }).tool_name;
      if (typeof name === 'string') t(node, weave.toolName, str(name));
      break;
    }
  }
}

/** Media: type and digest of the bytes; the base64 payload itself is not stored. */
function emitMedia(block: ImageBlock, node: Term, t: (s: Term, p: Term, o: Term) => void): void {
  const source = block.source;
  if (!source || typeof source !== 'object') return;
  if (typeof source.type === 'string') t(node, weave.sourceType, str(source.type));
  if (typeof source.media_type === 'string') t(node, weave.mediaType, str(source.media_type));
  if (typeof source.url === 'string') t(node, weave.sourceUrl, str(source.url));
  if (typeof source.text === 'string') t(node, weave.text, str(source.text));
  if (typeof source.data === 'string') {
    const bytes = Buffer.from(source.data, 'base64');
    t(node, weave.byteLength, int(bytes.length));
    t(node, weave.sha256, str(createHash('sha256').update(bytes).digest('hex')));
  }
}

/** Non-turn records: the ids that link them to the spine. Their full modelling is per kind. */
function emitOther(record: ClaudeRecord, event: Term, t: (s: Term, p: Term, o: Term) => void, ref: (p: Term, s: Reference['space'], id: string) => void): void {
  const r = record as unknown as JsonObject;
  if (typeof r.subtype === 'string') t(event, weave.subtype, str(r.subtype));
  if (typeof r.content === 'string') t(event, weave.text, str(r.content));
  if (typeof r.level === 'string') t(event, weave.level, str(r.level));
  if (typeof r.toolUseID === 'string') t(event, weave.toolUseId, str(r.toolUseID));
  if (typeof r.parentToolUseID === 'string') ref(weave.reportsOnToolUse, 'toolUse', r.parentToolUseID);
  if (typeof r.leafUuid === 'string') ref(weave.leafEvent, 'event', r.leafUuid);
  if (typeof r.messageId === 'string') t(event, weave.snapshotMessageId, str(r.messageId));
  if (record.type === 'attachment') {
    const att = (r.attachment ?? {}) as JsonObject;
    if (typeof att.type === 'string') t(event, weave.attachmentKind, str(att.type));
    t(event, weave.attachmentJson, jsonLiteral(att));
  }
  if (record.type === 'progress' && r.data !== undefined) {
    const data = r.data as JsonObject;
    if (typeof data.type === 'string') t(event, weave.progressKind, str(data.type));
    t(event, weave.progressJson, jsonLiteral(data));
  }
}
