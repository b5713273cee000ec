import type { Json, JsonObject } from '../records.ts';
import { RECORD_FIELDS } from '../fields.ts';
import { jsonLiteral } from '../../../rdf/json.ts';
import { bool, dateTime, int, num, str, type Term } from '../../../rdf/terms.ts';
import { a, prov, weave } from '../../../rdf/vocab.ts';
import { content, Fields, keepRest, ref, t, type RecordContext } from '../../../emit/record.ts';
import { related } from '../../../rdf/iri.ts';
import { hookRun } from './hooks.ts';

/**
 * A system record: its subtype and each subtype's own fields, typed. Compaction boundaries also
 * mint the compaction itself, a prov:Activity.
 */
export function emitSystem(record: JsonObject, ctx: RecordContext): void {
  const { event } = ctx;
  const f = new Fields(pick(record, RECORD_FIELDS.system));
  const subtype = f.string('subtype');
  if (subtype) t(ctx, event, weave.subtype, str(subtype));
  const level = f.string('level');
  if (level) t(ctx, event, weave.level, str(level));
  const text = f.string('content');
  if (text !== undefined) {
    content(ctx, event, weave.text, text, { kind: 'text', pointer: '/content' });
    const command = subtype === 'local_command' ? /<command-name>([^<]*)<\/command-name>/.exec(text)?.[1] : undefined;
    if (command) t(ctx, event, weave.commandName, str(command.trim()));
  }
  const toolUseId = f.string('toolUseID');
  if (toolUseId) t(ctx, event, weave.toolUseId, str(toolUseId));

  // turn_duration
  count(ctx, f, 'durationMs', weave.durationMs);
  count(ctx, f, 'messageCount', weave.messageCount);
  count(ctx, f, 'pendingBackgroundAgentCount', weave.pendingBackgroundAgentCount);
  count(ctx, f, 'pendingWorkflowCount', weave.pendingWorkflowCount);

  // api_error: retry bookkeeping
  count(ctx, f, 'retryAttempt', weave.retryAttempt);
  count(ctx, f, 'maxRetries', weave.maxRetries);
  const delay = f.number('retryInMs');
  if (delay !== undefined) t(ctx, event, weave.retryDelayMs, num(delay));
  const error = f.json('error');
  if (error !== undefined) t(ctx, event, weave.errorJson, jsonLiteral(error));
  const cause = f.json('cause');
  if (cause !== undefined) t(ctx, event, weave.errorCause, jsonLiteral(cause));

  // stop_hook_summary
  if (subtype === 'stop_hook_summary' && toolUseId) t(ctx, event, weave.hookRun, hookRun(ctx, toolUseId, 'Stop'));
  count(ctx, f, 'hookCount', weave.hookCount);
  emitHookInfos(f, ctx);
  // Error strings are texts with content states; a list holding anything else stays in extraJson.
  for (const [i, error] of (f.strings('hookErrors') ?? []).entries())
    content(ctx, event, weave.hookError, error, { kind: 'text', pointer: `/hookErrors/${i}`, index: i });
  const prevented = f.boolean('preventedContinuation');
  if (prevented !== undefined) t(ctx, event, weave.preventedContinuation, bool(prevented));
  const stopReason = f.string('stopReason');
  if (stopReason !== undefined) t(ctx, event, weave.hookStopReason, str(stopReason));
  const hasOutput = f.boolean('hasOutput');
  if (hasOutput !== undefined) t(ctx, event, weave.hookHasOutput, bool(hasOutput));

  // bridge_status
  const url = f.string('url');
  if (url) t(ctx, event, weave.url, str(url));

  if (subtype === 'compact_boundary' || subtype === 'microcompact_boundary')
    emitCompaction(record, f.object(subtype === 'compact_boundary' ? 'compactMetadata' : 'microcompactMetadata'), subtype, ctx);
  keepRest(ctx, f.rest());
}

function count(ctx: RecordContext, f: Fields, key: string, predicate: Term): void {
  const n = f.number(key);
  if (n !== undefined) t(ctx, ctx.event, predicate, num(n));
}

/** Each hook a Stop summary lists: its command and how long it took. */
function emitHookInfos(f: Fields, ctx: RecordContext): void {
  const infos = f.array('hookInfos');
  if (!infos) return;
  infos.forEach((info: Json, i) => {
    const node = related(ctx.event, 'HookExecution', i);
    t(ctx, ctx.event, weave.hookExecution, node);
    t(ctx, node, a, weave.HookExecution);
    if (!info || typeof info !== 'object' || Array.isArray(info)) {
      t(ctx, node, weave.extraJson, jsonLiteral(info));
      return;
    }
    const g = new Fields(info);
    const command = g.string('command');
    if (command !== undefined) t(ctx, node, weave.hookCommand, str(command));
    const ms = g.number('durationMs');
    if (ms !== undefined) t(ctx, node, weave.durationMs, num(ms));
    const rest = g.rest();
    if (Object.keys(rest).length) t(ctx, node, weave.extraJson, jsonLiteral(rest));
  });
}

/**
 * The compaction a boundary records: a prov:Activity that used the pre-compaction tail (the
 * record `logicalParentUuid` names; for a microcompaction, the boundary's parent) and generated
 * the boundary, the new root the conversation continues from. The summary turn it generated is
 * linked once the session is read (see compaction.ts); a tail in no record of the session is
 * looked for in the other sessions after ingest.
 */
function emitCompaction(record: JsonObject, metadata: JsonObject | undefined, subtype: string, ctx: RecordContext): void {
  const { event } = ctx;
  const node = related(event, 'Compaction');
  t(ctx, node, a, weave.Compaction);
  t(ctx, node, a, prov.Activity);
  if (subtype === 'microcompact_boundary') t(ctx, node, a, weave.Microcompaction);
  t(ctx, node, prov.generated, event);
  if (typeof record.timestamp === 'string') t(ctx, node, prov.endedAtTime, dateTime(record.timestamp));
  const tail = subtype === 'compact_boundary' ? record.logicalParentUuid : record.parentUuid;
  if (typeof tail === 'string' && tail) {
    t(ctx, node, weave.tailEventId, str(tail));
    ref(ctx, node, prov.used, 'event', tail);
  }
  if (!metadata) return;
  t(ctx, node, weave.compactionJson, jsonLiteral(metadata));
  const m = new Fields(metadata);
  const trigger = m.string('trigger');
  if (trigger) t(ctx, node, weave.compactionTrigger, str(trigger));
  for (const [key, predicate] of [
    ['preTokens', weave.preTokens],
    ['postTokens', weave.postTokens],
    ['tokensSaved', weave.tokensSaved],
    ['durationMs', weave.durationMs],
  ] as const) {
    const n = m.integer(key);
    if (n !== undefined) t(ctx, node, predicate, int(n));
  }
  for (const id of m.strings('compactedToolIds') ?? []) {
    t(ctx, node, weave.clearedToolUseId, str(id));
    ref(ctx, node, weave.clearedToolUse, 'toolUse', id);
  }
}

/** The fields of `record` a kind reads (the envelope is the spine's). */
export function pick(record: JsonObject, keys: readonly string[] | undefined): JsonObject {
  const out: JsonObject = {};
  for (const key of keys ?? []) if (record[key] !== undefined) out[key] = record[key];
  return out;
}
