import { instanceIri } from '../../../rdf/iri.ts';
import { str, type Term } from '../../../rdf/terms.ts';
import { a, weave } from '../../../rdf/vocab.ts';
import { firstMention, ref, t, type RecordContext } from '../../../emit/record.ts';

/**
 * A hook run: one firing of a hook event, named by the `toolUseID` Claude Code gives it (the tool
 * use a PreToolUse/PostToolUse hook fires for, or an id of its own) and the event. Every command
 * the firing ran, its progress and its outcome point at this one node. The id is scoped by session
 * because some are not ids at all (`"SessionStart"`).
 */
export function hookRun(ctx: RecordContext, toolUseId: string, hookEvent: string | undefined): Term {
  const node = instanceIri(ctx.soul, 'HookRun', ctx.session, toolUseId, hookEvent ?? '');
  if (!firstMention(ctx, node)) return node;
  t(ctx, node, a, weave.HookRun);
  t(ctx, node, weave.toolUseId, str(toolUseId));
  if (hookEvent) t(ctx, node, weave.hookEvent, str(hookEvent));
  ref(ctx, node, weave.forToolUse, 'toolUse', toolUseId);
  return node;
}
