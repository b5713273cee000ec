import { instanceIri } from '../rdf/iri.ts';
import { int, str, type Term } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';
import type { Epochs } from './epochs.ts';
import type { Evidence } from './evidence.ts';
import type { RecordFact } from './facts.ts';

/**
 * Runs: one agent loop per (stream, promptId). Only prompts and tool results carry a promptId;
 * every other record reaches its run by walking parentUuid back, through attachments and
 * progress records, within its own stream. A stream that writes no promptIds at all (Claude
 * Code before 2.1.78) gets one run per record that opens one (a typed prompt, a command, a
 * notification), keyed by that record's uuid.
 *
 * A loop can also show in records whose walk reaches no such key: the work that goes on after a
 * compaction whose pre-compaction tail is not in the file, a chain whose parent is in another
 * session (a resumed session, an excerpt), a chain whose first record has no parent and opens
 * nothing (a file that starts mid-loop). Each such chain that holds a model response, or a tool
 * result (the answer to a model's call), is a run of its own, keyed by the record at its top,
 * with the rule that made it (`weave:runRule`) and strong_inference: no id states it, the chain's
 * structure does. A chain with neither is no loop (hooks and metadata before the first prompt):
 * its records stay in an Unresolved run.
 */

/** Guards a walk against corrupt chains: no run is searched more than this many records up. */
const MAX_HOPS = 64;

type Trigger = 'external' | 'notification' | 'unknown';

/** Why a run exists: the ontology's weave:RunRule individuals. */
type RunRule = 'byPromptId' | 'byOpeningRecord' | 'afterCompaction' | 'fromElsewhere' | 'fromChainRoot';

export interface Run {
  stream: number;
  key: string;
  node: Term;
  /** Fact indices in reading order. */
  members: number[];
  firstLine: number;
  epoch: number;
  rule: RunRule;
  trigger: Trigger;
  triggerEvidence: Evidence;
  /** Whether the records say anything at all about what started the run. */
  triggerStated: boolean;
}

export interface Runs {
  list: Run[];
  /** Index into `list` for every fact, or -1 when its walk reached no run. */
  ofFact: Int32Array;
  /** How each fact joined its run: its own key (exact), the walk (inferred), or not at all. */
  evidenceOf: Evidence[];
}

/** How sure each rule is that a loop ran: a prompt id states it; every other rule reads it from structure. */
const RULE_EVIDENCE: Record<RunRule, Evidence> = {
  byPromptId: 'exact_unique',
  byOpeningRecord: 'strong_inference',
  afterCompaction: 'strong_inference',
  fromElsewhere: 'strong_inference',
  fromChainRoot: 'strong_inference',
};

/** Where a walk that found no run stopped: the record at the top of its chain, and why it stopped there. */
interface Top {
  fact: number;
  rule: RunRule;
}

