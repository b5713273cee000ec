import { instanceIri } from '../rdf/iri.ts';
import { jsonLiteral } from '../rdf/json.ts';
import { int, str, type Term } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { Call } from './calls.ts';
import type { ModelContext } from './context.ts';
import type { Evidence } from './evidence.ts';
import type { BatchJournal } from './facts.ts';
import type { Placer } from './placement.ts';
import type { Tool } from './tools.ts';

/**
 * Child streams and the calls that start them. A child is joined to its call by ids the runtime
 * wrote: the launch result's agentId, the child's sidecar toolUseId, agent_progress records.
 * A batch's children (a Claude Code workflow's) are joined through the batch: the launch result
 * names the batch, and the children's sources and the batch's journal name its children; no
 * record ties one child to the call, so that join is an inference. A child nothing starts, or a
 * child announced and never written, ends at an explicit Unresolved node.
 */

function addTo<K>(map: Map<K, Set<string>>, key: K, id: string): void {
  const ids = map.get(key);
  if (ids) ids.add(id);
  else map.set(key, new Set([id]));
}

interface Start {
  from: Term;
  evidence: Evidence;
}

export function emitAgents(ctx: ModelContext, tools: Map<string, Tool>, calls: Call[], placer: Placer): void {
  const { d, streams, facts } = ctx;
  const byAgent = new Map<string, number>();
  for (const s of streams) if (!s.main && s.source.agentId) byAgent.set(s.source.agentId, s.index);
  const journals = ctx.batches;

  // Exact joins: child stream → the tool use ids naming it; an agent id with no file → the same.
  const exact = new Map<number, Set<string>>();
  const announced = new Map<string, Set<string>>();
  const join = (agentId: string, toolUseId: string) => {
    const s = byAgent.get(agentId);
    if (s !== undefined) addTo(exact, s, toolUseId);
    else addTo(announced, agentId, toolUseId);
  };
  for (const t of tools.values()) if (t.outcome?.agentId) join(t.outcome.agentId, t.id);
  for (const s of streams) if (s.metaToolUseId && s.source.agentId) join(s.source.agentId, s.metaToolUseId);
  for (const f of facts) if (f.agentProgress) join(f.agentProgress.agentId, f.agentProgress.toolUseId);

  // Batches: a workflow run's launching calls and its children (folder and journal).
  const launchers = new Map<string, string[]>();
  for (const t of tools.values()) if (t.outcome?.runId) launchers.set(t.outcome.runId, [...(launchers.get(t.outcome.runId) ?? []), t.id]);
  const batchOf = new Map<number, string>();
  for (const s of streams) if (s.source.batch) batchOf.set(s.index, s.source.batch);
  for (const j of journals)
    for (const agentId of j.started) {
      const s = byAgent.get(agentId);
      if (s !== undefined && !batchOf.has(s)) batchOf.set(s, j.batch);
    }

  const toolNode = (id: string): Term => tools.get(id)?.node ?? d.unresolved('spawn_call', id);
  const batchCalls = (batch: string): Term[] => launchers.get(batch)?.map(toolNode) ?? [d.unresolved('spawn_call', batch)];
  const agentCalls = new Map<Term, Evidence>();
  const startsOf = new Map<number, Start[]>();
  const start = (from: Term, to: Term, evidence: Evidence, stream?: number) => {
    d.link(from, weave.starts, to, evidence);
    if (!agentCalls.has(from)) agentCalls.set(from, evidence === 'unresolved' ? 'exact_unique' : evidence);
    if (stream !== undefined) startsOf.set(stream, [...(startsOf.get(stream) ?? []), { from, evidence }]);
  };

  for (const s of streams) {
    if (s.main) continue;
    const ids = exact.get(s.index);
    const batch = batchOf.get(s.index);
    if (batch) d.add(s.node, weave.batchId, str(batch));
    if (ids?.size)
      for (const id of ids) start(toolNode(id), s.node, ids.size > 1 ? 'conflict' : tools.has(id) ? 'exact_unique' : 'unresolved', s.index);
    else if (batch)
      for (const from of batchCalls(batch)) start(from, s.node, launchers.has(batch) ? 'strong_inference' : 'unresolved', s.index);
    // A compaction summariser is started by no call: it is joined to its compaction (compactions.ts).
    else if (!s.summariser) start(d.unresolved('spawn_of_child', s.name), s.node, 'unresolved', s.index);
  }
  for (const [agentId, ids] of announced) for (const id of ids) start(toolNode(id), d.unresolved('child_stream', agentId), 'unresolved');
  for (const j of journals)
    for (const agentId of j.started)
      if (!byAgent.has(agentId)) for (const from of batchCalls(j.batch)) start(from, d.unresolved('child_stream', agentId), 'unresolved');
  const real = new Set([...tools.values()].map((t) => t.node));
  for (const [call, evidence] of agentCalls) if (real.has(call)) d.typed(call, 'AgentCall', evidence);
  // The glossary's agent.call is the tool's use itself: joined to a child or not (the join is `starts`).
  for (const t of tools.values()) if (t.agent && !agentCalls.has(t.node)) d.typed(t.node, 'AgentCall', 'exact_unique');

  emitOutputs(ctx, calls, journals, startsOf, placer);
  emitNotifications(ctx, tools, byAgent, startsOf);
}

