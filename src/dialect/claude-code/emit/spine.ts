import { DEFAULT_POLICY } from '../../../emit/content.ts';
import type { RecordOut, Reference, Where } from '../../../emit/contract.ts';
import type { RecordContext } from '../../../emit/record.ts';
import { instanceIri } from '../../../rdf/iri.ts';
import { jsonLiteral } from '../../../rdf/json.ts';
import { bool, dateTime, int, str, type Term } from '../../../rdf/terms.ts';
import { a, weave, type WeaveTerm } from '../../../rdf/vocab.ts';
import type { AssistantRecord, ClaudeRecord, JsonObject, ReadRecord, UserRecord } from '../records.ts';
import { emitAttachment } from './attachment.ts';
import { emitMetadata } from './metadata.ts';
import { emitProgress } from './progress.ts';
import { emitSystem } from './system.ts';
import { emitTurn } from './turn.ts';
import { own } from '../../../own.ts';
import { idPath } from '../ids.ts';

/**
 * One Claude Code record as triples: the envelope every record shares here, then the record's
 * own kind (this folder): turns and their blocks (layer 01 of the ontology card), system
 * events, attachments, progress and metadata (layer 02). Pure: what it cannot know alone (which
 * Event a parentUuid names, which tool use a result answers) it returns as references for the
 * session to resolve once all of the session's files are read.
 */

/** The envelope's ids, stated as literals where they name no record of the session, so links across sessions stay findable. */
const ID_PREDICATE: Record<string, Term> = {
  parentEvent: weave.parentEventId,
  logicalParentEvent: weave.logicalParentEventId,
};

/** The IRI kind of an event: turns are `Turn` (the Pool/Soul join anchor), all else `Event`. */
function eventKind(type: string): 'Turn' | 'Event' {
  return type === 'user' || type === 'assistant' ? 'Turn' : 'Event';
}

/** Classes of the record types the card names; any other type is a plain `weave:Event`. */
export const RECORD_CLASS: Record<string, WeaveTerm> = {
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
  'agent-setting': 'AgentSettingEvent',
  'worktree-state': 'WorktreeStateEvent',
  'bridge-session': 'BridgeSessionEvent',
  'cost-state': 'CostStateEvent',
  'file-history-delta': 'FileHistoryDelta',
  'frame-link': 'FrameLinkEvent',
  'continued-in': 'ContinuedInEvent',
  'teleported-from': 'TeleportedFromEvent',
  'content-replacement': 'ContentReplacementEvent',
  'marble-origami-commit': 'ContextCollapseEvent',
  'marble-origami-snapshot': 'ContextCollapseEvent',
  'atis-latch': 'AtisLatchEvent',
  'artifact-autoreact-ledger': 'ArtifactLedgerEvent',
  'artifact-comment-monitor': 'ArtifactLedgerEvent',
};

/** Record types whose class no other type shares: the ontology names them on the class (weave:recordTypeName). */
export const NAMED_BY_CLASS: ReadonlySet<string> = new Set(
  Object.entries(RECORD_CLASS)
    .filter(([, cls]) => Object.values(RECORD_CLASS).filter((c) => c === cls).length === 1)
    .map(([type]) => type),
);

/**
 * The record's own id, or a stable one from its transcript and line for metadata records. A uuid
 * not minted at random is scoped by `session` (the session key; for a main stream, its stream key):
 * see src/dialect/claude-code/ids.ts.
 */
export function eventIri(soul: string, record: ClaudeRecord, streamKey: string, lineNo: number, session = streamKey): Term {
  return record.uuid
    ? instanceIri(soul, eventKind(record.type), ...idPath(record.uuid, session))
    : instanceIri(soul, 'Event', streamKey, `L${lineNo}`);
}

/** The record with its Event named by its uuid, else by its stream and line. */
export function emitRecord(read: ReadRecord, where: Where & { streamKey: string }): RecordOut {
  return emitSpine(read, eventIri(where.soul, read.record, where.streamKey, where.lineNo, where.session), where);
}

