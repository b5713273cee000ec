import { CliError, COMMON_HELP, outputWidth, parse, storeDir, WIDE_HELP, WIDE_OPTION } from '../cli/options.ts';
import { cutNote, fit, type Column, type TableRow } from '../query/fit.ts';
import type { FoundServer } from '../store/running.ts';
import type { Block } from '../usage/blocks.ts';
import { shortModel } from '../usage/prices.ts';
import type { ModelBreakdown, ReportExtras, ReportKind, ReportOptions, Totals, UsageReport } from '../usage/report.ts';
import { REPORT_KINDS, ReportRequestError, reportRequest, type ReportWords } from '../usage/request.ts';
import { GROUPINGS, type GroupReport, type Grouping } from '../usage/groups.ts';
import { NO_DAEMON_HELP, noDaemon } from './daemon.ts';
import type { Printed, ServedCommand } from './served.ts';
import { askServer } from './server.ts';

/**
 * `weave usage` without the store: its arguments, its tables, and its report from a server
 * (`/usage`, the same query and the same fold as cli/usage.ts runs on the store opened here).
 */

export const USAGE_HELP = `usage: weave usage [daily|weekly|monthly|session|blocks] [options]

Tokens and cost in USD per day (the default), week, month, session or 5-hour block, answered by
SPARQL over the store. Each API call counts once (keyed by message.id and requestId), with the
usage of its last fragment: Claude Code writes a call as several records that repeat and grow
its usage, so output tokens are those of the last record, not the first (ccusage takes the
first, and reports less output). Cost is from data/prices.json (USD per million tokens: input,
output, cache writes at the 5-minute or, where Claude Code says so, the one-hour rate, cache
reads). Days are UTC. --json writes ccusage's JSON shape.

options:
  --since DATE       from this day on (YYYYMMDD or YYYY-MM-DD)
  --until DATE       up to this day (blocks: those starting on these days, whole)
  --model TEXT       only models whose id contains TEXT (e.g. opus)
  --project TEXT     only sessions whose project folder name contains TEXT
  --by person|project  one row per person (a soul: the machine identity that wrote
                       the sessions into a store several machines feed, with its
                       user@host) or per project, from the session report; asked of the
                       store itself
  --breakdown        a row per model under each period
  --order asc|desc   oldest first or newest first (default as ccusage: sessions newest first,
                     the rest oldest first)
  --start-of-week D  weekly: the day weeks start on (default sunday)
  --session-length H blocks: hours in a block (default 5)
  --json             ccusage's JSON: { daily|weekly|monthly|sessions: [...], totals } or { blocks }
${WIDE_HELP}
${NO_DAEMON_HELP}
${COMMON_HELP}
`;

export interface UsageRequest {
  storeDir: string;
  kind: ReportKind;
  options: ReportOptions;
  /** The words the options were read from, as a server is sent them. */
  words: Record<string, string>;
  json: boolean;
  breakdown: boolean;
  wide: boolean;
  noDaemon: boolean;
  /** `--by person|project`: the session report folded into one row per person or project. */
  by?: Grouping;
}

