import { instancePath } from '../rdf/iri.ts';
import { RDF, termText, TextOnce, unsliced, XSD } from '../rdf/terms.ts';
import { WEAVE_NS } from '../rdf/vocab.ts';
import { subAgentTitle } from '../model/session-title.ts';

/**
 * A session's usage rows: what `weave usage` reads of a session graph, gathered from its triples
 * (N-Triples terms, in any order) as the usage SPARQL (query.ts) would bind them in that graph.
 * One row per copy of an API call (a call's last fragment) with the largest figures its graph
 * gives, and the transcripts holding it; across sessions the rows are merged by call (prepared.ts).
 */

/** One API call as one session graph holds it. */
export interface CallRow {
  /** `<message.id> <requestId>`, as ccusage keys calls (else the call's IRI after the soul). */
  key: string;
  /** The largest model id, <synthetic> left out. */
  model: string;
  /** The latest timestamp of its last fragment, as written. */
  time: string;
  in: number;
  out: number;
  cw: number;
  /** The one-hour part of `cw`: 0 where the record did not split its cache writes. */
  ch: number;
  cr: number;
  /** The transcripts holding the last fragment, as indices into the session's `places`. */
  at: number[];
}

/** Where a transcript puts the calls it holds: its session id, and project folder where it names its file. */
export interface Place {
  session: string;
  project?: string;
}

/** A session id's project folder (the smallest) and title (the largest main transcript's, or sub-agent's where the main file is absent; "" for none), as this graph says them. */
export interface SessionFacts {
  project: string;
  title: string;
}

export interface SessionUsage {
  places: Place[];
  calls: CallRow[];
  sessions: Record<string, SessionFacts>;
}

const W = (name: string) => `<${WEAVE_NS}${name}>`;
const TYPE = `<${RDF}type>`;
/** The terms the collector matches, as N-Triples, made once (not per triple). */
const T = Object.fromEntries(
  [
    'LlmCall',
    'SyntheticMessage',
    'fileAbsent',
    'hasEvent',
    'hasUsage',
    'lastFragment',
    'messageId',
    'model',
    'parentTranscript',
    'requestId',
    'sessionId',
    'sourcePath',
    'timestamp',
    'title',
  ].map((n) => [n, W(n)]),
) as Record<
  | 'LlmCall'
  | 'SyntheticMessage'
  | 'fileAbsent'
  | 'hasEvent'
  | 'hasUsage'
  | 'lastFragment'
  | 'messageId'
  | 'model'
  | 'parentTranscript'
  | 'requestId'
  | 'sessionId'
  | 'sourcePath'
  | 'timestamp'
  | 'title',
  string
>;
const INTEGER = `^^<${XSD}integer>`;
const COUNTS: Record<string, Count> = {
  [W('inputTokens')]: 'in',
  [W('outputTokens')]: 'out',
  [W('cacheCreationInputTokens')]: 'cw',
  [W('cacheCreation1hInputTokens')]: 'ch',
  [W('cacheReadInputTokens')]: 'cr',
};

const COUNT_NAMES = ['in', 'out', 'cw', 'ch', 'cr'] as const;
type Count = (typeof COUNT_NAMES)[number];
type Counts = Record<Count, number>;

/**
 * What a fragment (any event: most state only their time) says: the largest model but
 * <synthetic> and the latest time as they come (all a call takes of them), the rest in the order
 * stated, one value kept without a list. Every event has one, so it is kept small.
 */
class Fragment {
  model?: string = undefined;
  time?: string = undefined;
  usages?: OneOrMore = undefined;
  messageIds?: OneOrMore = undefined;
  requestIds?: OneOrMore = undefined;
}

type OneOrMore = string | string[];
const add = (had: OneOrMore | undefined, value: string): OneOrMore =>
  had === undefined ? value : typeof had === 'string' ? [had, value] : (had.push(value), had);
const all = (values: OneOrMore | undefined): string[] | undefined => (typeof values === 'string' ? [values] : values);
/** Of what was kept and a new value, the one `pick` keeps (the first on a tie), the new one as a string of its own. */
const kept = (had: string | undefined, value: string, pick: (a: string, b: string) => string): string =>
  had !== undefined && pick(had, value) === had ? had : unsliced(value);

