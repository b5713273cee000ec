import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { DEFAULT_GRAPH_KEY, readManifest } from '../../src/store/manifest.ts';
import { REPO, startTestServer, type TestServer } from './helpers.ts';
import { CHROMIUM, openPage, type OpenPage } from './chromium.ts';

/**
 * /overview, /search, the session page and the query page in headless Chromium over all the
 * fixtures: every token and cost figure read from the DOM equals `weave usage --json` on the
 * same store, the charts are drawn, each links to its query, and no request leaves the origin.
 * A screenshot of /overview is written to $WEAVE_SCREENSHOTS (else the temp directory).
 */

interface El {
  textContent: string | null;
  getAttribute(name: string): string | null;
  dataset: Record<string, string>;
  hidden: boolean;
}
declare const window: {
  Chart: {
    getChart(
      canvas: unknown,
    ): { data: { datasets: { label: string; backgroundColor: string }[] }; scales: { y: { ticks: { label: string }[] } } } | undefined;
  };
};
declare const document: { querySelectorAll(selector: string): El[]; querySelector(selector: string): El | null };
declare function getComputedStyle(el: El): { display: string };

const WEAVE = join(REPO, 'bin', 'weave');
const exec = promisify(execFile);
const usage = async (args: string[], store: string) =>
  JSON.parse((await exec(WEAVE, ['usage', ...args, '--json', '--store', store])).stdout);

