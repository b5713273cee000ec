import { blocksOf, type Block, type CallRow } from './blocks.ts';
import { priceOf, type PriceTable } from './prices.ts';
import { usageQuery, type UsageFilter } from './query.ts';

/**
 * `weave usage` reports in ccusage's JSON shapes (daily, weekly, monthly, session, blocks; field
 * names as ccusage 18 writes them), so scripts written for it keep working. The figures come
 * from the SPARQL in query.ts (graphs.ts), or the same solutions summed from prepared rows (prepared.ts); weeks are folded from days, and 5-hour blocks from calls, here.
 */

export interface ModelBreakdown {
  modelName: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  cost: number;
}

export interface Figures {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  totalTokens: number;
  totalCost: number;
  modelsUsed: string[];
  modelBreakdowns: ModelBreakdown[];
}

export interface Totals {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  totalCost: number;
  totalTokens: number;
}

export type DailyEntry = { date: string } & Figures;
type WeeklyEntry = { week: string } & Figures;
type MonthlyEntry = { month: string } & Figures;
export type SessionEntry = {
  sessionId: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  totalTokens: number;
  totalCost: number;
  lastActivity: string;
  modelsUsed: string[];
  modelBreakdowns: ModelBreakdown[];
  projectPath: string;
};

export type UsageReport =
  | { daily: DailyEntry[]; totals: Totals }
  | { weekly: WeeklyEntry[]; totals: Totals }
  | { monthly: MonthlyEntry[]; totals: Totals }
  | { sessions: SessionEntry[]; totals: Totals }
  | { blocks: Block[] };

export type ReportKind = 'daily' | 'weekly' | 'monthly' | 'session' | 'blocks';

export interface ReportOptions extends UsageFilter {
  order?: 'asc' | 'desc';
  /** Day weeks start on, 0 = Sunday (ccusage's default) … 6 = Saturday. */
  startOfWeek?: number;
  /** Hours in a block (default 5). */
  sessionLength?: number;
  /** "Now", for whether a block is still active. */
  now?: Date;
}

/** What a report also needs to say: the session titles, and models the price table lacks. */
export interface ReportExtras {
  titles: Map<string, string>;
  unpriced: string[];
}

/** A solution as plain values. */
export type Row = Record<string, string>;

/**
 * The SPARQL a report is answered by. `--model` is left to reportFromRows: each row is one model's
 * (or one call's), so keeping the rows whose model matches is the same filter, and Virtuoso 7.2
 * answered a FILTER on the sub-select's ?model with other models' figures.
 */
export function reportQuery(kind: ReportKind, prices: PriceTable, options: ReportOptions = {}): string {
  const grouping = kind === 'blocks' ? 'call' : kind === 'monthly' ? 'month' : kind === 'session' ? 'session' : 'day';
  return usageQuery(grouping, { ...callsFilter(kind, options), model: undefined }, prices);
}

/**
 * The calls a report is made of. `--since` and `--until` choose blocks by the day they start (as
 * ccusage does), so blocks are drawn from every call and chosen after: a block begun before
 * midnight keeps its calls after it, and no block starts at a midnight where none began.
 */
export function callsFilter(kind: ReportKind, options: UsageFilter): UsageFilter {
  return kind === 'blocks' ? { ...options, since: undefined, until: undefined } : options;
}

/** A report from the solutions of `reportQuery` (run over the graphs, by a server's query worker, or summed from prepared rows). */
export function reportFromRows(
  kind: ReportKind,
  rows: Row[],
  prices: PriceTable,
  options: ReportOptions = {},
): { report: UsageReport; extras: ReportExtras } {
  const { model } = options;
  if (model !== undefined) rows = rows.filter((r) => r.model.includes(model));
  // As ccusage: oldest first, but sessions newest first.
  const order = options.order ?? (kind === 'session' ? 'desc' : 'asc');
  const titles = new Map<string, string>();
  const unpriced = new Set<string>();
  const noteModel = (model: string) => {
    if (!priceOf(prices, model)) unpriced.add(model);
  };
  if (kind === 'blocks') {
    const calls: CallRow[] = rows.map((r) => {
      noteModel(r.model);
      return {
        time: new Date(r.time),
        model: r.model,
        input: +r.in,
        output: +r.out,
        cacheCreation: +r.cw,
        cacheRead: +r.cr,
        cost: +r.cost,
      };
    });
    const blocks = blocksOf(calls, options.sessionLength ?? 5, options.now ?? new Date());
    const kept = blocks.filter((b) => inRange(b.startTime.slice(0, 10), options));
    return { report: { blocks: sortBy(kept, (b) => b.startTime, order) }, extras: { titles, unpriced: [...unpriced].sort() } };
  }

  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    noteModel(row.model);
    const key = kind === 'weekly' ? weekOf(row.period, options.startOfWeek ?? 0) : row.period;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(row);
    if (kind === 'session' && row.title) titles.set(row.period, row.title);
  }
  const entries = [...groups].map(([key, group]) => ({ key, group, figures: figuresOf(group) }));
  const totals = totalsOf(entries.map((e) => e.figures));
  const extras = { titles, unpriced: [...unpriced].sort() };
  // Days, weeks and months are keyed by the period itself, which is also their order.
  const byPeriod = sortBy(entries, (e) => e.key, order);
  switch (kind) {
    case 'daily':
      return { report: { daily: byPeriod.map((e) => ({ date: e.key, ...e.figures })), totals }, extras };
    case 'weekly':
      return { report: { weekly: byPeriod.map((e) => ({ week: e.key, ...e.figures })), totals }, extras };
    case 'monthly':
      return { report: { monthly: byPeriod.map((e) => ({ month: e.key, ...e.figures })), totals }, extras };
    case 'session': {
      const sessions = entries.map(({ key, group, figures: f }): SessionEntry => {
        const last = group
          .map((r) => r.lastTime)
          .sort()
          .pop()!;
        return {
          sessionId: key,
          inputTokens: f.inputTokens,
          outputTokens: f.outputTokens,
          cacheCreationTokens: f.cacheCreationTokens,
          cacheReadTokens: f.cacheReadTokens,
          totalTokens: f.totalTokens,
          totalCost: f.totalCost,
          lastActivity: last.slice(0, 10),
          modelsUsed: f.modelsUsed,
          modelBreakdowns: f.modelBreakdowns,
          projectPath: group[0].project ?? 'Unknown Project',
        };
      });
      // ccusage orders sessions by last activity; ties by id keep the order stable.
      const ordered = sortBy(sessions, (s) => `${s.lastActivity} ${s.sessionId}`, order);
      return { report: { sessions: ordered, totals }, extras };
    }
  }
}

