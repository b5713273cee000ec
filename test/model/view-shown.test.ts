import assert from 'node:assert/strict';
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { render } from '../../src/client/conversation.ts';
import { conversationView, readView, shownInPrint, storeRows, type Row } from '../../src/model/view.ts';
import { detailsFromRows, readDetails } from '../../src/server/http/conversation-details.ts';
import { conversationDocument, conversationQueries } from '../../src/model/view.ts';
import { pageNodes, renderConversationPage, shownOnPage } from '../../src/server/http/pages/conversation.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, ingested, type Ingested } from './helpers.ts';

/**
 * A long session's printout and page read only what they show (model/view.ts readView): the top
 * of the tree, then what lies within the nodes shown. What they print must be what the whole tree
 * prints, for every fixture session, at every depth and width, and page by page.
 */

const PRINTS: [number, number][] = [
  [1, 1],
  [2, 1],
  [3, 2],
  [4, 1],
  [5, 3],
  [7, 6],
  [12, 100],
];

describe('what a printout or a page shows, read alone, is what the whole tree shows', () => {
  let g: Ingested;
  let sessions: [string, string][];
  before(async () => {
    g = await ingested([FIXTURES]);
    const manifest = await readManifest(g.dir);
    sessions = Object.entries(manifest!.graphs).flatMap(([graph, e]) =>
      e.sessionId && !e.reader ? [[graph, e.sessionId] as [string, string]] : [],
    );
  });
  after(() => g.close());

  const rows = (query: string): Row[] => storeRows(g.store, query);

  test('the fixtures hold sessions with compactions, sub-agents and summarisers to read', () => {
    assert.ok(sessions.length >= 12, `${sessions.length} sessions`);
  });

  test('weave conversation: each printout, at each --depth and --width, as the whole tree prints it', async () => {
    for (const [graph, id] of sessions) {
      const whole = conversationView(g.store, graph, id);
      for (const [depth, width] of PRINTS) {
        const shown = await readView(graph, id, rows, shownInPrint(depth, width));
        assert.equal(render(shown, String, depth, width), render(whole, String, depth, width), `${id} --depth ${depth} --width ${width}`);
      }
    }
  });

  test('the conversation page, one talk or two to a page: the pages together show every talk and stream, each as the whole page does', async () => {
    let paged = 0;
    for (const [graph, id] of sessions) {
      const whole = await page(rows, graph, id, undefined, 0);
      for (const size of [1, 2]) {
        const pages = await everyPage(rows, graph, id, size, talks(whole).length);
        if (pages.length > 1) paged++;
        assert.deepEqual(pages.flatMap(talks), talks(whole), `${id}, ${size} a page`);
        assert.deepEqual(pages.flatMap(streams).sort(), streams(whole).sort(), `${id}, ${size} a page: its streams`);
      }
    }
    assert.ok(paged >= 6, `${paged} sessions were paged`);
  });
});

