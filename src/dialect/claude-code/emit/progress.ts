import type { JsonObject } from '../records.ts';
import { RECORD_FIELDS } from '../fields.ts';
import { str } from '../../../rdf/terms.ts';
import { weave } from '../../../rdf/vocab.ts';
import { content, Fields, keepRest, ref, t, type RecordContext } from '../../../emit/record.ts';
import { hookRun } from './hooks.ts';
import { pick } from './system.ts';

/**
 * A progress record (Claude Code 2.1.8 to 2.1.11x): what it reports on (the tool use its
 * parentToolUseID names), its kind, and its data whole. Hook progress also joins its hook run;
 * agent progress names the sub-agent.
 */
export function emitProgress(record: JsonObject, ctx: RecordContext): void {
  const { event } = ctx;
  const f = new Fields(pick(record, RECORD_FIELDS.progress));
  const toolUseId = f.string('toolUseID');
  const parent = f.string('parentToolUseID');
  if (parent) {
    ref(ctx, event, weave.reportsOnToolUse, 'toolUse', parent, weave.parentToolUseId);
  }
  const data = f.object('data');
  const kind = data && typeof data.type === 'string' ? data.type : undefined;
  // A hook progress record's hook run is named by its toolUseID and event, and states both.
  const run = kind === 'hook_progress' ? (toolUseId ?? parent) : undefined;
  if (toolUseId && !run) t(ctx, event, weave.toolUseId, str(toolUseId));
  if (data) {
    if (kind) t(ctx, event, weave.progressKind, str(kind));
    content(ctx, event, weave.progressJson, data, { kind: 'payload', pointer: '/data', conventional: true });
    if (kind === 'hook_progress') {
      const hookEvent = typeof data.hookEvent === 'string' ? data.hookEvent : undefined;
      if (typeof data.hookName === 'string') t(ctx, event, weave.hookName, str(data.hookName));
      if (typeof data.command === 'string') t(ctx, event, weave.hookCommand, str(data.command));
      if (run) {
        t(ctx, event, weave.hookRun, hookRun(ctx, run, hookEvent));
        // A run named by the parent's id is not this record's toolUseID, which it did not have.
        if (toolUseId === undefined) t(ctx, event, weave.lacks, weave.toolUseId);
      } else if (hookEvent) t(ctx, event, weave.hookEvent, str(hookEvent));
    }
    if (kind === 'agent_progress' && typeof data.agentId === 'string') t(ctx, event, weave.subagentId, str(data.agentId));
  }
  keepRest(ctx, f.rest());
}
