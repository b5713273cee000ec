import { weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';
import type { Evidence } from './evidence.ts';
import type { RecordFact } from './facts.ts';

/**
 * Compaction summarisers and the compactions they produced. A runtime may run a compaction's
 * summary as a separate stream (Claude Code: `agent-acompact-<hex>.jsonl`) that no tool call
 * starts; the main stream then lands an epoch boundary and the epoch summary carrying the text.
 * A summariser (a stream its dialect gives the role) is joined to that summary record
 * (`produces`) by what proves it:
 * - exact: its final summary body stands verbatim in the summary record's text, or its
 *   records' parentUuid names the boundary's logicalParentUuid (both name the pre-compaction tail);
 *   when the two proofs name different summaries, both are linked as a conflict;
 * - strong inference: with no such proof, the first boundary after its last record, when the
 *   conversation did not go on in between and no other summariser ended closer to it;
 * - otherwise an explicit Unresolved summary. A summary claimed by several summarisers is ambiguous.
 */

/**
 * Which summary records hold each summariser's body verbatim (Claude Code rewrites the tags into
 * headings and adds a preamble, but keeps the body as written). Texts are compared here and
 * dropped; only fact indices go on. `bodies`: summariser stream → the summary body of its last
 * response that has one; `summaries`: summary record's fact index → its text.
 */
export function summaryTextMatches(bodies: Map<number, string>, summaries: Map<number, string>): Map<number, number[]> {
  const matches = new Map<number, number[]>();
  for (const [stream, body] of bodies) {
    const found = [...summaries].filter(([, text]) => text.includes(body)).map(([fact]) => fact);
    if (found.length) matches.set(stream, found);
  }
  return matches;
}

interface Claim {
  summary: number;
  evidence: Evidence;
}

export function emitCompactions(ctx: ModelContext): void {
  const { d, streams, facts, byUuid } = ctx;
  const summarisers = streams.filter((s) => s.summariser).map((s) => s.index);
  if (!summarisers.length) return;

  // Each boundary's summary: the epoch.summary whose parent it is.
  const summaryOf = new Map<number, number>();
  const boundaries: number[] = [];
  facts.forEach((f, i) => {
    if (f.step === 'epoch.boundary') boundaries.push(i);
    if (f.step !== 'epoch.summary' || f.parent === undefined) return;
    const b = byUuid.get(f.parent);
    if (b !== undefined && facts[b].step === 'epoch.boundary' && !summaryOf.has(b)) summaryOf.set(b, i);
  });
  const byTail = new Map<string, number[]>();
  for (const b of boundaries) {
    const tail = facts[b].logicalParent;
    if (tail !== undefined) byTail.set(tail, [...(byTail.get(tail) ?? []), b]);
  }

  // The summariser's own uuids, what its records point at outside it, and when it ended.
  const own = new Map<number, Set<string>>();
  const anchors = new Map<number, Set<string>>();
  const ended = new Map<number, number>();
  for (const s of summarisers) {
    own.set(s, new Set());
    anchors.set(s, new Set());
  }
  for (const f of facts) {
    if (!own.has(f.stream)) continue;
    if (f.uuid) own.get(f.stream)!.add(f.uuid);
    if (f.time !== undefined && f.time > (ended.get(f.stream) ?? -Infinity)) ended.set(f.stream, f.time);
  }
  for (const f of facts) if (f.parent && own.has(f.stream) && !own.get(f.stream)!.has(f.parent)) anchors.get(f.stream)!.add(f.parent);

  const claims = new Map<number, Claim[]>();
  for (const s of summarisers) {
    const byText = new Set(ctx.summaryMatches.get(s) ?? []);
    const byId = new Set<number>();
    for (const tail of anchors.get(s)!) for (const b of byTail.get(tail) ?? []) if (summaryOf.has(b)) byId.add(summaryOf.get(b)!);
    const agreed = [...byText].filter((i) => byId.has(i));
    let found: Claim[];
    if (byText.size && byId.size && !agreed.length) found = [...byText, ...byId].map((summary) => ({ summary, evidence: 'conflict' }));
    else {
      const exact = agreed.length ? agreed : [...byText, ...byId];
      found = exact.map((summary) => ({ summary, evidence: exact.length > 1 ? 'exact_ambiguous' : 'exact_unique' }));
    }
    if (!found.length) {
      const next = nextBoundary(ctx, s, ended, boundaries, summaryOf, summarisers);
      if (next !== undefined) found = [{ summary: next, evidence: 'strong_inference' }];
    }
    claims.set(s, found);
  }

  // One compaction has one summariser: a summary two of them claim at the same level is ambiguous.
  const claimants = new Map<number, number>();
  for (const found of claims.values())
    for (const c of found) if (c.evidence !== 'conflict') claimants.set(c.summary, (claimants.get(c.summary) ?? 0) + 1);
  for (const s of summarisers) {
    const found = claims.get(s)!;
    for (const { summary, evidence } of found) {
      const shared = evidence === 'exact_unique' && claimants.get(summary)! > 1;
      d.link(streams[s].node, weave.produces, facts[summary].event, shared ? 'exact_ambiguous' : evidence);
    }
    if (!found.length) d.link(streams[s].node, weave.produces, d.unresolved('epoch_summary', streams[s].name), 'unresolved');
  }
}

/**
 * The structural join: the first boundary landing at or after the summariser's last record, when
 * the conversation of the boundary's stream did not move on in between (no response, tool result,
 * typed input or notification; the compaction's own hooks may run) and no other summariser ends
 * closer to it. The boundary is written once the summary is back, so that boundary is the one
 * this summariser's run ended in.
 */
function nextBoundary(
  ctx: ModelContext,
  s: number,
  ended: Map<number, number>,
  boundaries: number[],
  summaryOf: Map<number, number>,
  summarisers: number[],
): number | undefined {
  const { facts } = ctx;
  const end = ended.get(s);
  if (end === undefined) return undefined;
  let next: number | undefined;
  for (const b of boundaries) {
    const t = facts[b].time;
    if (t !== undefined && t >= end && (next === undefined || t < facts[next].time!)) next = b;
  }
  if (next === undefined || !summaryOf.has(next)) return undefined;
  const at = facts[next].time!;
  const summary = summaryOf.get(next)!;
  const stream = facts[next].stream;
  const between = facts.some((f) => f.stream === stream && f.time !== undefined && f.time > end && f.time < at && movesOn(f));
  const closer = summarisers.some((o) => o !== s && (ended.get(o) ?? -Infinity) > end && ended.get(o)! <= at);
  return between || closer ? undefined : summary;
}

/** A record that shows the conversation going on: a response, a tool result, input from outside. */
function movesOn(f: RecordFact): boolean {
  return f.blocks !== undefined || f.toolResults !== undefined || f.step === 'message.external' || f.step === 'runtime.notification';
}