test('a paged session: a stream only an unresolved call started is on the last page, as at the whole page’s end', async () => {
  // The async-agent fixture (its orphan sub-agent names a spawning call the session lacks), with a
  // second prompt and answer: two talks, so two pages of one talk.
  const work = await mkdtemp(join(tmpdir(), 'weave-orphan-'));
  const folder = join(work, '-home-dev-docs');
  await cp(join(FIXTURES, 'async-agent/-home-dev-docs'), folder, { recursive: true });
  const common = {
    userType: 'external',
    entrypoint: 'cli',
    cwd: '/home/dev/docs',
    sessionId: ORPHANS,
    version: '2.1.119',
    gitBranch: 'main',
    isSidechain: false,
  };
  const more = [
    {
      ...common,
      parentUuid: '40000000-0000-4000-8000-00000000d012',
      promptId: 'q0000000-0000-4000-8000-000000000009',
      type: 'user',
      message: { role: 'user', content: 'Now proofread it.' },
      uuid: '40000000-0000-4000-8000-00000000d013',
      timestamp: '2026-05-07T14:10:00.000Z',
    },
    {
      ...common,
      parentUuid: '40000000-0000-4000-8000-00000000d013',
      type: 'assistant',
      requestId: 'req_docs_07',
      uuid: '40000000-0000-4000-8000-00000000d014',
      timestamp: '2026-05-07T14:10:05.000Z',
      message: {
        model: 'claude-opus-4-7',
        id: 'msg_docs_07',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'Proofread.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
      },
    },
  ];
  await appendFile(join(folder, `${ORPHANS}.jsonl`), more.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const g = await ingested([work]);
  try {
    const rows = (query: string): Row[] => storeRows(g.store, query);
    const manifest = await readManifest(g.dir);
    const [graph] = Object.entries(manifest!.graphs).find(([, e]) => e.sessionId === ORPHANS && !e.reader)!;
    const whole = await page(rows, graph, ORPHANS, undefined, 0);
    // Two in the main stream, one in each sub-agent's.
    assert.equal(talks(whole).length, 4);
    const orphan = streams(whole).filter((head) => head.includes('aorphan000000001'));
    assert.equal(orphan.length, 1, 'the whole page shows the orphan stream');
    assert.match(whole, /Sub-agent streams no call of this session started \(1\)/);
    const pages = await everyPage(rows, graph, ORPHANS, 1, 4);
    assert.equal(pages.length, 2);
    const [first, last] = pages;
    assert.deepEqual(
      streams(first).filter((head) => head.includes('aorphan000000001')),
      [],
    );
    assert.deepEqual(
      streams(last).filter((head) => head.includes('aorphan000000001')),
      orphan,
    );
    assert.match(last, /Sub-agent streams no call of this session started \(1\)/);
    assert.deepEqual([first, last].flatMap(streams).sort(), streams(whole).sort());
  } finally {
    await g.close();
    await rm(work, { recursive: true, force: true });
  }
});

const ORPHANS = '40000000-0000-4000-8000-000000000001';

/** Each talk's IRI and head (its runs, calls, tools and tokens: its subtree and its calls' details, read or not) in page order. */
function talks(html: string): string[] {
  return [...html.matchAll(/<section class="talk[^>]*>(<header class="talk-head">.*?)<\/header>/g)].map((m) =>
    m[1].replace(/ id="node-\d+"/g, ''),
  );
}

/** Each stream's head (its name, who started it, its calls and tokens). */
function streams(html: string): string[] {
  return [...html.matchAll(/<h2 class="stream-head">.*?<\/h2>/g)].map((m) => m[0]);
}

/** A session's page from `from` (all of it when undefined), read as the route reads it. */
async function page(rows: (query: string) => Row[], graph: string, id: string, from: number | undefined, size: number): Promise<string> {
  const view = await readView(graph, id, rows, from === undefined ? undefined : shownOnPage(from, size));
  const nodes = from === undefined ? undefined : pageNodes(view, from, size);
  // Three nodes to an asking: a page's details read in parts, as a page of thousands of nodes is.
  const details = detailsFromRows(await readDetails(graph, nodes, async (query) => rows(query), 3));
  return renderConversationPage({
    document: conversationDocument(view),
    starts: view.starts,
    details,
    transcript: `urn:transcript:${id}`,
    treeQuery: conversationQueries(graph).tree,
    ...(from === undefined ? { talksPerPage: Number.POSITIVE_INFINITY } : { from, talksPerPage: size }),
  });
}

/** Every page of `size` talks, following the page's own links, until `total` talks are seen. */
async function everyPage(rows: (query: string) => Row[], graph: string, id: string, size: number, total: number): Promise<string[]> {
  const pages: string[] = [];
  let seen = 0;
  for (let from = 1; pages.length === 0 || seen < total; from += size) {
    const html = await page(rows, graph, id, from, size);
    pages.push(html);
    seen += talks(html).length;
    if (!html.includes(`?from=${from + size}"`)) break;
  }
  return pages;
}
