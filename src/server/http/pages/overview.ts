import { shortModel } from '../../../usage/prices.ts';
import type { DailyEntry, Totals } from '../../../usage/report.ts';
import { page, queryLink, topBar } from './chrome.ts';
import { describeHref, escapeHtml, usd } from './html.ts';

/**
 * /overview: the store at a glance, every figure aggregated by SPARQL on the server (one query
 * per panel, each linked to the query page). Numbers are written into tables beside the charts,
 * so they can be read, copied and checked; the charts (Chart.js, served from node_modules) are
 * drawn from the same figures by overview.js.
 */

export interface OverviewSession {
  id: string;
  /** The session's main transcript, whose page is the session page. */
  transcript: string;
  title?: string;
  project?: string;
  start?: string;
  end?: string;
  turns: number;
  calls: number;
  tokens: number;
  cost: number;
}

export interface ToolRow {
  name: string;
  calls: number;
  errors: number;
  failureRate: number;
}

export interface OverviewData {
  daily: DailyEntry[];
  totals: Totals;
  sessions: OverviewSession[];
  tools: ToolRow[];
  servers: ToolRow[];
  compactions: { day: string; kind: string; count: number }[];
  files: { path: string; edits: number; sessions: number }[];
  queries: Record<'usage' | 'sessions' | 'tools' | 'servers' | 'compactions' | 'files', string>;
  unpriced: string[];
  /** The store's emitter notice, when another Weave built its graphs: the figures are that Weave's. */
  built?: string;
  millis: number;
}

const n = (v: number) => v.toLocaleString('en');
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const cell = (text: string, value?: number | string, cls = 'n') =>
  `<td class="${cls}"${value === undefined ? '' : ` data-value="${escapeHtml(String(value))}"`}>${escapeHtml(text)}</td>`;

function section(id: string, title: string, query: string, body: string): string {
  return `<section id="${id}" class="panel"><h2>${escapeHtml(title)} <small>${queryLink(query)}</small></h2>${body}</section>`;
}

function usagePanel(d: OverviewData): string {
  const rows = d.daily.flatMap((day) =>
    day.modelBreakdowns.map(
      (m) =>
        `<tr data-day="${escapeHtml(day.date)}" data-model="${escapeHtml(m.modelName)}">${cell(day.date, undefined, 'day')}${cell(m.modelName, undefined, 'model')}${cell(n(m.inputTokens), m.inputTokens)}${cell(n(m.outputTokens), m.outputTokens)}${cell(n(m.cacheCreationTokens), m.cacheCreationTokens)}${cell(n(m.cacheReadTokens), m.cacheReadTokens)}${cell(n(m.inputTokens + m.outputTokens + m.cacheCreationTokens + m.cacheReadTokens))}${cell(usd(m.cost), m.cost)}</tr>`,
    ),
  );
  const t = d.totals;
  const unpriced = d.unpriced.length
    ? `<p class="note">No price in data/prices.json for ${d.unpriced.map(escapeHtml).join(', ')}: counted at $0.</p>`
    : '';
  return section(
    'usage',
    'Tokens and cost per day, per model',
    d.queries.usage,
    `<p class="about">Each API call once, with the usage of its last fragment; days in UTC; prices from data/prices.json. The same figures as <code>weave usage daily --json</code>.</p>${unpriced}
<div class="charts"><figure><figcaption>cost (USD) per day</figcaption><canvas id="chart-cost" height="220"></canvas></figure><figure><figcaption>tokens per day</figcaption><canvas id="chart-tokens" height="220"></canvas></figure></div>
<details class="figures" ${rows.length <= 40 ? 'open' : ''}><summary>${rows.length} day × model rows</summary>
<table id="usage-table" class="data"><thead><tr><th>day</th><th>model</th><th>input</th><th>output</th><th>cache writes</th><th>cache reads</th><th>total tokens</th><th>cost</th></tr></thead>
<tbody>${rows.join('\n')}</tbody>
<tfoot><tr id="usage-totals">${cell('total', undefined, 'day')}${cell('')}${cell(n(t.inputTokens), t.inputTokens)}${cell(n(t.outputTokens), t.outputTokens)}${cell(n(t.cacheCreationTokens), t.cacheCreationTokens)}${cell(n(t.cacheReadTokens), t.cacheReadTokens)}${cell(n(t.totalTokens), t.totalTokens)}${cell(usd(t.totalCost), t.totalCost)}</tr></tfoot></table></details>`,
  );
}

function sessionsPanel(d: OverviewData): string {
  const rows = d.sessions.map(
    (s) =>
      `<tr><td data-value="${escapeHtml(s.title ?? s.id)}"><a href="${escapeHtml(describeHref(s.transcript))}">${escapeHtml(s.title || '(untitled)')}</a><br><code>${escapeHtml(s.id)}</code> · <a class="conversation-link" href="/conversation/${escapeHtml(encodeURIComponent(s.id))}">conversation</a></td>${cell(s.project ?? '', s.project ?? '', '')}${cell((s.start ?? '').slice(0, 16).replace('T', ' '), s.start ?? '', 'time')}${cell((s.end ?? '').slice(0, 16).replace('T', ' '), s.end ?? '', 'time')}${cell(n(s.turns), s.turns)}${cell(n(s.calls), s.calls)}${cell(n(s.tokens), s.tokens)}${cell(usd(s.cost), s.cost)}</tr>`,
  );
  return section(
    'sessions',
    `Sessions with turns (${d.sessions.length})`,
    d.queries.sessions,
    `<p class="tools-row"><input id="session-filter" type="search" placeholder="filter by title, project or id" aria-label="filter sessions"> <span class="muted">click a heading to sort</span></p>
<div class="scroll"><table id="sessions-table" class="data sortable"><thead><tr><th data-sort="text">session</th><th data-sort="text">project</th><th data-sort="text">started</th><th data-sort="text">last record</th><th data-sort="num">turns</th><th data-sort="num">API calls</th><th data-sort="num">tokens</th><th data-sort="num">cost</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`,
  );
}