describe('the pages in headless Chromium, over all the fixtures', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  let server: TestServer;
  let opened: OpenPage | undefined;
  let page: Page;
  let outside: string[];
  let problems: string[];

  before(async () => {
    server = await startTestServer({}, [join(REPO, 'fixtures')]);
    opened = await openPage(server.base, 1400);
    ({ page, outside, problems } = opened);
  });

  after(async () => {
    await opened?.close();
    await server?.stop();
  });

  it('/overview: every day × model figure and the totals equal weave usage daily --json; a screenshot', async () => {
    await page.goto(`${server.base}/overview`);
    await page.waitForSelector('#usage-table tbody tr');
    const rows = await page.$$eval('#usage-table tbody tr', (trs) =>
      trs.map((tr) =>
        [
          tr.getAttribute('data-day'),
          tr.getAttribute('data-model'),
          ...[...tr.querySelectorAll('td.n')].map((td) => td.textContent ?? ''),
        ].concat([tr.querySelector('td:last-child')?.getAttribute('data-value') ?? '']),
      ),
    );
    const json = await usage(['daily'], server.storeDir);
    const expected = json.daily.flatMap(
      (d: {
        date: string;
        modelBreakdowns: {
          modelName: string;
          inputTokens: number;
          outputTokens: number;
          cacheCreationTokens: number;
          cacheReadTokens: number;
          cost: number;
        }[];
      }) =>
        d.modelBreakdowns.map((m) => {
          const tokens = [m.inputTokens, m.outputTokens, m.cacheCreationTokens, m.cacheReadTokens];
          return [
            d.date,
            m.modelName,
            ...[...tokens, tokens.reduce((a, b) => a + b, 0)].map((n) => n.toLocaleString('en')),
            m.cost === 0 ? '$0' : m.cost < 0.00005 ? '<$0.0001' : `$${m.cost >= 1 ? m.cost.toFixed(2) : m.cost.toFixed(4)}`,
            String(m.cost),
          ];
        }),
    );
    assert.deepEqual(rows, expected);
    assert.ok(rows.length >= 30, `${rows.length} rows`);
    const totals = await page.$$eval('#usage-totals td[data-value]', (tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
    const t = json.totals;
    assert.deepEqual(totals, [t.inputTokens, t.outputTokens, t.cacheCreationTokens, t.cacheReadTokens, t.totalTokens, t.totalCost]);
    // The charts are drawn from the same figures: one dataset per model, its dated and undated ids
    // merged as weave usage merges them (claude-sonnet-4-5 and claude-sonnet-4-5-20250929), each
    // its own colour; the cost axis in dollars and cents, never $0.0000.
    const charts = await page.evaluate(() =>
      ['#chart-cost', '#chart-tokens'].map((id) => {
        const chart = window.Chart.getChart(document.querySelector(id));
        return {
          series: chart?.data.datasets.map((d) => [d.label, d.backgroundColor]),
          ticks: chart?.scales.y.ticks.map((t) => t.label),
        };
      }),
    );
    const ids = new Set(json.daily.flatMap((d: { modelsUsed: string[] }) => d.modelsUsed));
    assert.ok(ids.has('claude-sonnet-4-5') && ids.has('claude-sonnet-4-5-20250929'));
    const families = ['haiku-4-5', 'm', 'opus-4-1', 'opus-4-5', 'opus-4-6', 'opus-4-7', 'opus-4-8', 'sonnet-4-5', 'sonnet-4-6'];
    for (const { series } of charts) {
      assert.deepEqual(
        series?.map(([label]) => label),
        families,
      );
      assert.equal(new Set(series?.map(([, colour]) => colour)).size, families.length);
    }
    // The fixtures' days cost under 4¢ each: the ticks step by half a cent.
    assert.deepEqual(charts[0].ticks, ['$0', '0.5¢', '1¢', '1.5¢', '2¢', '2.5¢', '3¢', '3.5¢']);
    assert.deepEqual(charts[1].ticks, ['0', '5,000', '10,000', '15,000', '20,000', '25,000', '30,000', '35,000']);
    const shot = join(process.env.WEAVE_SCREENSHOTS ?? tmpdir(), 'weave-overview.png');
    await page.screenshot({ path: shot, fullPage: true });
  });

  it("/overview: each session's tokens and cost equal weave usage session --json; filter and sort", async () => {
    const json = await usage(['session'], server.storeDir);
    const spent = new Map<string, { totalTokens: number; totalCost: number }>(
      json.sessions.map((s: { sessionId: string }) => [s.sessionId, s]),
    );
    const rows = await page.$$eval('#sessions-table tbody tr', (trs) =>
      trs.map((tr) => ({
        id: tr.querySelector('code')?.textContent ?? '',
        tokens: Number(tr.cells[6].dataset.value),
        cost: Number(tr.cells[7].dataset.value),
      })),
    );
    assert.equal(rows.length, 40); // 28, hardening's depth, ids, malformed, odd, secrets and types sessions, model/resumed-session's, model/agent-kinds' and card's two each
    for (const r of rows) assert.deepEqual([r.tokens, r.cost], [spent.get(r.id)?.totalTokens ?? 0, spent.get(r.id)?.totalCost ?? 0], r.id);
    await page.fill('#session-filter', 'dev-parser');
    const shown = await page.$$eval('#sessions-table tbody tr:not([hidden])', (trs) => trs.map((tr) => tr.cells[1].textContent));
    assert.deepEqual(shown, Array(5).fill('-home-dev-parser'));
    await page.fill('#session-filter', '');
    await page.click('#sessions-table th:nth-child(8)');
    const costs = await page.$$eval('#sessions-table tbody tr', (trs) => trs.map((tr) => Number(tr.cells[7].dataset.value)));
    assert.deepEqual(
      costs,
      [...costs].sort((a, b) => b - a),
    );
  });

  it('/overview: tools, MCP servers, compactions and files; each panel links to its query, which opens in the query page', async () => {
    const tools = await page.$$eval('#tools-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    // 13 calls, 3 failed, hardening/secrets' one Bash call, whose result is an error, and
    // hardening/depth's one (its input 900 levels deep), answered without error, and card's one,
    // made by a program in code execution, never answered: 4 of 16.
    assert.deepEqual(tools[0], ['Bash', '16', '4', '25.0%']);
    const servers = await page.$$eval('#servers-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.deepEqual(servers, [
      ['emojikey', '3', '0', '0.0%'],
      ['ek-prod', '1', '0', '0.0%'],
      ['my server', '1', '1', '100.0%'],
    ]);
    assert.ok((await page.$$('#compactions-table tbody tr')).length > 0);
    assert.ok(
      (await page.$$eval('#files-table tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent))).includes(
        '/home/dev/api/src/orders.ts',
      ),
    );
    const links = await page.$$eval('a.query-link', (as) => as.map((a) => a.getAttribute('href') ?? ''));
    assert.equal(links.length, 6);
    await page.click('#tools h2 a.query-link');
    await page.waitForSelector('.yasqe .CodeMirror');
    await page.waitForFunction(() => (document.querySelector('.tabPanel.active .CodeMirror')?.textContent ?? '').includes('toolIsError'));
  });

  it('the query page: numbers read as numbers, datatypes and IRIs by their prefixes, row numbers apart; no empty ingest strip', async () => {
    await page.goto(`${server.base}/`);
    await page.waitForSelector('.yasqe .CodeMirror');
    await page.evaluate(() =>
      (window as unknown as { weaveYasgui: { getTab(): { getYasqe(): { setValue(v: string): void } } } }).weaveYasgui
        .getTab()
        .getYasqe()
        .setValue('SELECT ?n ?json ?type WHERE { BIND(12 AS ?n) BIND(STRDT("{}", rdf:JSON) AS ?json) BIND(weave:Turn AS ?type) }'),
    );
    await page.evaluate(() => {
      for (const t of document.querySelectorAll('.yasr_results table')) (t as unknown as { remove(): void }).remove();
    });
    await page.click('.tabPanel.active .yasqe_queryButton');
    await page.waitForSelector('.tabPanel.active .yasr_results table.dataTable tbody tr');
    const cells = await page.$$eval('.tabPanel.active .yasr_results table.dataTable tbody tr td', (tds) =>
      tds.map((td) => (td.textContent ?? '').trim()),
    );
    assert.deepEqual(cells, ['1', '12', '{}^^rdf:JSON', 'weave:Turn']);
    const rowNumber = await page.$eval(
      '.tabPanel.active .yasr_results table.dataTable tbody td:first-child',
      (td) => getComputedStyle(td as unknown as El) as unknown as { borderRightStyle: string; paddingRight: string },
    );
    assert.equal(rowNumber.borderRightStyle, 'solid');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent?.includes('graphs'));
    assert.equal(await page.$eval('#ingest', (el) => getComputedStyle(el as unknown as El).display), 'none');
    // The newest source's time, in UTC as every page gives a time, not in the browser's locale.
    const { store } = (await (await fetch(`${server.base}/status`)).json()) as { store: { lastChange: string } };
    const header = await page.$eval('#status', (el) => el.textContent ?? '');
    assert.ok(header.includes(` · last change ${new Date(store.lastChange).toISOString().slice(0, 19).replace('T', ' ')} UTC · `), header);
  });

  it("the search box: ranked hits linking to the turn's page", async () => {
    await page.fill('header form.search input', 'cart total');
    await Promise.all([page.waitForNavigation(), page.press('header form.search input', 'Enter')]);
    assert.match(page.url(), /\/search\?q=cart\+total$/);
    const first = await page.$eval('ol.hits li a.turn', (a) => [a.textContent, a.getAttribute('href')]);
    assert.equal(first[0], 'Add a cart total to the checkout page.');
    assert.equal(
      (await page.$$eval('ol.hits mark', (m) => m.map((x) => x.textContent?.toLowerCase()))).slice(0, 2).join(' '),
      'cart total',
    );
    await Promise.all([page.waitForNavigation(), page.click('ol.hits li a.turn')]);
    assert.match(page.url(), /\/describe\?iri=urn%3Asoul%3Alocal%3AWeave%2FTurn%2F/);
  });

  it('the session page: title, project, time span, counts, tokens and cost equal to weave usage session', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    await page.goto(`${server.base}/describe?iri=${encodeURIComponent(`urn:soul:local:Weave/Transcript/${id}`)}`);
    assert.equal(await page.textContent('h1'), 'Fix README typo');
    const facts = await page.$$eval('.session-summary dt', (dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]));
    assert.deepEqual(facts.slice(0, 5), [
      ['title', 'Fix README typo'],
      ['session', id],
      ['project', '-home-ada-weave-demo'],
      ['time span', '2026-11-02 09:00:00 → 2026-11-02 09:01:02 UTC (0h 01m)'],
      ['counts', '3 transcripts · 22 records · 18 turns · 4 prompts · 7 API calls · 4 tool calls · 0 compactions'],
    ]);
    const tokens = await page.$eval('#session-tokens', (el) =>
      ['input', 'output', 'cacheCreation', 'cacheRead', 'cost'].map((k) => Number(el.dataset[k])),
    );
    const json = (await usage(['session'], server.storeDir)).sessions.find((s: { sessionId: string }) => s.sessionId === id);
    assert.deepEqual(tokens, [json.inputTokens, json.outputTokens, json.cacheCreationTokens, json.cacheReadTokens, json.totalCost]);
    assert.deepEqual(await page.$$eval('.prompts li a', (as) => as.map((a) => a.textContent)), [
      'Please list the files in src/ and fix the typo in README.md',
      'Review the change',
      'Summarise README',
      'thanks',
    ]);
    // Its events fold away after the first dozen: 12 rows, then "N more".
    const events = await page.$$eval('table.statements tr', (trs) =>
      trs
        .filter((tr) => tr.querySelector('th')?.textContent === 'weave:hasEvent')
        .map((tr) => tr.querySelector('summary')?.textContent ?? 'shown'),
    );
    assert.deepEqual(events, [...Array(12).fill('shown'), `${events.length === 13 ? events[12] : '?'}`]);
    assert.match(events[12], /^\d+ more$/);
  });

  it("/usage in the browser: the overview's usage part; a report it does not show, or JSON asked for, JSON", async () => {
    // A browser's Accept (text/html first): the daily report as it stands is what the overview draws.
    const sent = await page.goto(`${server.base}/usage`);
    assert.equal(sent?.status(), 200);
    assert.equal(page.url(), `${server.base}/overview#usage`);
    const days = await page.$$eval('#usage-table tbody tr', (trs) => trs.length);
    const json = await usage(['daily'], server.storeDir);
    assert.equal(
      days,
      json.daily.reduce((n: number, d: { modelBreakdowns: unknown[] }) => n + d.modelBreakdowns.length, 0),
    );
    const monthly = (await page.goto(`${server.base}/usage?report=monthly`))!;
    assert.equal(page.url(), `${server.base}/usage?report=monthly`);
    assert.equal(monthly.headers()['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual((await monthly.json()).report, await usage(['monthly'], server.storeDir));
    // A client that takes anything (curl's */*), or asks for JSON: JSON, as before.
    for (const accept of ['*/*', 'application/json']) {
      const res = await fetch(`${server.base}/usage`, { headers: { accept }, redirect: 'manual' });
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers.get('vary'), 'Accept');
      assert.deepEqual(((await res.json()) as { report: unknown }).report, json);
    }
  });

  it('made no request to any other host, and logged no errors', () => {
    assert.deepEqual(outside, []);
    assert.deepEqual(problems, []);
  });
});