/**
 * Costs are whole hundred-millionths of a dollar (cents per million tokens × tokens / 1e8), so
 * they are summed as integers of that unit: no float noise in the totals.
 */
const UNITS = 1e8;
const units = (usd: number) => Math.round(usd * UNITS);
const addUsd = (values: number[]) => values.reduce((n, v) => n + units(v), 0) / UNITS;

/** One period's figures from its rows (one or more per model); breakdowns by cost, highest first. */
function figuresOf(rows: Row[]): Figures {
  const byModel = new Map<string, ModelBreakdown>();
  for (const r of rows) {
    const m = byModel.get(r.model) ?? {
      modelName: r.model,
      inputTokens: 0,
      outputTokens: 0,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
      cost: 0,
    };
    m.inputTokens += +r.input;
    m.outputTokens += +r.output;
    m.cacheCreationTokens += +r.cacheCreation;
    m.cacheReadTokens += +r.cacheRead;
    m.cost = addUsd([m.cost, +r.cost]);
    byModel.set(r.model, m);
  }
  const modelBreakdowns = [...byModel.values()].sort((a, b) => b.cost - a.cost || a.modelName.localeCompare(b.modelName));
  const sum = (f: (m: ModelBreakdown) => number) => modelBreakdowns.reduce((n, m) => n + f(m), 0);
  const inputTokens = sum((m) => m.inputTokens);
  const outputTokens = sum((m) => m.outputTokens);
  const cacheCreationTokens = sum((m) => m.cacheCreationTokens);
  const cacheReadTokens = sum((m) => m.cacheReadTokens);
  return {
    inputTokens,
    outputTokens,
    cacheCreationTokens,
    cacheReadTokens,
    totalTokens: inputTokens + outputTokens + cacheCreationTokens + cacheReadTokens,
    totalCost: addUsd(modelBreakdowns.map((m) => m.cost)),
    modelsUsed: modelBreakdowns.map((m) => m.modelName).sort(),
    modelBreakdowns,
  };
}

function totalsOf(figures: Omit<Totals, 'totalTokens'>[]): Totals {
  const sum = (f: (t: Omit<Totals, 'totalTokens'>) => number) => figures.reduce((n, t) => n + f(t), 0);
  const t = {
    inputTokens: sum((f) => f.inputTokens),
    outputTokens: sum((f) => f.outputTokens),
    cacheCreationTokens: sum((f) => f.cacheCreationTokens),
    cacheReadTokens: sum((f) => f.cacheReadTokens),
    totalCost: addUsd(figures.map((f) => f.totalCost)),
  };
  return { ...t, totalTokens: t.inputTokens + t.outputTokens + t.cacheCreationTokens + t.cacheReadTokens };
}

/** The first day (YYYY-MM-DD) of the week holding `day`, weeks starting on `startDay` (0 = Sunday). */
function weekOf(day: string, startDay: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  const shift = (date.getUTCDay() - startDay + 7) % 7;
  date.setUTCDate(date.getUTCDate() - shift);
  return date.toISOString().slice(0, 10);
}

function inRange(day: string, f: UsageFilter): boolean {
  return (!f.since || day >= f.since) && (!f.until || day <= f.until);
}

function sortBy<T>(items: T[], key: (item: T) => string, order: 'asc' | 'desc'): T[] {
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return order === 'desc' ? sorted.reverse() : sorted;
}
