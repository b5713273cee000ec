import { instanceIri } from '../rdf/iri.ts';
import { bool, int, num, str, type Term, type Triple } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import { blockIri, type Call } from './calls.ts';
import type { ModelContext } from './context.ts';
import type { Evidence } from './evidence.ts';
import type { ToolOutcome } from './facts.ts';
import type { Placer } from './placement.ts';

/**
 * Tool steps: a tool_use block and the tool_result block answering it, as one step, joined by
 * the exact tool use id across every file of the session (a child's result can answer nothing
 * in its parent, but ids are unique, so searching everywhere costs nothing and misses nothing).
 * Like a call, a tool use happened once: `ToolCall/<toolu_…>` in every session holding it, a
 * hand-written id under its session (by the dialect's id rules, `ctx.ids`).
 */

export interface Tool {
  id: string;
  node: Term;
  /** (fact, block order) of each tool_use block with this id; more than one is ambiguous. */
  uses: [number, number][];
  results: [number, number][];
  /** Its node is the one every session holding the tool use names (the API minted the id). */
  shared: boolean;
  /** A use of a tool that runs an agent (the dialect's fact). */
  agent?: boolean;
  /** The runtime's structured details, from the single result that carries them. */
  outcome?: ToolOutcome;
  isError?: boolean;
}

export function findTools(ctx: ModelContext): Map<string, Tool> {
  const { d, facts, ids } = ctx;
  const tools = new Map<string, Tool>();
  const tool = (id: string) => {
    let t = tools.get(id);
    if (!t) {
      const path = ids.idPath(id, d.sessionId);
      tools.set(id, (t = { id, node: instanceIri(d.soul, 'ToolCall', ...path), uses: [], results: [], shared: path.length === 1 }));
    }
    return t;
  };
  facts.forEach((f, i) => {
    for (const use of f.toolUses ?? []) {
      const t = tool(use.id);
      t.uses.push([i, use.order]);
      if (use.agent) t.agent = true;
    }
    for (const result of f.toolResults ?? []) {
      const t = tool(result.toolUseId);
      t.results.push([i, result.order]);
      if (f.outcome && !t.outcome) t.outcome = f.outcome;
      if (result.isError) t.isError = true;
    }
  });
  return tools;
}

export function* emitTools(ctx: ModelContext, tools: Map<string, Tool>, callOf: Map<number, Call>, placer: Placer): Generator<Triple> {
  const { d, facts } = ctx;
  let n = 0;
  for (const t of tools.values()) {
    yield* d.takenAt(n++);
    d.typed(t.node, 'ToolCall');
    d.add(t.node, weave.toolUseId, str(t.id));
    const anchor = t.uses[0]?.[0] ?? t.results[0][0];
    d.add(t.node, weave.firstLine, int(facts[anchor].line));

    const useEvidence: Evidence = t.uses.length > 1 ? 'exact_ambiguous' : 'exact_unique';
    for (const [i, order] of t.uses) d.link(t.node, weave.toolRequest, blockIri(d.soul, facts[i], order), useEvidence);
    // A shared node gets no placeholder from a session that holds only part of it: another may hold the rest.
    const open = (p: Term, placeholder: Term) => (t.shared ? d.gap(t.node, p, placeholder) : d.link(t.node, p, placeholder, 'unresolved'));
    if (!t.uses.length) open(weave.toolRequest, d.unresolved('tool_use', t.id));
    // The step sits in the call that asked for it; an answer to nothing sits where its result is.
    if (t.uses.length) d.link(t.node, weave.within, callOf.get(t.uses[0][0])!.node, useEvidence);
    else {
      const p = placer.of(anchor);
      d.link(t.node, weave.within, p.node, p.evidence);
    }

    const resultEvidence: Evidence = t.results.length > 1 ? 'exact_ambiguous' : 'exact_unique';
    for (const [i, order] of t.results) {
      d.link(t.node, weave.toolResponse, blockIri(d.soul, facts[i], order), resultEvidence);
      d.link(facts[i].event, weave.resultOf, t.node, resultEvidence);
    }
    if (!t.results.length) open(weave.toolResponse, d.unresolved('tool_result', t.id));
    if (t.results.length) d.add(t.node, weave.resultIsError, bool(t.isError === true));

    const o = t.outcome;
    if (!o) continue;
    if (o.status) d.add(t.node, weave.toolStatus, str(o.status));
    if (o.interrupted !== undefined) d.add(t.node, weave.interrupted, bool(o.interrupted));
    if (o.durationMs !== undefined) d.add(t.node, weave.runtimeDurationMs, num(o.durationMs));
    if (o.exitCode !== undefined) d.add(t.node, weave.toolExitCode, int(o.exitCode));
    if (o.backgroundTaskId) d.add(t.node, weave.backgroundTaskId, str(o.backgroundTaskId));
    if (o.agentId) d.add(t.node, weave.childAgentId, str(o.agentId));
    if (o.runId) d.add(t.node, weave.batchId, str(o.runId));
  }
}