export function findRuns(ctx: ModelContext, epochs: Epochs): Runs {
  const { d, streams, facts, byUuid } = ctx;
  const keyed = new Set<number>();
  for (const f of facts) if (f.promptId) keyed.add(f.stream);
  const ownKey = (f: RecordFact): string | undefined =>
    keyed.has(f.stream) ? f.promptId : f.opensRun ? (f.uuid ?? `L${f.line}`) : undefined;

  const list: Run[] = [];
  const byKey = new Map<string, number>();
  const ofFact = new Int32Array(facts.length).fill(-2); // -2: not yet walked
  const evidenceOf: Evidence[] = new Array(facts.length);
  const topOf: (Top | undefined)[] = new Array(facts.length);
  const runFor = (f: RecordFact, key: string, i: number, rule: RunRule): number => {
    const id = `${f.stream}\u0000${key}`;
    let r = byKey.get(id);
    if (r === undefined) {
      byKey.set(id, (r = list.length));
      list.push({
        stream: f.stream,
        key,
        members: [],
        firstLine: f.line,
        epoch: epochs.ofFact[i],
        rule,
        node: instanceIri(d.soul, 'Run', d.sessionId, streams[f.stream].name, key),
        trigger: 'unknown',
        triggerEvidence: 'unresolved',
        triggerStated: false,
      });
    }
    return r;
  };

  for (let i = 0; i < facts.length; i++) {
    if (ofFact[i] !== -2) continue;
    // Walk up until a record with its own key or one already walked, then place the whole path.
    // Each record is walked once, so a walk is only as long as the records not yet placed.
    const path: number[] = [];
    const seen = new Set<number>();
    let at: number | undefined = i;
    let run = -1;
    let top: Top | undefined;
    while (at !== undefined && !seen.has(at) && path.length <= MAX_HOPS) {
      const f: RecordFact = facts[at];
      if (ofFact[at] !== -2) {
        run = ofFact[at];
        top = topOf[at];
        break;
      }
      const key = ownKey(f);
      if (key !== undefined) {
        run = runFor(f, key, at, keyed.has(f.stream) ? 'byPromptId' : 'byOpeningRecord');
        ofFact[at] = run;
        evidenceOf[at] = 'exact_unique';
        break;
      }
      seen.add(at);
      path.push(at);
      // A compaction boundary has no parent; its logical parent carries the run across the reset.
      const next: string | undefined = f.parent ?? f.logicalParent;
      const p = next !== undefined ? byUuid.get(next) : undefined;
      if (p !== undefined && facts[p].stream === f.stream) {
        at = p;
        continue;
      }
      // The top of the chain: nothing above it in this stream.
      const rule: RunRule = next === undefined ? 'fromChainRoot' : f.step === 'epoch.boundary' ? 'afterCompaction' : 'fromElsewhere';
      top = { fact: at, rule };
      at = undefined;
    }
    for (const n of path) {
      ofFact[n] = run;
      evidenceOf[n] = run >= 0 ? 'strong_inference' : 'unresolved';
      if (run < 0) topOf[n] = top;
    }
    if (ofFact[i] === -2) ofFact[i] = -1;
  }

  // The chains no key reached: each that holds a model response or a tool's result is a loop, with the run its top opens.
  const chains = new Map<number, { top: Top; members: number[]; responds: boolean }>();
  facts.forEach((f, i) => {
    const top = ofFact[i] < 0 ? topOf[i] : undefined;
    if (!top) return;
    const chain = chains.get(top.fact) ?? { top, members: [], responds: false };
    chain.members.push(i);
    if (f.blocks !== undefined || f.toolResults !== undefined) chain.responds = true;
    chains.set(top.fact, chain);
  });
  for (const { top, members, responds } of chains.values()) {
    if (!responds) continue;
    const f = facts[top.fact];
    const run = runFor(f, f.uuid ?? `L${f.line}`, top.fact, top.rule);
    for (const n of members) {
      ofFact[n] = run;
      evidenceOf[n] = 'strong_inference';
    }
  }

  facts.forEach((f, i) => {
    if (ofFact[i] < 0) return;
    const run = list[ofFact[i]];
    run.members.push(i);
    run.firstLine = Math.min(run.firstLine, f.line);
  });
  for (const run of list) {
    run.epoch = epochs.ofFact[run.members[0]];
    decideTrigger(run, facts, streams[run.stream].main);
  }
  return { list, ofFact, evidenceOf };
}

/**
 * A run's trigger is what its records state started them (their facts' origin: Claude Code's
 * origin.kind human is external, task-notification a notification, any other kind unknown).
 * A run that states none is read from its opening record: typed input is external, a
 * notification's text a notification (both inferred); with neither it stays unknown. A child
 * stream's runs say nothing of what started them unless a record states it, and neither does a
 * run that a chain's top opened: what started it is before the records.
 */
function decideTrigger(run: Run, facts: RecordFact[], main: boolean): void {
  const origins = new Set<string>();
  for (const i of run.members) if (facts[i].origin) origins.add(facts[i].origin!);
  run.triggerStated = origins.size > 0;
  [run.trigger, run.triggerEvidence] = triggerOf(run, facts, main, origins);
}

function triggerOf(run: Run, facts: RecordFact[], main: boolean, origins: Set<string>): [Trigger, Evidence] {
  if (origins.has('external')) return ['external', 'exact_unique'];
  if (origins.has('notification')) return ['notification', 'exact_unique'];
  if (origins.size) return ['unknown', 'exact_unique'];
  // A child's prompt comes from the call that started it, which no child record states.
  if (!main || (run.rule !== 'byPromptId' && run.rule !== 'byOpeningRecord')) return ['unknown', 'unresolved'];
  const opener = run.members
    .map((i) => facts[i])
    .find((f) => f.opensRun || f.step === 'message.external' || f.step === 'runtime.notification');
  if (opener?.step === 'runtime.notification') return ['notification', 'strong_inference'];
  if (opener) return ['external', 'strong_inference'];
  return ['unknown', 'unresolved'];
}

export function emitRuns(ctx: ModelContext, runs: Runs): void {
  const { d } = ctx;
  for (const run of runs.list) {
    d.typed(run.node, 'Run');
    d.add(run.node, weave.runKey, str(run.key));
    d.add(run.node, weave.firstLine, int(run.firstLine));
    d.link(run.node, weave.runRule, weave[run.rule], RULE_EVIDENCE[run.rule]);
    d.link(run.node, weave.trigger, weave[run.trigger], run.triggerEvidence);
  }
}