export async function parseUsageArgs(args: string[]): Promise<UsageRequest | undefined> {
  const { values, positionals } = parse(args, {
    since: { type: 'string' },
    until: { type: 'string' },
    model: { type: 'string' },
    project: { type: 'string' },
    by: { type: 'string' },
    breakdown: { type: 'boolean' },
    order: { type: 'string' },
    'start-of-week': { type: 'string' },
    'session-length': { type: 'string' },
    json: { type: 'boolean' },
    ...WIDE_OPTION,
    'no-daemon': { type: 'boolean' },
  });
  if (values.help) return undefined;
  if (positionals.length > 1) throw new CliError(`give one report: ${REPORT_KINDS.join(', ')}`, 2);
  const named: ReportWords = {
    report: positionals[0],
    since: values.since,
    until: values.until,
    model: values.model,
    project: values.project,
    order: values.order,
    'start-of-week': values['start-of-week'],
    'session-length': values['session-length'],
  };
  // Only the words given: a server applies the same defaults.
  const words = Object.fromEntries(Object.entries(named).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const by = values.by as Grouping | undefined;
  if (by !== undefined && !GROUPINGS.includes(by)) throw new CliError(`--by must be ${GROUPINGS.join(' or ')}, not "${by}"`, 2);
  if (by && positionals[0] && positionals[0] !== 'session')
    throw new CliError(`--by folds the session report; it takes no ${positionals[0]} report`, 2);
  try {
    return {
      storeDir: storeDir(values),
      ...reportRequest(by ? { ...words, report: 'session' } : words),
      ...(by && { by }),
      // A server folds by person or project as the command does (/usage?by=).
      words: by ? { ...words, by } : words,
      json: !!values.json,
      breakdown: !!values.breakdown,
      wide: !!values.wide,
      noDaemon: noDaemon(values),
    };
  } catch (e) {
    if (e instanceof ReportRequestError) throw new CliError(e.message, 2);
    throw e;
  }
}

/** What `weave usage` prints for a report. */
export function usageText(request: UsageRequest, report: UsageReport, extras: ReportExtras): Printed {
  if (request.json) return { stdout: `${JSON.stringify(report, null, 2)}\n`, form: 'code' };
  const width = outputWidth(request);
  return {
    stdout: render(report, extras.titles, { breakdown: request.breakdown, width }),
    notes: extras.unpriced.map((model) => `weave usage: no price for ${model} in data/prices.json; its calls are counted at $0\n`).join(''),
  };
}

/** What `weave usage --by person|project` prints. */
export function groupsText(request: UsageRequest, report: GroupReport, extras: ReportExtras): Printed {
  if (request.json) return { stdout: `${JSON.stringify(report, null, 2)}\n`, form: 'code' };
  const persons = 'persons' in report;
  const entries = persons ? report.persons : report.projects;
  const notes = extras.unpriced
    .map((model) => `weave usage: no price for ${model} in data/prices.json; its calls are counted at $0\n`)
    .join('');
  if (!entries.length) return { stdout: 'no API calls in the store for these options\n', notes };
  const columns: Column[] = [
    { head: persons ? 'Soul' : 'Project', shrink: true },
    ...(persons ? [{ head: 'Who', shrink: true, drop: 0 }] : []),
    { head: 'Sessions', align: 'right' },
    { head: 'Models', shrink: true, drop: 4 },
    ...TOKEN_COLUMNS,
    { head: 'Last Activity', drop: 5 },
  ];
  const rows: TableRow[] = entries.map((e) => [
    e.key,
    ...(persons ? [(e.who ?? []).join(', ')] : []),
    num(e.sessions),
    families(e.modelsUsed),
    ...tokenCells(e, e.totalCost),
    e.lastActivity,
  ]);
  const t = report.totals;
  const sessions = entries.reduce((n, e) => n + e.sessions, 0);
  rows.push('rule', ['Total', ...(persons ? [''] : []), num(sessions), '', ...tokenCells(t, t.totalCost), '']);
  return { stdout: table(columns, rows, outputWidth(request)), notes };
}

/** The report as a server's `/usage` answers it: the report, the session titles, the models without a price. */
export interface ServedReport {
  report: UsageReport;
  titles: Record<string, string>;
  unpriced: string[];
}

export const USAGE: ServedCommand<UsageRequest> = {
  name: 'usage',
  parse: parseUsageArgs,
  storeDir: (request) => request.storeDir,
  answersHere: (request) => request.noDaemon,
  async ask(server: FoundServer, request) {
    const { text } = await askServer(server, `usage?${new URLSearchParams(request.words)}`, { headers: { accept: 'application/json' } });
    const served = JSON.parse(text) as ServedReport;
    const extras = { titles: new Map(Object.entries(served.titles)), unpriced: served.unpriced };
    return request.by ? groupsText(request, served.report as unknown as GroupReport, extras) : usageText(request, served.report, extras);
  },
};

const num = (n: number) => n.toLocaleString('en');
const usd = (n: number) => `$${n.toFixed(2)}`;
const families = (models: string[]) => [...new Set(models.map((m) => shortModel(m)))].join(', ');

const TOKEN_COLUMNS: Column[] = [
  { head: 'Input', align: 'right' },
  { head: 'Output', align: 'right' },
  { head: 'Cache Create', align: 'right', drop: 1 },
  { head: 'Cache Read', align: 'right', drop: 2 },
  { head: 'Total Tokens', align: 'right', drop: 3 },
  { head: 'Cost (USD)', align: 'right' },
];

interface Counted {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
}

const tokenCells = (f: Counted, cost: number) => [
  num(f.inputTokens),
  num(f.outputTokens),
  num(f.cacheCreationTokens),
  num(f.cacheReadTokens),
  num(f.inputTokens + f.outputTokens + f.cacheCreationTokens + f.cacheReadTokens),
  usd(cost),
];

interface RenderOptions {
  breakdown: boolean;
  width: number;
}

export function render(report: UsageReport, titles: Map<string, string>, options: RenderOptions): string {
  if ('blocks' in report) return renderBlocks(report.blocks, options.width);
  const [label, entries] =
    'daily' in report
      ? ['Date', report.daily.map((e) => ({ key: e.date, ...e }))]
      : 'weekly' in report
        ? ['Week', report.weekly.map((e) => ({ key: e.week, ...e }))]
        : 'monthly' in report
          ? ['Month', report.monthly.map((e) => ({ key: e.month, ...e }))]
          : ['Session', report.sessions.map((e) => ({ key: e.sessionId, ...e }))];
  if (!entries.length) return 'no API calls in the store for these options\n';
  const sessions = 'sessions' in report;
  const columns: Column[] = [
    { head: label, shrink: sessions },
    ...(sessions
      ? [
          { head: 'Title', shrink: true },
          { head: 'Project', shrink: true, drop: 0 },
        ]
      : []),
    { head: 'Models', shrink: true, drop: 4 },
    ...TOKEN_COLUMNS,
    ...(sessions ? [{ head: 'Last Activity', drop: 5 }] : []),
  ];
  const rows: TableRow[] = [];
  for (const e of entries) {
    const s = 'sessionId' in e ? e : undefined;
    const lead = s ? [e.key, titles.get(e.key) ?? '', s.projectPath] : [e.key];
    rows.push([...lead, families(e.modelsUsed), ...tokenCells(e, e.totalCost), ...(s ? [s.lastActivity] : [])]);
    if (options.breakdown) rows.push(...e.modelBreakdowns.map((m: ModelBreakdown) => breakdownRow(m, lead.length, !!s)));
  }
  const totals: Totals = report.totals;
  rows.push('rule', ['Total', ...(sessions ? ['', ''] : []), '', ...tokenCells(totals, totals.totalCost), ...(sessions ? [''] : [])]);
  return table(columns, rows, options.width);
}

/** A model's share of a period, named in the first column so it survives narrow terminals. */
function breakdownRow(m: ModelBreakdown, lead: number, sessions: boolean): string[] {
  return [`  └ ${shortModel(m.modelName, true)}`, ...Array(lead - 1).fill(''), '', ...tokenCells(m, m.cost), ...(sessions ? [''] : [])];
}

function renderBlocks(blocks: Block[], width: number): string {
  if (!blocks.length) return 'no API calls in the store for these options\n';
  const columns: Column[] = [
    { head: 'Block Start (UTC)' },
    // Never left out: it alone tells a gap ("gap 3d 2h 00m") and the active block from a block.
    { head: 'Duration' },
    { head: 'Models', shrink: true, drop: 4 },
    ...TOKEN_COLUMNS,
  ];
  const rows: TableRow[] = blocks.map((b) => {
    const start = b.startTime.slice(0, 16).replace('T', ' ');
    if (b.isGap) return [start, `gap ${duration(b.startTime, b.endTime)}`, '', '', '', '', '', '', ''];
    const t = b.tokenCounts;
    const counted = {
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cacheCreationTokens: t.cacheCreationInputTokens,
      cacheReadTokens: t.cacheReadInputTokens,
    };
    const span = b.isActive ? `active, ${duration(b.startTime, new Date().toISOString())}` : duration(b.startTime, b.actualEndTime!);
    return [start, span, families(b.models), ...tokenCells(counted, b.costUSD)];
  });
  const used = blocks.filter((b) => !b.isGap);
  const sum = (f: (b: Block) => number) => used.reduce((n, b) => n + f(b), 0);
  rows.push('rule', [
    'Total',
    `${used.length} blocks`,
    '',
    ...tokenCells(
      {
        inputTokens: sum((b) => b.tokenCounts.inputTokens),
        outputTokens: sum((b) => b.tokenCounts.outputTokens),
        cacheCreationTokens: sum((b) => b.tokenCounts.cacheCreationInputTokens),
        cacheReadTokens: sum((b) => b.tokenCounts.cacheReadInputTokens),
      },
      sum((b) => b.costUSD),
    ),
  ]);
  return table(columns, rows, width);
}

function duration(from: string, to: string): string {
  const minutes = Math.round((Date.parse(to) - Date.parse(from)) / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  return `${days ? `${days}d ` : ''}${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
}

function table(columns: Column[], rows: TableRow[], width: number): string {
  const { lines, cut, hidden } = fit(columns, rows, width);
  return `${lines.join('\n')}\n${footnote(width)}${cut ? `(${cutNote(width, hidden)})\n` : ''}`;
}

/** What the figures are, in as much of a line as the terminal has. */
function footnote(width: number): string {
  const full = 'Each API call once, with the usage of its last fragment; prices from data/prices.json (UTC days).';
  return `${width >= full.length ? full : 'Each API call once; last fragment; data/prices.json.'}\n`;
}
