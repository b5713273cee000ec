import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { CLAUDE_CODE_GLOSSARY } from '../../src/dialect/claude-code/glossary.ts';
import { definition } from '../../src/model/plain.ts';
import { REPO, startTestServer, type TestServer } from './helpers.ts';
import { CHROMIUM, openPage, type OpenPage } from './chromium.ts';

/**
 * Every page as a new user sees it, in headless Chromium over all the fixtures, on a desktop
 * (1400×1000) and on a phone (390×844): nothing wider than the screen, no two table cells whose
 * texts touch, and a screenshot of each written to $WEAVE_SCREENSHOTS (else a temp directory;
 * never committed).
 */

interface El {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
/** A table cell as the measuring below reads it. */
interface Box {
  offsetParent: unknown;
  getBoundingClientRect(): Rect;
  ownerDocument: { createRange(): { selectNodeContents(n: unknown): void; getBoundingClientRect(): Rect } };
}
declare function getComputedStyle(el: unknown): { paddingLeft: string; paddingRight: string };
declare const window: { weaveYasgui: { getTab(): { getYasqe(): { setValue(v: string): void } } }; innerWidth: number };
declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll(selector: string): El[];
};

/** The spine's session 11111111 (prompts, a Bash call and its result), and its first prompt's turn. */
const SESSION = '11111111-1111-4111-8111-111111111111';
const TURN = `urn:soul:local:Weave/Turn/${SESSION}/u-0001`;
const describeOf = (iri: string) => `/describe?iri=${encodeURIComponent(iri)}`;

const SCREENS: { name: string; path: string; ready: string }[] = [
  { name: 'query', path: '/', ready: '.yasqe .CodeMirror' },
  { name: 'overview', path: '/overview', ready: '#usage-table' },
  { name: 'conversation', path: `/conversation/${SESSION}`, ready: '#counts' },
  { name: 'session', path: describeOf(`urn:soul:local:Weave/Transcript/${SESSION}`), ready: '.session-summary' },
  { name: 'turn', path: describeOf(TURN), ready: 'h1' },
  // fixtures/model/legacy-runs: steps (a slash command, its output) whose text shares the row with their kind.
  { name: 'steps', path: '/conversation/80000000-0000-4000-8000-000000000001', ready: '#counts' },
  // fixtures/hardening/secrets: a prompt holding a 64-character key, one word.
  { name: 'long-word', path: describeOf('urn:soul:local:Weave/Transcript/5ec2e75e-0000-4000-8000-000000000001'), ready: '.prompts' },
  { name: 'glossary', path: '/glossary', ready: '#glossary-terms' },
];

const VIEWPORTS = [
  { label: 'desktop', width: 1400, height: 1000 },
  { label: 'phone', width: 390, height: 844 },
];

/**
 * Pairs of neighbouring cells of one row whose texts stand less than `gap` px apart (measured on
 * the text itself, not the cell: a right-aligned number against the left-aligned value after it).
 */
async function gluedCells(page: Page, table: string, gap = 6): Promise<string[]> {
  return page.$$eval(
    `${table} tr`,
    (rows, min) => {
      const glued: string[] = [];
      for (const row of rows) {
        const boxes = [...row.children]
          .filter((c) => (c as unknown as Box).offsetParent !== null && (c.textContent ?? '').trim())
          .map((c) => {
            const cell = c as unknown as Box;
            const range = cell.ownerDocument.createRange();
            range.selectNodeContents(c);
            const text = range.getBoundingClientRect();
            // Text cut off by the cell (an ellipsis) ends at the cell's padding: only what shows counts.
            const edge = cell.getBoundingClientRect();
            const style = getComputedStyle(c);
            const left = Math.max(text.left, edge.left + Number.parseFloat(style.paddingLeft));
            const right = Math.min(text.right, edge.right - Number.parseFloat(style.paddingRight));
            return { text: (c.textContent ?? '').trim(), box: { left, right, top: text.top, bottom: text.bottom } };
          });
        for (let i = 1; i < boxes.length; i++) {
          const [a, b] = [boxes[i - 1], boxes[i]];
          const sameLine = a.box.top < b.box.bottom && b.box.top < a.box.bottom;
          if (sameLine && b.box.left - a.box.right < min) glued.push(`${a.text.slice(0, 30)}|${b.text.slice(0, 30)}`);
        }
      }
      return glued;
    },
    gap,
  );
}