export function emitSpine({ record, extra }: ReadRecord, event: Term, where: Where): RecordOut {
  const out: RecordOut = { triples: [], references: [], event, toolUses: [] };
  const t = (s: Term, p: Term, o: Term) => out.triples.push({ s, p, o });
  const ref = (predicate: Term, space: Reference['space'], id: string) => {
    const local = predicate.slice(predicate.indexOf('#') + 1, -1);
    out.references.push({ subject: event, predicate, space, id, literal: ID_PREDICATE[local] });
  };

  t(where.transcript, weave.hasEvent, event);
  // Superclasses are stated too: the store does no RDFS inference, and `?t a weave:Turn` must work.
  t(event, a, weave.Event);
  if (record.type === 'user' || record.type === 'assistant') t(event, a, weave.Turn);
  const cls = own(RECORD_CLASS, record.type);
  if (cls) t(event, a, weave[cls]);
  // A class of one record type names it (weave:recordTypeName in the ontology); others state it.
  if (!NAMED_BY_CLASS.has(record.type)) t(event, weave.recordType, str(record.type));
  t(event, weave.sourceLine, int(where.lineNo));
  t(event, weave.sourceOffset, int(where.offset));
  if (record.uuid) t(event, weave.eventId, str(record.uuid));
  if (record.timestamp) t(event, weave.timestamp, dateTime(record.timestamp));
  if (record.parentUuid) ref(weave.parentEvent, 'event', record.parentUuid);
  if (record.logicalParentUuid) ref(weave.logicalParentEvent, 'event', record.logicalParentUuid);
  if (typeof record.isMeta === 'boolean') t(event, weave.isMeta, bool(record.isMeta));
  if (typeof record.promptId === 'string' && record.promptId !== '') t(event, weave.promptId, str(record.promptId));
  // The envelope is nearly constant for a transcript: stated on it once, on a record where it differs.
  const envelope = (predicate: Term, value: Term | undefined) => {
    if (where.defaults) where.defaults.state(event, predicate, value, out.triples);
    else if (value !== undefined) t(event, predicate, value);
  };
  envelope(weave.isSidechain, typeof record.isSidechain === 'boolean' ? bool(record.isSidechain) : undefined);
  for (const [field, predicate] of ENVELOPE_STRINGS) {
    const value = record[field];
    envelope(predicate, typeof value === 'string' && value !== '' ? str(value) : undefined);
  }
  if (record.origin) {
    if (typeof record.origin.kind === 'string') t(event, weave.originKind, str(record.origin.kind));
    if (typeof record.origin.server === 'string') t(event, weave.originServer, str(record.origin.server));
    t(event, weave.origin, jsonLiteral(record.origin));
  }

  const ctx: RecordContext = {
    soul: where.soul,
    session: where.session ?? record.sessionId ?? '',
    event,
    lineNo: where.lineNo,
    policy: where.content ?? DEFAULT_POLICY,
    triples: out.triples,
    references: out.references,
    leftover: {},
    described: where.described ?? new Set(),
  };
  const fields = record as unknown as JsonObject;
  if (record.type === 'user' || record.type === 'assistant') emitTurn(record as UserRecord | AssistantRecord, ctx, out.toolUses);
  else if (record.type === 'system') emitSystem(fields, ctx);
  else if (record.type === 'attachment') emitAttachment(fields, ctx);
  else if (record.type === 'progress') emitProgress(fields, ctx);
  else emitMetadata(fields, ctx);

  // What the dialect does not read, and what it read but could not type: nothing is lost.
  const rest = { ...extra, ...ctx.leftover };
  if (Object.keys(rest).length) t(event, weave.extraJson, jsonLiteral(rest));
  return out;
}

type Field = 'sessionId' | 'agentId' | 'userType' | 'cwd' | 'version' | 'gitBranch' | 'slug' | 'entrypoint';
/** The envelope's strings, in the order they are stated. */
const ENVELOPE_STRINGS: [Field, Term][] = [
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
