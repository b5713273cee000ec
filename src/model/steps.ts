import { weave, type WeaveTerm } from '../rdf/vocab.ts';
import type { Triple } from '../rdf/terms.ts';
import type { Call } from './calls.ts';
import type { ModelContext } from './context.ts';
import type { RecordFact, RecordStep } from './facts.ts';
import type { Placer } from './placement.ts';
import type { Tool } from './tools.ts';

/** The class of each step kind a single record can be. */
const STEP_CLASS: Record<RecordStep, WeaveTerm> = {
  'message.external': 'ExternalMessage',
  'context.injection': 'ContextInjection',
  'runtime.notification': 'RuntimeNotification',
  'epoch.boundary': 'EpochBoundary',
  'epoch.summary': 'EpochSummary',
  'error.api': 'ApiError',
  'control.interrupt': 'Interrupt',
  'control.permission': 'PermissionDecision',
  'control.command': 'LocalCommand',
  'control.notice': 'RuntimeNotice',
  'turn.duration': 'TurnDuration',
  'agent.launch_ack': 'AgentLaunchAck',
};

/**
 * Records that are steps by themselves: typed with their kind and placed in their run. Epoch
 * boundaries and summaries are placed by the epochs, content blocks by their call.
 */
export function* emitRecordSteps(
  ctx: ModelContext,
  placer: Placer,
  tools: Map<string, Tool>,
  callOf: Map<number, Call>,
): Generator<Triple> {
  const { d, facts } = ctx;
  const mode = new Map<number, string>();
  for (const [i, f] of facts.entries()) {
    yield* d.takenAt(i);
    if (f.permissionMode !== undefined) {
      // Claude Code writes the mode again after every turn; only a change is a decision.
      if (mode.get(f.stream) === f.permissionMode) continue;
      mode.set(f.stream, f.permissionMode);
      d.typed(f.event, 'PermissionDecision', 'exact_unique');
      const p = f.uuid ? placer.of(i) : placer.byPosition(i);
      d.link(f.event, weave.within, p.node, p.evidence);
      continue;
    }
    if (!f.step || f.step === 'epoch.boundary' || f.step === 'epoch.summary') continue;
    d.typed(f.event, STEP_CLASS[f.step], f.stepEvidence ?? 'exact_unique');
    const p = placer.of(i);
    d.link(f.event, weave.within, p.node, p.evidence);
    if (f.step === 'control.interrupt') emitCancels(ctx, f, p, tools, callOf);
  }
}

/**
 * What an interruption ended. A tool result that says so names its tool exactly; the
 * "[Request interrupted by user]" marker ends what it follows: the tool whose result is its
 * parent, or the response being streamed, else (plausibly) its run.
 */
function emitCancels(
  ctx: ModelContext,
  f: RecordFact,
  p: ReturnType<Placer['of']>,
  tools: Map<string, Tool>,
  callOf: Map<number, Call>,
): void {
  const { d, facts, byUuid } = ctx;
  if (f.toolResults?.length) {
    for (const r of f.toolResults) d.link(f.event, weave.cancels, tools.get(r.toolUseId)!.node, 'exact_unique');
    return;
  }
  const parent = f.parent !== undefined ? byUuid.get(f.parent) : undefined;
  const before = parent !== undefined ? facts[parent] : undefined;
  if (before?.toolResults?.length)
    for (const r of before.toolResults) d.link(f.event, weave.cancels, tools.get(r.toolUseId)!.node, 'strong_inference');
  else if (before?.blocks && callOf.has(parent!)) d.link(f.event, weave.cancels, callOf.get(parent!)!.node, 'strong_inference');
  else d.link(f.event, weave.cancels, p.node, p.evidence === 'unresolved' ? 'unresolved' : 'weak_inference');
}
