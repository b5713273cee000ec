import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { readManifest } from '../../src/store/manifest.ts';
import { REPO, startTestServer, type TestServer } from './helpers.ts';
import { CHROMIUM, FLAGS, openPage, type OpenPage } from './chromium.ts';

/**
 * /conversation/<session> in headless Chromium over all the fixtures: for every session, the
 * talks, runs, llm.calls, tool calls and unresolved items counted in the DOM equal what
 * `weave conversation --json` counts on the same store; sub-agent streams sit under the call
 * that started them, compactions divide the epochs, tool inputs and results are the fixture's,
 * and the calls' tokens add up to the fixture's usage. Then a session of hostile strings, shown
 * as text and never as markup. A screenshot is written to $WEAVE_SCREENSHOTS (else the temp
 * directory) as weave-conversation.png.
 */

interface El {
  textContent: string | null;
  dataset: Record<string, string>;
  closest(selector: string): El | null;
  previousElementSibling: El | null;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): El[];
  getAttribute(name: string): string | null;
  classList: { contains(name: string): boolean };
}
declare const document: { querySelectorAll(selector: string): El[]; querySelector(selector: string): El | null };
declare const window: Record<string, unknown>;

const WEAVE = join(REPO, 'bin', 'weave');
const exec = promisify(execFile);
const SPINE = join(REPO, 'fixtures', 'spine', '-home-ada-weave-demo');

/** The records of a JSONL fixture, skipping lines that are not JSON (the spine has broken ones on purpose). */
async function records(file: string): Promise<Record<string, any>[]> {
  return (await readFile(file, 'utf8')).split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

async function jsonlUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.jsonl')).map((e) => join(e.parentPath, e.name));
}

/** What the page shows of the model, counted in its DOM in one round trip (no named functions in the page: tsx would wrap them). */
async function domCounts(page: Page) {
  const selectors = ['section.talk', 'div.run:not(.unresolved)', 'div.call', 'details.tool', '#unresolved tr.unresolved-item'];
  const { counts, header } = await page.evaluate(
    (list) => ({
      counts: list.map((selector) => document.querySelectorAll(selector).length),
      header: Array.from(document.querySelectorAll('#counts [data-count]')).map(
        (li) => [li.dataset.count, Number((li.querySelector('strong')?.textContent ?? '').replace(/,/g, ''))] as [string, number],
      ),
    }),
    selectors,
  );
  const [talks, runs, calls, tools, unresolved] = counts;
  return { dom: { talks, runs, calls, tools, unresolved }, header: Object.fromEntries(header) as Record<string, number> };
}

