import { cutNote, fit, terminalWidth, type Column, type TableRow } from '../query/fit.ts';
import type { Block } from '../usage/blocks.ts';
import { loadPrices, type PriceTable } from '../usage/prices.ts';
import { preparedReport, readPreparedUsage } from '../usage/prepared.ts';
import type { ModelBreakdown, ReportExtras, ReportKind, ReportOptions, Totals, UsageReport } from '../usage/report.ts';
import { readManifest } from '../store/manifest.ts';
import { CliError, COMMON_HELP, parse, requireStore, storeDir } from './options.ts';

const HELP = `usage: weave usage [daily|weekly|monthly|session|blocks] [options]

Tokens and cost in USD per day (the default), week, month, session or 5-hour block, summed from
each session's API calls as ingest prepared them (a store from before they were, by SPARQL over
its session graphs). Each API call counts once (keyed by message.id and requestId), with the
usage of its last fragment: Claude Code writes a call as several records that repeat and grow
its usage, so output tokens are those of the last record, not the first (ccusage takes the
first, and reports less output). Cost is from data/prices.json (USD per million tokens: input,
output, cache writes, cache reads). Days are UTC. --json writes ccusage's JSON shape.

options:
  --since DATE       from this day on (YYYYMMDD or YYYY-MM-DD)
  --until DATE       up to this day
  --model TEXT       only models whose id contains TEXT (e.g. opus)
  --project TEXT     only sessions whose project folder name contains TEXT
  --breakdown        a row per model under each period
  --order asc|desc   oldest first or newest first (default as ccusage: sessions newest first,
                     the rest oldest first)
  --start-of-week D  weekly: the day weeks start on (default sunday)
  --session-length H blocks: hours in a block (default 5)
  --json             ccusage's JSON: { daily|weekly|monthly|sessions: [...], totals } or { blocks }
  --wide             print every column in full, whatever the terminal's width
${COMMON_HELP}
`;

