import { instanceIri } from '../rdf/iri.ts';
import { bool, int, type Term } from '../rdf/terms.ts';
import { a, weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';
import type { RecordFact } from './facts.ts';
import type { Placer } from './placement.ts';
import type { Runs } from './runs.ts';

/**
 * Provider calls. One call is every assistant record of the session sharing a message.id,
 * in line order: they need not be adjacent (the call's own tool results often sit between its
 * fragments), so they are grouped by key, never rebuilt from parent links. Usage is the last
 * fragment's: fragments repeat (or grow) the usage, so a sum over-counts.
 */

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
    if (!call) byKey.set(key, (call = { key, node: instanceIri(d.soul, 'LlmCall', d.sessionId, key), fragments: [], synthetic: false }));
    call.fragments.push(i);
    ofFact.set(i, call);
  });
  for (const call of byKey.values()) call.synthetic = facts[call.fragments[call.fragments.length - 1]].synthetic === true;
  return { list: [...byKey.values()], ofFact };
}

export function emitCalls(ctx: ModelContext, calls: Call[], runs: Runs, placer: Placer): void {
  const { d, facts } = ctx;
  for (const call of calls) {
    const first = facts[call.fragments[0]];
    const last = facts[call.fragments[call.fragments.length - 1]];
    d.add(call.node, a, weave.LlmCall);
    d.add(call.node, a, weave.Step);
    d.add(call.node, weave.firstLine, int(first.line));
    d.add(call.node, weave.fragmentCount, int(call.fragments.length));
    d.link(call.node, weave.firstFragment, first.event, 'exact_unique');
    d.link(call.node, weave.lastFragment, last.event, 'exact_unique');
    if (call.synthetic) d.link(call.node, a, weave.SyntheticMessage, 'exact_unique');
    else d.add(call.node, weave.usageFinal, bool(last.stopped === true));
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
          d.link(node, a, weave.AssistantMessage, 'exact_unique');
        } else d.link(node, a, weave.Thinking, 'exact_unique'); // its Content node says whether the text was written
        d.add(node, a, weave.Step);
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
