import { soulOf } from '../rdf/iri.ts';
import { SessionCopies } from '../store/remote/copies.ts';
import type { PriceTable } from './prices.ts';
import {
  type Figures,
  reportFromRows,
  reportQuery,
  type ReportExtras,
  type ReportOptions,
  type Row,
  type SessionEntry,
  type Totals,
} from './report.ts';

/**
 * `weave usage --by person|project`: the session report folded into one row per person or per
 * project, for a store several machines feed. A person is a soul: the machine identity whose
 * graphs hold the sessions (urn:soul:<soul>:…), named by the user and machine its session graphs
 * say wrote them (weave:osUser, weave:hostName). A store held here is all one soul.
 */

export type Grouping = 'person' | 'project';
export const GROUPINGS: Grouping[] = ['person', 'project'];

/**
 * Each session's soul, who wrote it where a graph says (an external store's), and how far its
 * copy was read (its transcripts' bytes): a row per transcript, the writer's names on each.
 */
export const OWNERS_QUERY = `SELECT ?g ?id ?t ?bytes ?user ?host WHERE { GRAPH ?g { ?s a weave:Session ; dcterms:identifier ?id .
  ?t weave:sessionId ?id . OPTIONAL { ?t weave:byteLength ?bytes }
  OPTIONAL { ?s prov:wasAttributedTo ?agent . ?agent weave:osUser ?user ; weave:hostName ?host } } }`;

export interface Owner {
  soul: string;
  /** `user@host`, where the session graph names them. */
  who?: string;
}

/**
 * Session id → its owner, from the solutions of OWNERS_QUERY. A session two souls hold (both read
 * it, or one read more of it) is the soul's whose copy conversation and search read: the one read
 * furthest, then the first by graph name (store/remote/copies.ts).
 */
export function ownersOf(rows: Record<string, string>[]): Map<string, Owner> {
  const copies = new SessionCopies<Owner>();
  for (const row of rows) {
    const soul = soulOf(row.g ?? '');
    if (!soul || !row.id) continue;
    const copy = copies.add(row.id, row.g, () => ({ soul }), row.t, Number(row.bytes ?? 0));
    if (row.user && row.host) copy.who = `${row.user}@${row.host}`;
  }
  return new Map([...copies.preferred()].map(([id, { data }]) => [id, data]));
}

/** A person's or a project's figures: a report's, summed over their sessions (no per-model breakdown). */
export interface GroupEntry extends Omit<Figures, 'modelBreakdowns'> {
  /** The soul, or the project folder's name. */
  key: string;
  /** A person's `user@host`s (several when a soul wrote from more than one). */
  who?: string[];
  sessions: number;
  lastActivity: string;
}

export type GroupReport = { persons: GroupEntry[]; totals: Totals } | { projects: GroupEntry[]; totals: Totals };

/** Costs summed as whole hundred-millionths of a dollar, as report.ts sums them. */
const UNITS = 1e8;

/** The sessions' figures, one entry per person or project, most costly first (ties by name). */
export function groupSessions(sessions: SessionEntry[], totals: Totals, by: Grouping, owners: Map<string, Owner>): GroupReport {
  const groups = new Map<string, GroupEntry & { units: number; people: Set<string> }>();
  for (const s of sessions) {
    const owner = owners.get(s.sessionId);
    const key = by === 'person' ? (owner?.soul ?? 'unknown') : s.projectPath;
    let g = groups.get(key);
    if (!g)
      groups.set(
        key,
        (g = {
          key,
          sessions: 0,
          inputTokens: 0,
          outputTokens: 0,
          cacheCreationTokens: 0,
          cacheReadTokens: 0,
          totalTokens: 0,
          totalCost: 0,
          modelsUsed: [],
          lastActivity: '',
          units: 0,
          people: new Set(),
        }),
      );
    g.sessions++;
    g.inputTokens += s.inputTokens;
    g.outputTokens += s.outputTokens;
    g.cacheCreationTokens += s.cacheCreationTokens;
    g.cacheReadTokens += s.cacheReadTokens;
    g.totalTokens += s.totalTokens;
    g.units += Math.round(s.totalCost * UNITS);
    g.modelsUsed = [...new Set([...g.modelsUsed, ...s.modelsUsed])].sort();
    if (s.lastActivity > g.lastActivity) g.lastActivity = s.lastActivity;
    if (owner?.who) g.people.add(owner.who);
  }
  const entries = [...groups.values()]
    .map(
      ({ units, people, ...g }): GroupEntry => ({
        ...g,
        totalCost: units / UNITS,
        ...(by === 'person' ? { who: [...people].sort() } : {}),
      }),
    )
    .sort((x, y) => y.totalCost - x.totalCost || x.key.localeCompare(y.key));
  return by === 'person' ? { persons: entries, totals } : { projects: entries, totals };
}

/** The report `--by` asks for: the session report and each session's owner, from `select` (the store's answers), folded. */
export async function groupedReport(
  select: (query: string) => Promise<Row[]>,
  by: Grouping,
  prices: PriceTable,
  options: ReportOptions,
): Promise<{ report: GroupReport; extras: ReportExtras }> {
  const { report, extras } = reportFromRows('session', await select(reportQuery('session', prices, options)), prices, options);
  const { sessions, totals } = report as { sessions: SessionEntry[]; totals: Totals };
  const owners = by === 'person' ? ownersOf(await select(OWNERS_QUERY)) : new Map<string, Owner>();
  return { report: groupSessions(sessions, totals, by, owners), extras };
}