const KINDS: ReportKind[] = ['daily', 'weekly', 'monthly', 'session', 'blocks'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export async function main(args: string[]): Promise<number> {
  const asked = request(args);
  if (!asked) {
    process.stdout.write(HELP);
    return 0;
  }
  const [manifest, prices] = await Promise.all([requireStore(asked.dir), loadPrices()]);
  const prepared = await readPreparedUsage(asked.dir, manifest);
  const answer = prepared
    ? preparedReport(prepared, asked.kind, prices, asked.options)
    : await fromGraphs(asked.dir, asked.kind, prices, asked.options);
  return write(answer, asked);
}

/**
 * The report from the store's prepared rows, without tsx (src/cli/launch.mjs runs a compiled
 * copy of this module, and names the price table, which the copy cannot find beside itself);
 * undefined when the full command must answer: help, an option it must explain, no store, or
 * sessions without current prepared rows.
 */
export async function answerQuickly(args: string[], pricesFile: URL): Promise<number | undefined> {
  let answer: { report: UsageReport; extras: ReportExtras } | undefined;
  let asked: Request | undefined;
  try {
    asked = request(args);
    const manifest = asked && (await readManifest(asked.dir));
    const prepared = asked && manifest && (await readPreparedUsage(asked.dir, manifest));
    if (asked && prepared) answer = preparedReport(prepared, asked.kind, await loadPrices(pricesFile), asked.options);
  } catch {
    return undefined; // the full command says what is wrong, in its words
  }
  return answer && asked ? write(answer, asked) : undefined;
}

interface Request {
  kind: ReportKind;
  options: ReportOptions;
  dir: string;
  json: boolean;
  wide: boolean;
  breakdown: boolean;
}

/** The report asked for; undefined for --help. */
function request(args: string[]): Request | undefined {
  const { values, positionals } = parse(args, {
    since: { type: 'string' },
    until: { type: 'string' },
    model: { type: 'string' },
    project: { type: 'string' },
    breakdown: { type: 'boolean' },
    order: { type: 'string' },
    'start-of-week': { type: 'string' },
    'session-length': { type: 'string' },
    json: { type: 'boolean' },
    wide: { type: 'boolean' },
  });
  if (values.help) return undefined;
  if (positionals.length > 1) throw new CliError(`give one report: ${KINDS.join(', ')}`, 2);
  const kind = (positionals[0] ?? 'daily') as ReportKind;
  if (!KINDS.includes(kind)) throw new CliError(`unknown report "${positionals[0]}": give one of ${KINDS.join(', ')}`, 2);
  const order = values.order;
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw new CliError('--order must be asc or desc', 2);
  const startOfWeek = DAYS.indexOf((values['start-of-week'] ?? 'sunday').toLowerCase());
  if (startOfWeek < 0) throw new CliError(`--start-of-week must be a day name (${DAYS.join(', ')})`, 2);
  const sessionLength = values['session-length'] === undefined ? 5 : Number(values['session-length']);
  if (!(sessionLength > 0)) throw new CliError('--session-length must be a positive number of hours', 2);
  const options: ReportOptions = {
    since: day(values.since, '--since'),
    until: day(values.until, '--until'),
    model: values.model,
    project: values.project,
    order,
    startOfWeek,
    sessionLength,
  };
  return { kind, options, dir: storeDir(values), json: !!values.json, wide: !!values.wide, breakdown: !!values.breakdown };
}

async function write({ report, extras }: { report: UsageReport; extras: ReportExtras }, asked: Request): Promise<number> {
  const text = asked.json
    ? `${JSON.stringify(report, null, 2)}\n`
    : render(report, extras.titles, { breakdown: asked.breakdown, width: asked.wide ? Number.POSITIVE_INFINITY : terminalWidth() });
  await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  if (!asked.json)
    for (const model of extras.unpriced)
      process.stderr.write(`weave usage: no price for ${model} in data/prices.json; its calls are counted at $0\n`);
  return 0;
}

/**
 * A store whose sessions lack prepared rows (ingested before they were): SPARQL over its session
 * graphs, loaded here. Imported by a name esbuild does not follow, so the compiled copy that
 * answers quickly (launch.mjs) holds no Oxigraph nor SPARQL parser; that copy never calls it.
 */
const GRAPHS = '../usage/graphs.ts';
async function fromGraphs(dir: string, kind: ReportKind, prices: PriceTable, options: ReportOptions) {
  const { graphsReport } = (await import(GRAPHS)) as typeof import('../usage/graphs.ts');
  return graphsReport(dir, kind, prices, options);
}

/** YYYYMMDD (as ccusage takes it) or YYYY-MM-DD, as YYYY-MM-DD. */
function day(text: string | undefined, option: string): string | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  if (!m || Number.isNaN(Date.parse(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`)))
    throw new CliError(`${option} must be a date, YYYYMMDD or YYYY-MM-DD, not "${text}"`, 2);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

const num = (n: number) => n.toLocaleString('en');
const usd = (n: number) => `$${n.toFixed(2)}`;
/** claude-opus-4-5-20251101 → opus-4-5 (a family); with `dated`, opus-4-5-20251101. */
const shortModel = (m: string, dated = false) => (dated ? m : m.replace(/-\d{8}$/, '')).replace(/^claude-/, '');
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

function render(report: UsageReport, titles: Map<string, string>, options: RenderOptions): string {
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
    { head: 'Duration', drop: 4 },
    { head: 'Models', shrink: true, drop: 5 },
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
  const { lines, cut } = fit(columns, rows, width);
  return `${lines.join('\n')}\n${footnote(width)}${cut ? `(${cutNote(width)})\n` : ''}`;
}

/** What the figures are, in as much of a line as the terminal has. */
function footnote(width: number): string {
  const full = 'Each API call once, with the usage of its last fragment; prices from data/prices.json (UTC days).';
  return `${width >= full.length ? full : 'Each API call once; last fragment; data/prices.json.'}\n`;
}
