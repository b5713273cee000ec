import assert from 'node:assert/strict';
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

  test('the conversation page, one talk or two to a page: the pages together show every talk, each as the whole page does', async () => {
    /** Each talk's IRI and head (its runs, calls, tools and tokens: its subtree and its calls' details, read or not) in page order. */
    const talks = (html: string) =>
      [...html.matchAll(/<section class="talk[^>]*>(<header class="talk-head">.*?)<\/header>/g)].map((m) =>
        m[1].replace(/ id="node-\d+"/g, ''),
      );
    const page = async (graph: string, id: string, from: number | undefined, size: number) => {
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
    };
    let paged = 0;
    for (const [graph, id] of sessions) {
      const whole = talks(await page(graph, id, undefined, 0));
      for (const size of [1, 2]) {
        const seen: string[] = [];
        let pages = 0;
        for (let from = 1; pages === 0 || seen.length < whole.length; from += size) {
          const html = await page(graph, id, from, size);
          seen.push(...talks(html));
          pages++;
          if (!html.includes(`?from=${from + size}"`)) break;
        }
        if (pages > 1) paged++;
        assert.deepEqual(seen, whole, `${id}, ${size} a page`);
      }
    }
    assert.ok(paged >= 6, `${paged} sessions were paged`);
  });
});
