import assert from 'node:assert/strict';
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { eventually, SERVER_FIXTURES, SESSION_A, SESSION_B, startTestServer, type TestServer } from './helpers.ts';
import { CHROMIUM, FLAGS } from './chromium.ts';

/**
 * The page, live: while the server watches its sources, a turn appended to a session shows in
 * the answer of the query the page has open, without the page being loaded again. In Debian's
 * headless Chromium; skipped, saying so, where there is none.
 */

declare const window: { weaveYasgui: { getTab(): { getYasqe(): { setValue(v: string): void } } } };
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

const PROJECT = '-home-grace-weave-server';

describe('the query page of a server watching its sources', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  let root: string;
  let server: TestServer;
  let browser: BrowserContext;
  let page: Page;
  let profile: string;
  let loads = 0;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'weave-page-live-'));
    await mkdir(join(root, PROJECT));
    for (const id of [SESSION_A, SESSION_B])
      await copyFile(join(SERVER_FIXTURES, PROJECT, `${id}.jsonl`), join(root, PROJECT, `${id}.jsonl`));
    server = await startTestServer({ ingest: { paths: [root], refreshMs: 0, watch: true, detect: false } }, [root]);
    await eventually(async () => server.ctx.ingester!.status.watching !== 'off', 10_000, 'the watcher');
    profile = await mkdtemp(join(tmpdir(), 'weave-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
    await browser.route('**/*', (route) => (route.request().url().startsWith(server.base) ? route.continue() : route.abort()));
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('load', () => loads++);
    await page.goto(`${server.base}/`);
    await page.waitForSelector('.yasqe .CodeMirror');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(root, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  });

  it("shows a turn appended to a session in the open query's answer, without loading the page again", async () => {
    await page.waitForSelector('#live:not([hidden])');
    await page.evaluate(() =>
      window.weaveYasgui
        .getTab()
        .getYasqe()
        .setValue('PREFIX weave: <https://repolex.ai/ontology/weave#>\nSELECT (COUNT(?t) AS ?turns) WHERE { ?t a weave:Turn }'),
    );
    await page.click('.tabPanel.active .yasqe_queryButton');
    const cell = '.tabPanel.active .yasr_results table.dataTable tbody tr td:nth-child(2)';
    // The page shows a number as itself (no datatype).
    await page.waitForFunction((s) => (document.querySelector(s)?.textContent ?? '').trim() === '6', cell);

    const file = join(root, PROJECT, `${SESSION_B}.jsonl`);
    const line = JSON.parse((await readFile(file, 'utf8')).split('\n')[1]);
    await appendFile(
      file,
      `${JSON.stringify({ ...line, parentUuid: 't-0002', uuid: 't-0003', message: { ...line.message, id: 'msg_t3', content: [{ type: 'text', text: 'Live.' }] } })}\n`,
    );
    await page.waitForFunction((s) => (document.querySelector(s)?.textContent ?? '').trim() === '7', cell, { timeout: 10_000 });
    assert.equal(loads, 1, 'the page was loaded once');
  });
});