function toolTable(id: string, head: string, rows: ToolRow[]): string {
  return `<table id="${id}" class="data"><thead><tr><th>${head}</th><th>calls</th><th>errors</th><th>failure rate</th></tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.name)}</td>${cell(n(r.calls), r.calls)}${cell(n(r.errors), r.errors)}${cell(pct(r.failureRate), r.failureRate)}</tr>`,
    )
    .join('\n')}</tbody></table>`;
}

function toolsPanel(d: OverviewData): string {
  const servers = d.servers.length
    ? `<h3>MCP servers <small>${queryLink(d.queries.servers)}</small></h3>${toolTable('servers-table', 'server', d.servers)}`
    : '<p class="muted">No MCP tool was called.</p>';
  return section(
    'tools',
    'Tool use and failure rate',
    d.queries.tools,
    `<p class="about">A failure is a result the runtime marked as an error (is_error).</p><div class="charts"><figure><figcaption>calls per tool (errors in red)</figcaption><canvas id="chart-tools" height="260"></canvas></figure></div>
<div class="side"><div>${toolTable('tools-table', 'tool', d.tools)}</div><div>${servers}</div></div>`,
  );
}

function compactionsPanel(d: OverviewData): string {
  const body = d.compactions.length
    ? `<div class="charts"><figure><figcaption>compactions per day</figcaption><canvas id="chart-compactions" height="180"></canvas></figure></div>
<table id="compactions-table" class="data"><thead><tr><th>day</th><th>kind</th><th>compactions</th></tr></thead><tbody>${d.compactions
        .map((c) => `<tr><td>${escapeHtml(c.day)}</td><td>${escapeHtml(c.kind)}</td>${cell(n(c.count), c.count)}</tr>`)
        .join('\n')}</tbody></table>`
    : '<p class="muted">No session was compacted.</p>';
  return section('compactions', 'Compactions over time', d.queries.compactions, body);
}

function filesPanel(d: OverviewData): string {
  const body = d.files.length
    ? `<table id="files-table" class="data"><thead><tr><th>file</th><th>edits</th><th>sessions</th></tr></thead><tbody>${d.files
        .map((f) => `<tr><td><code>${escapeHtml(f.path)}</code></td>${cell(n(f.edits), f.edits)}${cell(n(f.sessions), f.sessions)}</tr>`)
        .join('\n')}</tbody></table>`
    : '<p class="muted">No file was edited.</p>';
  return section('files', 'Files edited most', d.queries.files, body);
}

/** The palette of the charts: ten colours told apart at a glance. */
const PALETTE = ['#3056d3', '#e0a800', '#2e9e6b', '#c2410c', '#7c3aed', '#0891b2', '#be185d', '#65a30d', '#475569', '#b45309'];

/**
 * A colour per series, no two alike however many: the palette while it lasts, else hues spread
 * evenly round the wheel, lightness alternating so neighbours differ twice over (15 models once
 * took the palette round again, three pairs sharing a colour).
 */
export function seriesColours(count: number): string[] {
  if (count <= PALETTE.length) return PALETTE.slice(0, count);
  return Array.from({ length: count }, (_, i) => `hsl(${Math.round((360 * i) / count)}, 65%, ${i % 2 ? 58 : 40}%)`);
}

/** Per day, a figure of each model summed by family, as `weave usage` merges a dated id with its undated one. */
function perFamily(d: OverviewData, figure: (m: DailyEntry['modelBreakdowns'][number]) => number): Record<string, Record<string, number>> {
  return Object.fromEntries(
    d.daily.map((day) => {
      const sums: Record<string, number> = {};
      for (const m of day.modelBreakdowns) sums[shortModel(m.modelName)] = (sums[shortModel(m.modelName)] ?? 0) + figure(m);
      return [day.date, sums];
    }),
  );
}

export function renderOverviewPage(d: OverviewData): string {
  const models = [...new Set(d.daily.flatMap((day) => day.modelsUsed.map((m) => shortModel(m))))].sort();
  const chartData = {
    days: d.daily.map((day) => day.date),
    models,
    colours: seriesColours(models.length),
    palette: PALETTE,
    cost: perFamily(d, (m) => m.cost),
    tokens: perFamily(d, (m) => m.inputTokens + m.outputTokens + m.cacheCreationTokens + m.cacheReadTokens),
    tools: d.tools.slice(0, 20),
    compactions: d.compactions,
  };
  const json = JSON.stringify(chartData).replace(/</g, '\\u003c');
  const body = `${topBar('overview')}
<main class="overview">
<p class="summary">${n(d.sessions.length)} sessions with turns · ${n(d.totals.totalTokens)} tokens · ${usd(d.totals.totalCost)} · answered by ${Object.keys(d.queries).length} SPARQL queries in ${(d.millis / 1000).toFixed(1)} s</p>
${d.built ? `<p class="note" id="built">${escapeHtml(d.built[0].toUpperCase() + d.built.slice(1))}.</p>\n` : ''}${usagePanel(d)}
${sessionsPanel(d)}
${toolsPanel(d)}
${compactionsPanel(d)}
${filesPanel(d)}
</main>
<script type="application/json" id="overview-data">${json}</script>`;
  return page('Overview', 'overview', body, ['chart.umd.js', 'overview.js']);
}