/** A child's final output: its last real response, plus what the workflow journal says it returned. */
function emitOutputs(ctx: ModelContext, calls: Call[], journals: BatchJournal[], startsOf: Map<number, Start[]>, placer: Placer): void {
  const { d, streams, facts } = ctx;
  const lastCall = new Map<number, Call>();
  for (const call of calls) if (!call.synthetic) lastCall.set(facts[call.fragments[0]].stream, call);
  const returned = new Map<string, unknown>();
  for (const j of journals) for (const [agentId, value] of j.results) returned.set(agentId, value);

  for (const s of streams) {
    if (s.main) continue;
    const call = lastCall.get(s.index);
    const agentId = s.source.agentId;
    const value = agentId !== undefined ? returned.get(agentId) : undefined;
    if (!call && value === undefined) continue;
    const output = instanceIri(d.soul, 'AgentOutput', d.sessionId, s.name);
    d.typed(output, 'AgentOutput');
    d.link(s.node, weave.endsWith, output, 'exact_unique');
    if (value !== undefined) d.add(output, weave.returnedValue, jsonLiteral(value));
    if (call) {
      const last = call.fragments[call.fragments.length - 1];
      d.add(output, weave.firstLine, int(facts[last].line));
      d.link(output, weave.outputCall, call.node, 'exact_unique');
      const p = placer.of(last);
      d.link(output, weave.within, p.node, p.evidence);
    } else {
      // Only the journal knows the output: it sits in the stream's runless part.
      const first = facts.findIndex((f) => f.stream === s.index);
      if (first >= 0) {
        const p = placer.of(first);
        d.link(output, weave.within, p.node, p.evidence);
      }
    }
    for (const { from, evidence } of startsOf.get(s.index) ?? []) d.link(output, weave.resultOf, from, evidence);
  }
}

/**
 * What a notification reports: the child or background task its <task-id> names (exact), else
 * the tool use its <tool-use-id> names, and through it the child that tool started (inferred).
 */
function emitNotifications(
  ctx: ModelContext,
  tools: Map<string, Tool>,
  byAgent: Map<string, number>,
  startsOf: Map<number, Start[]>,
): void {
  const { d, streams, facts } = ctx;
  const byTask = new Map<string, Tool>();
  for (const t of tools.values()) if (t.outcome?.backgroundTaskId) byTask.set(t.outcome.backgroundTaskId, t);
  const startedBy = new Map<Term, number[]>();
  for (const [stream, starts] of startsOf) for (const { from } of starts) startedBy.set(from, [...(startedBy.get(from) ?? []), stream]);

  for (const f of facts) {
    if (f.step !== 'runtime.notification') continue;
    const { taskId, toolUseId } = f.notification ?? {};
    const child = taskId !== undefined ? byAgent.get(taskId) : undefined;
    const task = taskId !== undefined ? byTask.get(taskId) : undefined;
    const tool = toolUseId !== undefined ? tools.get(toolUseId) : undefined;
    if (child !== undefined) d.link(f.event, weave.reports, streams[child].node, 'exact_unique');
    else if (task) d.link(f.event, weave.reports, task.node, 'exact_unique');
    else if (tool && startedBy.has(tool.node))
      for (const s of startedBy.get(tool.node)!) d.link(f.event, weave.reports, streams[s].node, 'strong_inference');
    else if (tool) d.link(f.event, weave.reports, tool.node, 'exact_unique');
    else d.link(f.event, weave.reports, d.unresolved('notified_child', taskId ?? toolUseId ?? f.blockKey), 'unresolved');
  }
}