describe('/void and the page header agree', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, [join(REPO, 'fixtures')]);
  });
  after(() => server?.stop());

  it('the graphs /status counts are the graphs /void lists', async () => {
    const status = (await (await fetch(`${server.base}/status`)).json()) as { store: { graphs: number; sessions: number } };
    const turtle = await (await fetch(`${server.base}/void`, { headers: { accept: 'text/turtle' } })).text();
    const subsets = turtle.split('\n').filter((l) => l.includes('void:subset')).length;
    assert.equal(status.store.graphs, subsets);
    assert.match(turtle, new RegExp(`"${status.store.sessions} sessions in ${status.store.graphs} named graphs`));
    // The graph of links across sessions is loaded by the workers too.
    const links = await fetch(`${server.base}/sparql`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-query', accept: 'text/csv' },
      body: 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:soul:local:Weave/graph/links> { ?s ?p ?o } }',
    });
    assert.notEqual((await links.text()).split('\n')[1].trim(), '0');
  });
});

describe('a server opened on a store counts its graphs as one that ingested them', () => {
  let storeDir: string;
  before(async () => {
    storeDir = await mkdtemp(join(tmpdir(), 'weave-void-'));
    await (await startTestServer({ storeDir }, [join(REPO, 'fixtures')])).stop();
  });
  after(() => rm(storeDir, { recursive: true, force: true }));

  it('/void and the header hold every graph the manifest names, empty ones too', async () => {
    const entries = Object.entries((await readManifest(storeDir))?.graphs ?? {}).filter(([name]) => name !== DEFAULT_GRAPH_KEY);
    // A reader that found nothing in a session keeps an empty graph: a worker that loaded it live
    // holds it, one that opened the store did not (/void said 357 graphs, the header 1,328).
    assert.ok(entries.some(([name, g]) => name.includes('/reader/') && g.quads === 0));
    const server = await startTestServer({ storeDir }, null);
    try {
      const status = (await (await fetch(`${server.base}/status`)).json()) as { store: { graphs: number } };
      const turtle = await (await fetch(`${server.base}/void`, { headers: { accept: 'text/turtle' } })).text();
      // Every graph the manifest names, with the ontology's and the alignment's.
      assert.equal(status.store.graphs, entries.length + 2);
      assert.equal(turtle.split('\n').filter((l) => l.includes('void:subset')).length, entries.length + 2);
    } finally {
      await server.stop();
    }
  });
});
