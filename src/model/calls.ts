import { instanceIri } from '../rdf/iri.ts';
import { bool, int, type Term, type Triple } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';
import type { RecordFact } from './facts.ts';
import type { Placer } from './placement.ts';
import type { Runs } from './runs.ts';

/**
 * Provider calls. One call is every assistant record of the session sharing a message.id,
 * in line order: they need not be adjacent (the call's own tool results often sit between its
 * fragments), so they are grouped by key, never rebuilt from parent links. Usage is the last
 * fragment's: fragments repeat (or grow) the usage, so a sum over-counts.
 *
 * A call happened once, whichever sessions hold copies of its records (a resume, a fork, a
 * session copied to another folder): its node is `LlmCall/<message.id>` in all of them, when the
 * dialect's id rules say its message id and request id name it everywhere (Claude Code: the API
 * minted both). Any other call is named only within its session.
 * What a session holds of the call (its fragments, its first line, its run) is stated in that
 * session's graph, beside its copy of the records.
 */

/** A provider call, or a synthetic message: the records the client wrote with no call behind them. */
export interface Call {
  key: string;
  node: Term;
  /** Fact indices of the fragments, in reading order. */
  fragments: number[];
  synthetic: boolean;
}

export function findCalls(ctx: ModelContext): { list: Call[]; ofFact: Map<number, Call> } {
  const { d, facts } = ctx;
  const byKey = new Map<string, Call>();
  const ofFact = new Map<number, Call>();
  facts.forEach((f, i) => {
    if (f.blocks === undefined) return; // not an assistant record
    // A record without a message id (very old files) is a call of its own.
    const key = f.messageId ?? `${ctx.streams[f.stream].name}:${f.blockKey}`;
    let call = byKey.get(key);
    if (!call)
      byKey.set(key, (call = { key, node: instanceIri(d.soul, 'LlmCall', ...callPath(ctx, f, key)), fragments: [], synthetic: false }));
    call.fragments.push(i);
    ofFact.set(i, call);
  });
  for (const call of byKey.values()) {
    call.synthetic = facts[call.fragments[call.fragments.length - 1]].synthetic === true;
    // The client wrote it: a message of its own kind, never a provider attempt (the glossary's llm.call).
    if (call.synthetic) call.node = instanceIri(d.soul, 'SyntheticMessage', ...callPath(ctx, facts[call.fragments[0]], call.key));
  }
  return { list: [...byKey.values()], ofFact };
}

/** A call's IRI path: its message id alone when its ids name it everywhere, else under the session. */
function callPath(ctx: ModelContext, f: RecordFact, key: string): string[] {
  return f.messageId !== undefined && ctx.ids.callShared(f.messageId, f.requestId) ? [key] : [ctx.d.sessionId, key];
}

export function* emitCalls(ctx: ModelContext, calls: Call[], runs: Runs, placer: Placer): Generator<Triple> {
  const { d, facts } = ctx;
  for (const [n, call] of calls.entries()) {
    yield* d.takenAt(n);
    const first = facts[call.fragments[0]];
    const last = facts[call.fragments[call.fragments.length - 1]];
    if (call.synthetic) d.typed(call.node, 'SyntheticMessage', 'exact_unique');
    else d.typed(call.node, 'LlmCall');
    d.add(call.node, weave.firstLine, int(first.line));
    d.add(call.node, weave.fragmentCount, int(call.fragments.length));
    d.link(call.node, weave.firstFragment, first.event, 'exact_unique');
    d.link(call.node, weave.lastFragment, last.event, 'exact_unique');
    if (!call.synthetic) d.add(call.node, weave.usageFinal, bool(last.stopped === true));
    for (const i of call.fragments) d.link(facts[i].event, weave.fragmentOf, call.node, 'exact_unique');

    // Fragments of one call belong to one run; if their walks disagree, each run is linked.
    const placed = new Map<string, ReturnType<Placer['of']>>();
    for (const i of call.fragments) if (runs.ofFact[i] >= 0) placed.set(runs.list[runs.ofFact[i]].key, placer.of(i));
    if (placed.size > 1) for (const p of placed.values()) d.link(call.node, weave.within, p.node, 'conflict');
    else {
      const p = placed.size ? [...placed.values()][0] : placer.of(call.fragments[0]);
      d.link(call.node, weave.within, p.node, p.evidence);
    }

    for (const i of call.fragments) {
      const f = facts[i];
      for (const block of f.blocks ?? []) {
        const node = blockIri(d.soul, f, block.order);
        if (block.kind === 'text') {
          if (call.synthetic) continue; // the client wrote it: not the agent's output
          d.typed(node, 'AssistantMessage', 'exact_unique');
        } else d.typed(node, 'Thinking', 'exact_unique'); // its Content node says whether the text was written
        d.add(node, weave.firstLine, int(f.line));
        d.link(node, weave.within, call.node, 'exact_unique');
      }
    }
  }
}

/** The IRI the spine gives a record's top-level content block. */
export function blockIri(soul: string, f: RecordFact, order: number): Term {
  return instanceIri(soul, 'ContentBlock', ...(f.blockPath ?? [f.blockKey]), order);
}
