import { instanceIri } from '../rdf/iri.ts';
import { dateTime, int, str, type Term } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';
import type { Evidence } from './evidence.ts';
import type { Talk } from './talks.ts';

/**
 * Segments: windows of activity that could each be committed on their own. Only the main stream
 * is cut, where it stood idle for at least the policy's gap (ten minutes) between two records
 * that state a time; a negative gap (the runtime writes some records out of time order) is no
 * gap. Records that state no time stay in the window they sit in. The last window is `open` (it
 * can still grow), the earlier ones `candidate`; nothing commits one yet. Every talk belongs to
 * one window: a main-stream talk to the one its first record sits in (exact, by position), a
 * child stream's talk to the one its first record's time falls in (strong inference, by time).
 */

const SEGMENT_POLICY = 'v1+idle=10m0s';
const IDLE_GAP_MS = 10 * 60 * 1000;

interface Segment {
  node: Term;
  /** First line of the main stream in the window (1 when the session has no main stream). */
  firstLine: number;
  from?: number;
  until?: number;
}

export function findSegments(ctx: ModelContext): Segment[] {
  const { d, streams, facts } = ctx;
  const main = streams.find((s) => s.main)?.index;
  const segments: Segment[] = [];
  const open = (firstLine: number) => {
    const s: Segment = { node: instanceIri(d.soul, 'Segment', d.sessionId, segments.length + 1), firstLine };
    segments.push(s);
    return s;
  };
  let current: Segment | undefined;
  let last: number | undefined;
  for (const f of facts) {
    // Without a main stream there is nothing to cut: the session is one window.
    if (main !== undefined && f.stream !== main) continue;
    if (!current) current = open(main === undefined ? 1 : f.line);
    if (f.time === undefined) continue;
    if (last !== undefined && f.time - last >= IDLE_GAP_MS) current = open(f.line);
    last = f.time;
    current.from ??= f.time;
    current.until = f.time;
  }
  // A session with no records at all still has its one (empty) window.
  if (!segments.length) open(1);
  return segments;
}

export function emitSegments(ctx: ModelContext, segments: Segment[], conversation: Term, talks: Talk[]): void {
  const { d, streams, facts } = ctx;
  segments.forEach((s, i) => {
    d.typed(s.node, 'Segment');
    d.add(s.node, weave.firstLine, int(s.firstLine));
    d.add(s.node, weave.segmentPolicy, str(SEGMENT_POLICY));
    d.add(s.node, weave.segmentState, str(i === segments.length - 1 ? 'open' : 'candidate'));
    if (s.from !== undefined) d.add(s.node, weave.activeFrom, dateTime(new Date(s.from).toISOString()));
    if (s.until !== undefined) d.add(s.node, weave.activeUntil, dateTime(new Date(s.until).toISOString()));
    d.link(s.node, weave.inConversation, conversation, 'exact_unique');
  });
  for (const talk of talks) {
    const [segment, evidence] = streams[talk.stream].main ? byPosition(segments, talk) : byTime(segments, talk, facts);
    d.link(talk.node, weave.inSegment, segment.node, evidence);
  }
}

/** A main-stream talk sits in the window its first record sits in. */
function byPosition(segments: Segment[], talk: Talk): [Segment, Evidence] {
  const line = talk.runs[0].firstLine;
  let found = segments[0];
  for (const s of segments) if (s.firstLine <= line) found = s;
  return [found, 'exact_unique'];
}

/**
 * A child's talk joins the window its first timed record falls in: the last one that began at or
 * before it. A child that states no time at all is placed in the open window, plausibly.
 */
function byTime(segments: Segment[], talk: Talk, facts: ModelContext['facts']): [Segment, Evidence] {
  let time: number | undefined;
  for (const run of talk.runs)
    for (const i of run.members) if (facts[i].time !== undefined && (time === undefined || facts[i].time! < time)) time = facts[i].time;
  if (time === undefined) return [segments[segments.length - 1], 'weak_inference'];
  let found = segments[0];
  for (const s of segments) if (s.from !== undefined && s.from <= time) found = s;
  return [found, 'strong_inference'];
}
