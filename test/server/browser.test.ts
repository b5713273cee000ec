import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { EXPECTED_TURNS, startTestServer, type TestServer } from './helpers.ts';
import { CHROMIUM, FLAGS } from './chromium.ts';

/**
 * The page in a real browser: Debian's headless Chromium (installed by .ci/run) opens `/`, runs
 * queries through YASGUI and sees the results table, triple terms included, with not one
 * request to another host. Skipped, saying so, where no Chromium binary exists.
 */

/** The browser globals the page functions below touch (the project's tsconfig has no DOM lib). */
interface PageElement {
  textContent: string | null;
  innerHTML: string;
  remove(): void;
  getAttribute(name: string): string | null;
}
declare const window: {
  weaveYasgui: { getTab(): { getYasqe(): { setValue(v: string): void; getValue(): string } } };
  pwned?: number;
  htmlParses: number;
};
declare const DOMParser: { prototype: { parseFromString(...args: unknown[]): unknown } };
declare const document: { querySelectorAll(selector: string): PageElement[]; querySelector(selector: string): PageElement | null };

describe('the query page in headless Chromium', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  let server: TestServer;
  let browser: BrowserContext;
  let page: Page;
  let queriesDir: string;
  let profile: string;
  const outside: string[] = [];
  const problems: string[] = [];

  before(async () => {
    queriesDir = await mkdtemp(join(tmpdir(), 'weave-queries-'));
    await writeFile(
      join(queriesDir, 'assistant-turns.rq'),
      '# Every assistant turn, in IRI order\nSELECT ?t WHERE { ?t a weave:AssistantTurn } ORDER BY ?t\n',
    );
    server = await startTestServer({ queriesDir });
    profile = await mkdtemp(join(tmpdir(), 'weave-chromium-'));
    // A fresh profile each run: nothing remembered from an earlier visit.
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
    const context = browser;
    // Anything not addressed to this server is recorded and refused.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(server.base) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    // Each pass of DOMPurify (YASR's sanitiser) parses its input as a document: counted.
    await context.addInitScript(() => {
      window.htmlParses = 0;
      const parse = DOMParser.prototype.parseFromString;
      DOMParser.prototype.parseFromString = function (...args: unknown[]) {
        window.htmlParses++;
        return parse.apply(this, args);
      };
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.goto(`${server.base}/`);
    await page.waitForSelector('.yasqe .CodeMirror');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(queriesDir, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  });

  async function run(query: string): Promise<string[][]> {
    await page.evaluate((q) => window.weaveYasgui.getTab().getYasqe().setValue(q), query);
    await page.evaluate(() =>
      document.querySelectorAll('.yasr_results table').forEach((t) => {
        t.remove();
      }),
    );
    await page.click('.tabPanel.active .yasqe_queryButton');
    await page.waitForSelector('.tabPanel.active .yasr_results table.dataTable tbody tr');
    return page.$$eval('.tabPanel.active .yasr_results table.dataTable tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].slice(1).map((td) => (td.textContent ?? '').trim())),
    );
  }

  it('opens /, runs a query, and shows the results table', async () => {
    const rows = await run(
      'PREFIX weave: <https://repolex.ai/ontology/weave#>\nSELECT ?t ?role WHERE { ?t a weave:Turn ; a/weave:turnRole ?role } ORDER BY ?t',
    );
    assert.deepEqual(
      rows,
      EXPECTED_TURNS.map(([iri, role]) => [`<${iri}>`, role]),
    );
  });

  it('draws triple terms in the table, from SELECT and from CONSTRUCT', async () => {
    const select = await run('SELECT ?t WHERE { BIND(<<( <urn:a> <urn:b> "c" )>> AS ?t) }');
    assert.deepEqual(select.length, 1);
    assert.match(select[0][0], /<<\( <urn:a> <urn:b> "c" \)>>/);
    const construct = await run('CONSTRUCT { <urn:x> <urn:y> <<( <urn:a> <urn:b> "c" )>> } WHERE {}');
    assert.equal(construct.length, 1);
    assert.match(construct[0].join(' '), /<<\( <urn:a> <urn:b> "c" \)>>/);
  });

  it('draws each cell escaped, IRIs linked, without a sanitiser pass per cell', async () => {
    const rows = await run(
      `SELECT ?iri ?text ?lang ?typed WHERE { VALUES (?iri ?text ?lang ?typed) {
        (<urn:soul:local:Weave/Session/33333333-3333-4333-8333-333333333333> "<img src=x onerror='window.pwned=1'>&amp;" "bonjour"@fr "{}"^^rdf:JSON)
      } }`,
    );
    assert.deepEqual(rows, [
      [
        '<urn:soul:local:Weave/Session/33333333-3333-4333-8333-333333333333> conversation',
        "<img src=x onerror='window.pwned=1'>&amp;",
        '"bonjour"@fr',
        '{}^^rdf:JSON',
      ],
    ]);
    assert.deepEqual(await page.$$eval('.tabPanel.active .yasr_results tbody td a', (links) => links.map((a) => a.getAttribute('href'))), [
      '/describe?iri=urn%3Asoul%3Alocal%3AWeave%2FSession%2F33333333-3333-4333-8333-333333333333',
      '/conversation/33333333-3333-4333-8333-333333333333',
    ]);
    assert.equal(await page.$$eval('.tabPanel.active .yasr_results img', (imgs) => imgs.length), 0);
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    // 6 turns × 500 numbers = 3,000 rows of 4 cells. DataTables draws every row once to size the
    // columns, and a DOMPurify pass per cell (12,000 here) took an answer of 22,748 rows 50 s.
    const before = await page.evaluate(() => window.htmlParses);
    const big = `SELECT ?turn ?role ?i ?text WHERE { ?turn a/weave:turnRole ?role VALUES ?a { 0 1 2 3 4 5 6 7 8 9 } VALUES ?b { 0 1 2 3 4 5 6 7 8 9 } VALUES ?c { 0 1 2 3 4 } BIND(?a * 50 + ?b * 5 + ?c AS ?i) BIND(CONCAT("<b>", STR(?i), "</b>") AS ?text) } ORDER BY ?turn ?i`;
    const drawn = await run(big);
    assert.equal(drawn.length, 50); // the first page
    assert.deepEqual(drawn[0], [`<${EXPECTED_TURNS[0][0]}>`, 'user', '0', '<b>0</b>']);
    assert.match((await page.textContent('.tabPanel.active .yasr_response_chip')) ?? '', /^3000 results in /);
    const parses = (await page.evaluate(() => window.htmlParses)) - before;
    assert.ok(parses < 50, `${parses} HTML documents parsed to draw 3,000 rows`);
  });

  it("shows a literal's terminal escapes and direction overrides as escapes, as the server's pages do", async () => {
    // ESC opening a colour, a C1 CSI, and U+202E, which would draw the rest of the row backwards.
    const rows = await run('SELECT ?text ?n WHERE { BIND("red \\u001B[31m file\\u202Etxt.exe\\u009B2J" AS ?text) BIND(1 AS ?n) }');
    assert.deepEqual(rows, [['red \\x1b[31m file\\u202etxt.exe\\x9b2J', '1']]);
  });

  it('offers the queries of the queries folder, and an IRI opens its describe page', async () => {
    await page.waitForSelector('#examples:not([hidden]) button');
    assert.deepEqual(await page.$$eval('#examples button', (b) => b.map((x) => [x.textContent, x.getAttribute('title')])), [
      ['assistant turns', 'Every assistant turn, in IRI order'],
    ]);
    await page.click('#examples button');
    await page.waitForFunction(() => document.querySelector('.tab.active')?.textContent?.includes('assistant turns'));
    // The prefix the server predeclares is written out below the comment, for the editor.
    assert.equal(
      await page.evaluate(() => window.weaveYasgui.getTab().getYasqe().getValue()),
      '# Every assistant turn, in IRI order\nPREFIX weave: <https://repolex.ai/ontology/weave#>\nSELECT ?t WHERE { ?t a weave:AssistantTurn } ORDER BY ?t\n',
    );
    await page.click('.tabPanel.active .yasqe_queryButton');
    await page.waitForSelector('.tabPanel.active .yasr_results table.dataTable tbody tr');
    assert.equal(await page.$$eval('.tabPanel.active .yasr_results table.dataTable tbody tr', (r) => r.length), 3);
    // Like YASR's own links, an IRI opens in a new tab: here, its describe page.
    const [opened] = await Promise.all([browser.waitForEvent('page'), page.click('.tabPanel.active .yasr_results a.iri >> nth=0')]);
    await opened.waitForLoadState();
    assert.match(opened.url(), /\/describe\?iri=urn%3Asoul%3Alocal%3AWeave%2FTurn%2F5e55e55e-0000-4000-8000-000000000002$/);
    assert.equal(await opened.textContent('h1'), 'Turn/5e55e55e-0000-4000-8000-000000000002');
    await opened.close();
  });

  it('made no request to any other host, and logged no errors', () => {
    assert.deepEqual(outside, []);
    assert.deepEqual(problems, []);
  });
});