interface Transcript {
  sessions: string[];
  paths: string[];
  titles: string[];
  /** The main transcript, for a sub-agent's. */
  parent?: string;
}

export class UsageCollector {
  private readonly calls = new Set<string>();
  private readonly synthetic = new Set<string>();
  private readonly lasts = new Map<string, OneOrMore>();
  private readonly fragments = new Map<string, Fragment>();
  private readonly usages = new Map<string, Partial<Counts>>();
  private readonly holders = new Map<string, OneOrMore>();
  /** Each IRI's text once, however many maps hold it (an event's is a key of three). */
  private readonly iris = new TextOnce();
  private readonly transcripts = new Map<string, Transcript>();
  /** Main transcripts whose file is absent: a sub-agent's title is the session's (model/session-title.ts). */
  private readonly absent = new Set<string>();
  private readonly places: Place[] = [];
  private readonly placeIndex = new Map<string, number>();

  triple(s: string, p: string, o: string): void {
    const count = COUNTS[p];
    if (count) {
      // A count is a whole number: one a transcript wrote otherwise (1e400, 1.5) is kept in the graph, not counted.
      let u = this.usages.get(s);
      if (!u) this.usages.set(this.iris.of(s), (u = {}));
      u[count] = Math.max(u[count] ?? Number.NEGATIVE_INFINITY, o.endsWith(INTEGER) ? Number(termText(o)) : 0);
      return;
    }
    switch (p) {
      case TYPE:
        if (o === T.LlmCall) this.calls.add(this.iris.of(s));
        else if (o === T.SyntheticMessage) this.synthetic.add(this.iris.of(s));
        break;
      case T.lastFragment: {
        const call = this.iris.of(s);
        this.lasts.set(call, add(this.lasts.get(call), this.iris.of(o)));
        break;
      }
      case T.model: {
        const model = termText(o);
        if (model === '<synthetic>') break;
        const f = this.fragment(s);
        f.model = kept(f.model, model, larger);
        break;
      }
      case T.timestamp: {
        const f = this.fragment(s);
        f.time = kept(f.time, termText(o), later);
        break;
      }
      case T.hasUsage: {
        const f = this.fragment(s);
        f.usages = add(f.usages, this.iris.of(o));
        break;
      }
      case T.messageId: {
        const f = this.fragment(s);
        f.messageIds = add(f.messageIds, unsliced(termText(o)));
        break;
      }
      case T.requestId: {
        const f = this.fragment(s);
        f.requestIds = add(f.requestIds, unsliced(termText(o)));
        break;
      }
      case T.hasEvent: {
        const event = this.iris.of(o);
        this.holders.set(event, add(this.holders.get(event), this.iris.of(s)));
        break;
      }
      case T.sessionId:
        this.transcript(s).sessions.push(termText(o));
        break;
      case T.sourcePath:
        this.transcript(s).paths.push(termText(o));
        break;
      case T.title:
        this.transcript(s).titles.push(termText(o));
        break;
      case T.parentTranscript:
        this.transcript(s).parent = unsliced(o);
        break;
      case T.fileAbsent:
        this.absent.add(unsliced(s));
        break;
    }
  }

  done(): SessionUsage {
    const calls: CallRow[] = [];
    for (const call of this.calls) {
      if (this.synthetic.has(call)) continue;
      for (const last of all(this.lasts.get(call)) ?? []) {
        const fragment = this.fragments.get(last);
        const usages = all(fragment?.usages);
        const { model, time } = fragment ?? {};
        if (time === undefined || !usages || model === undefined) continue;
        const at = this.holdersOf(last);
        if (!at.length) continue;
        const counts = { in: 0, out: 0, cw: 0, ch: 0, cr: 0 };
        for (const k of COUNT_NAMES)
          counts[k] = Math.max(...usages.map((u) => (this.usages.get(u)?.[k] ?? Number.NEGATIVE_INFINITY) as number).map(orZero));
        // No message.id: the call's IRI after the soul, as the SPARQL of query.ts keys it.
        const ids = all(fragment!.messageIds) ?? [instancePath(termText(call)) ?? termText(call)];
        const requests = all(fragment!.requestIds) ?? [''];
        for (const id of ids) for (const rid of requests) calls.push({ key: `${id} ${rid}`, model, time, ...counts, at });
      }
    }
    return { places: this.places, calls, sessions: this.sessionFacts() };
  }