describe('the conversation page in headless Chromium, over all the fixtures', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  let server: TestServer;
  let opened: OpenPage | undefined;
  let page: Page;
  let outside: string[];
  let problems: string[];

  before(async () => {
    server = await startTestServer({}, [join(REPO, 'fixtures')]);
    opened = await openPage(server.base, 1300);
    ({ page, outside, problems } = opened);
  });

  after(async () => {
    await opened?.close();
    await server?.stop();
  });

  it("every session: talks, runs, llm.calls, tool calls and unresolved in the DOM equal weave conversation --json's", async () => {
    const manifest = await readManifest(server.storeDir);
    const sessions = Object.values(manifest!.graphs)
      .filter((g) => g.sessionId !== undefined && !g.reader)
      .map((g) => g.sessionId!)
      .sort();
    // /conversation lists every session of the store, each linking to its page.
    await page.goto(`${server.base}/conversation`);
    const listed = await page.$$eval('#conversations tbody tr code', (codes) => codes.map((c) => c.textContent ?? ''));
    assert.deepEqual([...listed].sort(), sessions);
    const totals = { talks: 0, runs: 0, calls: 0, tools: 0, unresolved: 0 };
    // The document `weave conversation --json` prints, to the byte, as the server gives it to the
    // command (routes/conversation.ts); checked against the command itself for every tenth session
    // (a process each: for all of them, a fifth of this test's time), then the pages one by one in
    // the one browser page.
    const answers = new Map<string, string>();
    for (const id of sessions)
      answers.set(id, await (await fetch(`${server.base}/conversation/${encodeURIComponent(id)}?format=json`)).text());
    await Promise.all(
      sessions
        .filter((_, i) => i % 10 === 0)
        .map(async (id) =>
          assert.equal((await exec(WEAVE, ['conversation', id, '--json', '--store', server.storeDir])).stdout, answers.get(id), id),
        ),
    );
    for (const id of sessions) {
      const json = JSON.parse(answers.get(id)!);
      const kinds = json.counts.kinds;
      const expected = {
        talks: kinds.talk ?? 0,
        runs: kinds.run ?? 0,
        calls: kinds['llm.call'] ?? 0,
        tools: kinds.tool ?? 0,
        unresolved: json.header.entities.unresolved,
      };
      const response = await page.goto(`${server.base}/conversation/${encodeURIComponent(id)}`);
      assert.equal(response?.status(), 200, id);
      const { dom, header } = await domCounts(page);
      // A synthetic message is no llm.call, but it stays visible among the calls, as a call-shaped row.
      assert.deepEqual(dom, { ...expected, calls: expected.calls + (kinds['message.synthetic'] ?? 0) }, id);
      assert.deepEqual(header, {
        talk: expected.talks,
        run: expected.runs,
        'llm.call': expected.calls,
        tool: expected.tools,
        unresolved: expected.unresolved,
      });
      for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += dom[k];
    }
    // The pages were not empty: the fixtures hold all five, in many sessions.
    assert.ok(
      Object.values(totals).every((v) => v > 0),
      JSON.stringify(totals),
    );
  });

  it('the async agent (fixtures/model/async-agent): figures by hand, the child under the Agent call that launched it', async () => {
    await page.goto(`${server.base}/conversation/40000000-0000-4000-8000-000000000001`);
    // Main: one typed prompt (line 1), runs q…1, q…2, q…3 (two notifications), calls msg_docs_01–06,
    // tools Agent (2), Bash (4), Agent (6). Child a1b2c3d4e5f607182: a talk, a run, two calls, Write.
    // The orphan child: a talk, a run, one call. Unresolved: the child a9999… announced at line 7
    // whose file never landed, and the orphan no call started.
    assert.deepEqual((await domCounts(page)).dom, { talks: 3, runs: 5, calls: 9, tools: 4, unresolved: 2 });
    const main = await records(join(REPO, 'fixtures/model/async-agent/-home-dev-docs/40000000-0000-4000-8000-000000000001.jsonl'));
    const launch = main[1].message.content.find((b: { type: string }) => b.type === 'tool_use');
    // The stream sits in the call whose tool launched it: the tool just before its block of sub-agents.
    const streams = await page.$$eval('section.stream.child', (sections) =>
      sections.map((s) => {
        const tool = s.closest('.substreams')?.previousElementSibling;
        return {
          name: s.querySelector('.stream-head code')?.textContent,
          call: tool ? [tool.querySelector('.tool-name')?.textContent, tool.querySelector('.gist')?.textContent] : null,
          inCall: s.closest('div.call') !== null,
        };
      }),
    );
    assert.deepEqual(streams, [
      { name: 'a1b2c3d4e5f607182', call: [launch.name, launch.input.description], inCall: true },
      { name: 'aorphan000000001', call: null, inCall: false },
    ]);
    assert.deepEqual(await page.$$eval('#unresolved tr.unresolved-item td:first-child', (tds) => tds.map((td) => td.textContent)), [
      'child_stream',
      'spawn_of_child',
    ]);
  });

  it('compactions divide the epochs (fixtures/model/compaction-replay) where they happened, with the trigger and size their records state', async () => {
    const file = join(REPO, 'fixtures/model/compaction-replay/-home-dev-etl/60000000-0000-4000-8000-000000000001.jsonl');
    const lines = await records(file);
    const boundaries = lines.filter((r) => r.subtype === 'compact_boundary');
    assert.equal(boundaries.length, 2);
    await page.goto(`${server.base}/conversation/60000000-0000-4000-8000-000000000001`);
    const dividers = await page.$$eval('.compaction[data-kind="epoch.boundary"]', (ds) =>
      ds.map((d) => [d.querySelector('.what')?.textContent, d.querySelector('time')?.getAttribute('datetime')]),
    );
    const iso = (t: string | null | undefined) => (t ? new Date(t).toISOString() : t);
    assert.deepEqual(
      dividers.map(([what, when]) => [what, iso(when)]),
      boundaries.map((b) => [
        `compaction · ${b.compactMetadata.trigger} · ${b.compactMetadata.preTokens.toLocaleString('en')} tokens before`,
        iso(b.timestamp),
      ]),
    );
    // In the file's order: each call where its message id first appears (line 6 replays line 2's),
    // each compaction inside the talk of the prompt typed last before it: the talk goes on after it.
    const expected: (string | null | undefined)[][] = [];
    const seen = new Set<string>();
    let prompt: string | undefined;
    for (const r of lines) {
      if (r.type === 'user' && typeof r.message?.content === 'string' && !r.isCompactSummary) prompt = r.message.content;
      if (r.subtype === 'compact_boundary') expected.push(['compaction', prompt]);
      if (r.type === 'assistant' && !seen.has(r.message.id)) {
        seen.add(r.message.id);
        expected.push(['call', iso(r.timestamp)]);
      }
    }
    const shown = await page.$$eval('.compaction[data-kind="epoch.boundary"], div.call', (els) =>
      els.map((el) =>
        el.classList.contains('compaction')
          ? ['compaction', el.closest('section.talk')?.querySelector('.prompt')?.textContent ?? null]
          : ['call', el.querySelector('.call-head time')?.getAttribute('datetime')],
      ),
    );
    assert.deepEqual(
      shown.map(([kind, value]) => [kind, kind === 'call' ? iso(value) : value]),
      expected,
    );
  });

  it("the spine session: tool inputs and results folded, as the fixture wrote them; the calls' tokens are the fixture's usage", async () => {
    await page.goto(`${server.base}/conversation/11111111-1111-4111-8111-111111111111`);
    const files = [
      join(SPINE, '11111111-1111-4111-8111-111111111111.jsonl'),
      ...(await jsonlUnder(join(SPINE, '11111111-1111-4111-8111-111111111111'))),
    ];
    const all = (await Promise.all(files.map(records))).flat();
    const uses = new Map<string, { name: string; input: unknown }>();
    const results = new Map<string, { text: string; error: boolean }>();
    const lastUsage = new Map<string, Record<string, number>>();
    for (const r of all) {
      if (r.type === 'assistant' && r.message?.id) lastUsage.set(r.message.id, r.message.usage);
      for (const b of Array.isArray(r.message?.content) ? r.message.content : []) {
        if (b.type === 'tool_use') uses.set(b.id, { name: b.name, input: b.input });
        if (b.type === 'tool_result')
          results.set(b.tool_use_id, {
            text: typeof b.content === 'string' ? b.content : b.content.find((c: { type: string }) => c.type === 'text').text,
            error: b.is_error === true,
          });
      }
    }
    // Folded: no tool is open until asked.
    assert.equal(await page.$$eval('details.tool[open]', (d) => d.length), 0);
    const shown = await page.$$eval('details.tool', (tools) =>
      tools.map((t) => ({
        name: t.querySelector('.tool-name')?.textContent,
        input: t.querySelector('pre.json')?.textContent,
        result: t.querySelector('.io pre:not(.json)')?.textContent ?? null,
        failed: t.classList.contains('failed'),
      })),
    );
    for (const id of ['toolu_0001', 'toolu_0002']) {
      const use = uses.get(id)!;
      const result = results.get(id)!;
      assert.deepEqual(
        shown.find((s) => s.name === use.name),
        { name: use.name, input: JSON.stringify(use.input, null, 2), result: result.text, failed: result.error },
        id,
      );
    }
    // Every call's tokens, from its last record: the fixture's usage of each message.id, summed.
    const fixture = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };
    for (const u of lastUsage.values()) {
      fixture.input += u.input_tokens ?? 0;
      fixture.output += u.output_tokens ?? 0;
      fixture.cacheCreation += u.cache_creation_input_tokens ?? 0;
      fixture.cacheRead += u.cache_read_input_tokens ?? 0;
    }
    const page_ = await page.$$eval('div.call .tokens', (spans) =>
      spans.reduce(
        (sum, s) => ({
          input: sum.input + Number(s.dataset.input),
          output: sum.output + Number(s.dataset.output),
          cacheCreation: sum.cacheCreation + Number(s.dataset.cacheCreation),
          cacheRead: sum.cacheRead + Number(s.dataset.cacheRead),
        }),
        { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 },
      ),
    );
    assert.equal(lastUsage.size, await page.$$eval('div.call', (c) => c.length));
    assert.deepEqual(page_, fixture);
    // Open the first tool for the screenshot, as a reader would.
    await page.click('details.tool >> nth=0 >> summary');
    assert.equal(await page.$$eval('details.tool[open]', (d) => d.length), 1);
    await page.screenshot({ path: join(process.env.WEAVE_SCREENSHOTS ?? tmpdir(), 'weave-conversation.png'), fullPage: true });
  });

  it('is linked from the session page, /overview, and the query page (its header and a Session IRI in the results)', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    await page.goto(`${server.base}/describe?iri=${encodeURIComponent(`urn:soul:local:Weave/Transcript/${id}`)}`);
    await Promise.all([page.waitForURL(`**/conversation/${id}`), page.click('.session-summary a.conversation-link')]);
    assert.equal(await page.textContent('h1'), 'Fix README typo');
    await page.goto(`${server.base}/overview`);
    const links = await page.$$eval('#sessions-table a.conversation-link', (as) => as.map((a) => a.getAttribute('href')));
    assert.ok(links.includes(`/conversation/${id}`));
    await page.goto(`${server.base}/`);
    await page.waitForSelector('.yasqe .CodeMirror');
    await Promise.all([page.waitForURL('**/conversation'), page.click('header.top nav a[href="/conversation"]')]);
    await page.goto(`${server.base}/`);
    await page.waitForSelector('.yasqe .CodeMirror');
    await page.evaluate(
      (q) => (window.weaveYasgui as { getTab(): { getYasqe(): { setValue(v: string): void } } }).getTab().getYasqe().setValue(q),
      `SELECT ?s WHERE { ?s a weave:Session ; dcterms:identifier "${id}" }`,
    );
    await page.click('.tabPanel.active .yasqe_queryButton');
    await page.waitForSelector('.tabPanel.active .yasr_results a.conversation-link');
    assert.equal(await page.getAttribute('.tabPanel.active .yasr_results a.conversation-link', 'href'), `/conversation/${id}`);
  });

  it('a prefix names its session; an unknown or ambiguous one lists the choices; anything else is refused', async () => {
    const json = (await (await fetch(`${server.base}/conversation/6000?format=json`)).json()) as { header: { session: string } };
    assert.equal(json.header.session, '60000000-0000-4000-8000-000000000001');
    const none = await fetch(`${server.base}/conversation/ffff`);
    assert.equal(none.status, 404);
    // 5c000000-…-0001 to -0005 (fixtures/model/compaction-summariser): five sessions begin with "5c".
    const many = await fetch(`${server.base}/conversation/5c`);
    assert.equal(many.status, 300);
    assert.equal((await many.text()).match(/<li><a href="\/conversation\/5c/g)?.length, 5);
    const bad = await fetch(`${server.base}/conversation/${encodeURIComponent('x" } ; DROP ALL #')}`);
    assert.equal(bad.status, 400);
  });

  it('made no request to any other host, and logged no errors', () => {
    assert.deepEqual(outside, []);
    assert.deepEqual(problems, []);
  });
});