describe('every page on a desktop and on a phone, in headless Chromium', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  let server: TestServer;
  let shots: string;
  const opened: OpenPage[] = [];

  before(async () => {
    server = await startTestServer({}, [join(REPO, 'fixtures')]);
    shots = process.env.WEAVE_SCREENSHOTS ?? (await mkdtemp(join(tmpdir(), 'weave-screens-')));
  });

  after(async () => {
    for (const o of opened) await o.close();
    await server?.stop();
    // Screenshots are kept where WEAVE_SCREENSHOTS says; the temp directory otherwise made (4 MB a run) is not.
    if (!process.env.WEAVE_SCREENSHOTS && shots) await rm(shots, { recursive: true, force: true });
  });

  it("the page of a turn, a content block, an API call, a tool call and a run links to its session's page and its conversation", async () => {
    const o = await openPage(server.base, 1400);
    opened.push(o);
    const nodes = [
      TURN,
      `urn:soul:local:Weave/ContentBlock/${SESSION}/u-0001/0`,
      `urn:soul:local:Weave/LlmCall/${SESSION}/msg_0001`,
      `urn:soul:local:Weave/ToolCall/${SESSION}/toolu_0001`,
      `urn:soul:local:Weave/Run/${SESSION}/main/p-0001`,
    ];
    for (const node of nodes) {
      await o.page.goto(`${server.base}${describeOf(node)}`);
      assert.deepEqual(
        await o.page.$$eval('p.in-session a', (as) => as.map((a) => [a.textContent, a.getAttribute('href')])),
        [
          [SESSION, describeOf(`urn:soul:local:Weave/Transcript/${SESSION}`)],
          ['its conversation', `/conversation/${SESSION}`],
        ],
        node,
      );
    }
    // The session's own page names no session above itself.
    await o.page.goto(`${server.base}${describeOf(`urn:soul:local:Weave/Transcript/${SESSION}`)}`);
    assert.equal((await o.page.$$('p.in-session')).length, 0);
  });

  it("a compaction's request for its summary reads as a compaction, not a prompt: on the session page and the conversation page", async () => {
    const o = await openPage(server.base, 1400);
    opened.push(o);
    // fixtures/model/compaction-summariser, session 1: two prompts, and a summariser whose
    // opening message (line 1 of agent-acompact-5c0001.jsonl) asks for the summary.
    const id = '5c000000-0000-4000-8000-000000000001';
    await o.page.goto(`${server.base}${describeOf(`urn:soul:local:Weave/Transcript/${id}`)}`);
    assert.deepEqual(
      await o.page.$$eval('.prompts li', (lis) =>
        lis.map((li) => [li.getAttribute('class'), li.querySelector('time')?.textContent, li.querySelector('a')?.textContent]),
      ),
      [
        [null, '2026-02-11 10:00:00', 'Tidy the parser.'],
        ['compaction-request', '2026-02-11 10:10:00', "the runtime's request for a summary of the conversation so far"],
        [null, '2026-02-11 10:11:00', 'Now add tests.'],
      ],
    );
    assert.match(
      (await o.page.$$eval('.session-summary dt', (dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])))[4][1] ??
        '',
      / 2 prompts · .* 1 compaction$/,
    );
    await o.page.goto(`${server.base}/conversation/${id}`);
    assert.deepEqual(await o.page.$$eval('h2.loose', (hs) => hs.map((h) => h.textContent)), ['Compaction summaries (1)']);
    assert.match(
      (await o.page.textContent('section.stream.child h2.stream-head')) ?? '',
      /^compaction summariser acompact-5c0001 wrote the summary/,
    );
    assert.deepEqual(
      await o.page.$$eval('section.talk', (talks) =>
        talks.map((t) => [
          (t.querySelector('.talk-head .muted')?.textContent ?? '').split(' · ')[0],
          t.querySelector(':scope > .prompt')?.textContent,
        ]),
      ),
      [
        ['talk (exchange)', 'Tidy the parser.'],
        ['talk (exchange)', 'Now add tests.'],
        [
          'compaction request',
          'the runtime asked for a summary of the conversation so farYour task is to create a detailed summary of the conversation so far.',
        ],
      ],
    );
  });

  it('each model term on the pages has its plain name, its definition on hover and a link to /glossary, as weave glossary prints it', async () => {
    const o = await openPage(server.base, 1400);
    opened.push(o);
    const { page } = o;
    await page.goto(`${server.base}/conversation/${SESSION}`);
    assert.deepEqual(await page.$$eval('#counts li[data-count]', (lis) => lis.map((li) => li.textContent)), [
      '4 talks (exchange)',
      "4 runs (one prompt's work)",
      '7 llm.calls (API call)',
      '4 tool calls',
      '2 unresolved (not found)',
    ]);
    const terms = await page.$$eval('a.term', (as) => as.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('title')]));
    const run = terms.find(([text]) => text === "runs (one prompt's work)");
    assert.deepEqual(run, ["runs (one prompt's work)", '/glossary#term-run', `run: ${definition('run')}`]);
    for (const [text, , title] of terms) {
      const term = (title ?? '').split(': ')[0];
      assert.equal(title, definition(term) ? `${term}: ${definition(term)}` : term, `${text}`);
    }
    const links = new Set(terms.map(([, href]) => href));
    // A run's trigger and evidence in plain words: started from outside (inferred).
    assert.match(
      (await page.textContent('div.run:not(.unresolved) > .run-head')) ?? '',
      /^run \(one prompt's work\) p-0001 · started from outside/,
    );
    // An epoch no compaction opened (fixtures/readers, session b0b0b0b0: a summary record alone).
    await page.goto(`${server.base}/conversation/b0b0b0b0-b0b0-4b0b-8b0b-b0b0b0b0b0b0`);
    assert.deepEqual(
      await page.$eval('.compaction .what', (span) => [span.textContent, span.querySelector('a.term')?.getAttribute('href')]),
      ['epoch (context between compactions) 1, from line 1, begun without a compaction record', '/glossary#term-epoch'],
    );
    // The describe page of a prompt names its model class plainly.
    await page.goto(`${server.base}${describeOf(TURN)}`);
    assert.ok((await page.$$eval('.types a.term', (as) => as.map((a) => a.textContent))).includes('prompt'));
    // A segment's state links to the segment's row, which tells the states: the glossary has no row
    // of their own. fixtures/model/resumed-session, a1000000: idle from 09:00:11 to 09:25:00, two
    // segments, the first closed.
    await page.goto(`${server.base}/conversation/a1000000-0000-4000-8000-000000000001`);
    const states = await page.$$eval('details.segments td a.term', (as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
    assert.deepEqual(states, [
      ['closed, could be committed', '/glossary#term-segment'],
      ['still open', '/glossary#term-segment'],
    ]);
    for (const href of await page.$$eval('a.term', (as) => as.map((a) => a.getAttribute('href')))) links.add(href);
    // /glossary: every term weave glossary prints, with its plain name and definition, by its anchor.
    await page.goto(`${server.base}/glossary`);
    assert.equal((await page.$$('#glossary-terms tbody tr')).length, CLAUDE_CODE_GLOSSARY.terms.length);
    // Every term's link on the conversation page leads to a row of it.
    const rows = new Set(await page.$$eval('#glossary-terms tbody tr', (trs) => trs.map((tr) => `/glossary#${tr.getAttribute('id')}`)));
    assert.deepEqual(
      [...links].filter((href) => !rows.has(href ?? '')),
      [],
    );
    assert.deepEqual(await page.$$eval('#term-run td', (tds) => tds.map((td) => td.textContent)), [
      'run',
      "one prompt's work",
      definition('run'),
      'promptId',
      'user records and tool results',
      CLAUDE_CODE_GLOSSARY.terms.find((t) => t.model === 'run')?.note,
    ]);
    assert.deepEqual(await page.$$eval('#term-strong_inference td', (tds) => tds.slice(0, 2).map((td) => td.textContent)), [
      'strong_inference',
      'inferred',
    ]);
  });

  for (const viewport of VIEWPORTS)
    it(`${viewport.label} (${viewport.width}×${viewport.height}): no page is wider than the screen, no table cells touch; a screenshot of each`, async () => {
      const o = await openPage(server.base, viewport.width, viewport.height);
      opened.push(o);
      const { page } = o;
      for (const screen of SCREENS) {
        await page.goto(`${server.base}${screen.path}`);
        await page.waitForSelector(screen.ready);
        if (screen.name === 'query') {
          // A session id beside a row number, a number beside a date: what ran together on the trial.
          await page.evaluate(() =>
            window.weaveYasgui
              .getTab()
              .getYasqe()
              .setValue(
                'SELECT ?session ?n ?at WHERE { VALUES (?session ?n ?at) { ("11110000-0000-4000-8000-000000000001" 12 "2026-06-04T10:00:00Z") } }',
              ),
          );
          await page.click('.tabPanel.active .yasqe_queryButton');
          await page.waitForSelector('.tabPanel.active .yasr_results table.dataTable tbody tr');
          const cells = await page.$$eval('.tabPanel.active .yasr_results table.dataTable tbody td', (tds) =>
            tds.map((td) => (td.textContent ?? '').trim()),
          );
          assert.deepEqual(cells, ['1', '11110000-0000-4000-8000-000000000001', '12', '2026-06-04T10:00:00Z']);
          assert.deepEqual(await gluedCells(page, '.tabPanel.active .yasr_results table.dataTable'), [], 'query results');
        }
        for (const table of ['table.data', 'table.statements'])
          assert.deepEqual(await gluedCells(page, table), [], `${screen.name}: ${table}`);
        const [scrollWidth, clientWidth] = await page.evaluate(() => [
          document.documentElement.scrollWidth,
          document.documentElement.clientWidth,
        ]);
        assert.ok(scrollWidth <= clientWidth, `${screen.name} is ${scrollWidth}px wide on a ${clientWidth}px screen`);
        // Nor is a chart, whose box may scroll on its own: its right edge stays on the screen.
        const charts = await page.$$eval('canvas', (all) => all.map((c) => Math.round(c.getBoundingClientRect().right)));
        assert.deepEqual(
          charts.filter((right) => right > clientWidth),
          [],
          `${screen.name}: charts past the ${clientWidth}px screen`,
        );
        await page.screenshot({ path: join(shots, `weave-${screen.name}-${viewport.width}.png`), fullPage: true });
      }
      assert.deepEqual(o.outside, []);
      assert.deepEqual(o.problems, []);
    });
});