  /** The transcripts that hold an event and say their session id: the call's session and project. */
  private holdersOf(event: string): number[] {
    const at: number[] = [];
    for (const transcript of all(this.holders.get(event)) ?? []) {
      const t = this.transcripts.get(transcript);
      if (!t) continue;
      for (const session of t.sessions) {
        if (!t.paths.length) at.push(this.place({ session }));
        for (const path of t.paths) at.push(this.place({ session, project: projectOfPath(path) }));
      }
    }
    return [...new Set(at)];
  }

  private place(p: Place): number {
    const id = JSON.stringify(p);
    let index = this.placeIndex.get(id);
    if (index === undefined) {
      this.placeIndex.set(id, (index = this.places.length));
      this.places.push(p);
    }
    return index;
  }

  private sessionFacts(): Record<string, SessionFacts> {
    const facts: Record<string, SessionFacts> = {};
    for (const t of this.transcripts.values()) {
      if (!t.paths.length) continue;
      const own = t.titles.length ? t.titles.reduce(larger) : '';
      const title = t.parent === undefined ? own : own && this.absent.has(t.parent) ? subAgentTitle(own) : '';
      const project = t.paths.map(projectOfPath).reduce(smaller);
      for (const session of t.sessions) {
        const had = facts[session];
        facts[session] = had ? { project: smaller(had.project, project), title: larger(had.title, title) } : { project, title };
      }
    }
    return facts;
  }

  private fragment(iri: string): Fragment {
    let f = this.fragments.get(iri);
    if (!f) this.fragments.set(this.iris.of(iri), (f = new Fragment()));
    return f;
  }

  private transcript(iri: string): Transcript {
    let t = this.transcripts.get(iri);
    if (!t) this.transcripts.set(unsliced(iri), (t = { sessions: [], paths: [], titles: [] }));
    return t;
  }
}

/** A count the usage node does not state is 0 (the query's COALESCE). */
const orZero = (n: number) => (n === Number.NEGATIVE_INFINITY ? 0 : n);

/** Strings in code point order, as SPARQL's MIN and MAX compare them (JavaScript's < compares UTF-16 units). */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    // Only a surrogate (half of a code point past U+FFFF) against U+E000–U+FFFF orders otherwise by code point.
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}
const codePointRank = (unit: number) => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit);
export const larger = (a: string, b: string) => (compareText(a, b) >= 0 ? a : b);
export const smaller = (a: string, b: string) => (compareText(a, b) <= 0 ? a : b);

/**
 * Timestamps in time order, as SPARQL orders xsd:dateTime values (a zone-less one read as UTC);
 * equal instants, and text that is no date, by their text.
 */
export function compareTime(a: string, b: string): number {
  // Times written alike (2026-02-16T18:46:55.028Z, as Claude Code writes them) order as their text.
  if (a.length === b.length && a.endsWith('Z') && b.endsWith('Z') && a[19] === b[19] && a[0] !== '-' && b[0] !== '-')
    return compareText(a, b);
  const x = instant(a);
  const y = instant(b);
  if (!Number.isNaN(x) && !Number.isNaN(y) && x !== y) return x - y;
  return compareText(a, b);
}
export const later = (a: string, b: string) => (compareTime(a, b) >= 0 ? a : b);

function instant(time: string): number {
  return Date.parse(/(Z|[+-]\d\d:\d\d)$/.test(time) ? time : `${time}Z`);
}

/**
 * The project of a transcript: Claude Code's project folder, the one its file sits in, or for a
 * sub-agent's file (<project>/<session>/subagents/…) the one above the session's folder
 * (query.ts's PROJECT_OF_PATH, in JavaScript).
 */
export function projectOfPath(path: string): string {
  return path.includes('/subagents/')
    ? path.replace(/^(.*\/)?([^/]+)\/[^/]+\/subagents\/.*$/, '$2')
    : path.replace(/^(.*\/)?([^/]+)\/[^/]+$/, '$2');
}