describe('the conversation page escapes every value from the graph', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  const SESSION = 'e5ca9e00-0000-4000-8000-000000000001';
  const hostile = (n: number) => `</pre></details></div><script>window.pwned=${n}</script><img src=x onerror="window.pwned=${n}">"'&amp;`;
  let dir: string;
  let server: TestServer;
  let browser: BrowserContext;
  let profile: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weave-hostile-'));
    const project = join(dir, `-home-eve-"><b>project`);
    await mkdir(project);
    const base = { sessionId: SESSION, cwd: '/home/eve', version: '2.1.119', userType: 'external', isSidechain: false };
    const lines = [
      {
        ...base,
        type: 'user',
        uuid: 'h-1',
        parentUuid: null,
        promptId: 'p-1',
        timestamp: '2026-01-01T10:00:00.000Z',
        message: { role: 'user', content: hostile(1) },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'h-2',
        parentUuid: 'h-1',
        requestId: 'req_h1',
        timestamp: '2026-01-01T10:00:01.000Z',
        message: {
          id: 'msg_h1',
          type: 'message',
          role: 'assistant',
          model: `claude-<i>${hostile(2)}`,
          content: [
            { type: 'thinking', thinking: hostile(3), signature: 'x' },
            { type: 'text', text: hostile(4) },
            { type: 'tool_use', id: 'toolu_h1', name: `Bash${hostile(5)}`, input: { command: hostile(6) } },
          ],
          usage: { input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      {
        ...base,
        type: 'user',
        uuid: 'h-3',
        parentUuid: 'h-2',
        promptId: 'p-1',
        timestamp: '2026-01-01T10:00:02.000Z',
        message: { role: 'user', content: [{ tool_use_id: 'toolu_h1', type: 'tool_result', content: hostile(7), is_error: true }] },
      },
      { type: 'ai-title', aiTitle: hostile(8), sessionId: SESSION },
    ];
    await writeFile(join(project, `${SESSION}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    server = await startTestServer({}, [dir]);
    profile = await mkdtemp(join(tmpdir(), 'weave-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(profile, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  it('shows the strings as text: no element, attribute or script comes from them', async () => {
    const page = browser.pages()[0] ?? (await browser.newPage());
    const response = await page.goto(`${server.base}/conversation/${SESSION}`);
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /default-src 'none'/);
    await page.click('details.tool > summary');
    await page.click('details.thinking > summary');
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    // Not one element the strings name: the page itself writes no script, img, i or b.
    assert.equal(await page.$$eval('script, img, i, b, iframe', (els) => els.length), 0);
    assert.equal(await page.textContent('h1'), hostile(8));
    assert.equal(await page.textContent('.prompt'), hostile(1));
    assert.equal(await page.textContent('div.say[data-kind="message.assistant"]'), hostile(4));
    assert.equal(await page.textContent('details.thinking .say'), hostile(3));
    assert.equal(await page.textContent('.call-head .model'), `claude-<i>${hostile(2)}`);
    assert.equal(await page.textContent('details.tool .tool-name'), `Bash${hostile(5)}`);
    assert.equal(await page.textContent('details.tool pre.json'), JSON.stringify({ command: hostile(6) }, null, 2));
    assert.equal(await page.textContent('details.tool .io pre:not(.json)'), hostile(7));
    assert.equal(await page.textContent('.facts > span:first-child'), 'project -home-eve-"><b>project');
  });
});

describe('the pages show a control character or a direction override as an escape, as the commands print it', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  let server: TestServer;
  let o: OpenPage;

  before(async () => {
    server = await startTestServer({}, [join(REPO, 'fixtures', 'model', 'legacy-runs'), join(REPO, 'fixtures', 'hardening', 'odd')]);
    o = await openPage(server.base, 1400);
  });

  after(async () => {
    await o?.close();
    await server?.stop();
  });

  /** Whether the page's text or title holds a raw ESC or RIGHT-TO-LEFT OVERRIDE. */
  const raw = (page: Page) =>
    page.evaluate(() =>
      /[\u001b\u202e]/.test(`${(document as unknown as { title: string }).title}${document.querySelector('body')?.textContent}`),
    );

  it('a hook notice written with terminal bold, on the conversation page', async () => {
    // fixtures/model/legacy-runs, line 5: a system record "Running \u001b[1mStop\u001b[22m hook".
    await o.page.goto(`${server.base}/conversation/80000000-0000-4000-8000-000000000001`);
    const steps = await o.page.$$eval('div.step .text', (spans) => spans.map((s) => s.textContent));
    assert.ok(steps.includes('Running \\x1b[1mStop\\x1b[22m hook'), steps.join(' | '));
    assert.equal(await raw(o.page), false);
  });

  it('a working directory with a colour and a right-to-left override, on the transcript page', async () => {
    // fixtures/hardening/odd, line 1: cwd "/home/ada/\u001b[31modd\u202e".
    await o.page.goto(
      `${server.base}/describe?iri=${encodeURIComponent('urn:soul:local:Weave/Transcript/0dd00dd0-0000-4000-8000-000000000001')}`,
    );
    const cwd = await o.page.$$eval('table.statements tr', (rows) =>
      rows.filter((r) => r.querySelector('th')?.textContent === 'weave:cwd').map((r) => r.querySelector('td')?.textContent),
    );
    assert.deepEqual(cwd, ['/home/ada/\\x1b[31modd\\u202e']);
    assert.equal(await raw(o.page), false);
    assert.deepEqual(o.problems, []);
  });
});

describe('the session page and the conversation page count compactions alike', {
  skip: CHROMIUM ? false : 'no chromium binary (apt-get install chromium, or set CHROMIUM_PATH)',
}, () => {
  let server: TestServer;
  let o: OpenPage;

  before(async () => {
    server = await startTestServer({}, [join(REPO, 'fixtures', 'records')]);
    o = await openPage(server.base, 1400);
  });

  after(async () => {
    await o?.close();
    await server?.stop();
  });

  it('a compaction and a microcompaction (old tool output cleared in place, no new epoch) are named apart', async () => {
    // fixtures/records: 4444… holds a microcompact_boundary and a compact_boundary, 7777… two
    // compact_boundary records, 3333… none.
    const expected: [string, string][] = [
      ['44444444-4444-4444-8444-444444444444', '1 compaction, 1 microcompaction'],
      ['77777777-7777-4777-8777-777777777777', '2 compactions'],
      ['33333333-3333-4333-8333-333333333333', '0 compactions'],
    ];
    for (const [id, words] of expected) {
      await o.page.goto(`${server.base}/describe?iri=${encodeURIComponent(`urn:soul:local:Weave/Transcript/${id}`)}`);
      const counts = await o.page.$$eval(
        '.session-summary dt',
        (dts) => dts.find((dt) => dt.textContent === 'counts')?.nextElementSibling?.textContent,
      );
      assert.equal(counts?.split(' · ').at(-1), words, `the session page of ${id}`);
      await o.page.goto(`${server.base}/conversation/${id}`);
      const line = await o.page.textContent('#counts li.muted');
      assert.equal(line?.split(' · ').at(-1), words, `the conversation page of ${id}`);
    }
    assert.deepEqual(o.problems, []);
  });
});
