import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SYNTHETIC_SESSION, writeSyntheticSession } from '../../bench/synthetic.ts';
import { render } from '../../src/client/conversation.ts';
import { conversationDocument, conversationQueries, readView, type ConversationView } from '../../src/model/view.ts';
import { sessionFactsQuery } from '../../src/overview/session.ts';
import { instanceIri } from '../../src/rdf/iri.ts';
import { detailsFromRows, readDetails } from '../../src/server/http/conversation-details.ts';
import { pageNodes, renderConversationPage } from '../../src/server/http/pages/conversation.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { select, startTestServer, type TestServer } from './helpers.ts';

/**
 * A long session through the real route: the bench's synthetic session at 3 MB (over 100,000
 * quads, so the route reads what it shows, by rounds, where a smaller one is read whole). Each of
 * its pages and the printout `weave conversation` asks for are byte for byte what the whole tree
 * gives.
 */
describe('a long session’s conversation, read by rounds, as its whole tree shows it', () => {
  let server: TestServer;
  let work: string;
  let graph: string;
  let whole: ConversationView;
  const rows = (query: string) => select(server.base, query);

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'weave-long-'));
    await writeSyntheticSession(join(work, 'projects'), { bytes: 3e6 });
    server = await startTestServer({}, [join(work, 'projects')]);
    const manifest = await readManifest(server.storeDir);
    const [name, entry] = Object.entries(manifest!.graphs).find(([, e]) => e.sessionId === SYNTHETIC_SESSION && !e.reader)!;
    graph = name;
    // Past the route's 100,000: read by rounds.
    assert.ok(entry.quads > 100_000, `${entry.quads} quads`);
    whole = await readView(graph, SYNTHETIC_SESSION, rows);
  });
  after(async () => {
    await server?.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('its pages of 100 talks, the first, a middle one and the last', async () => {
    // The main stream's talks, in its epochs.
    const talks = whole.root.children[0].children
      .flatMap((c) => (c.kind === 'epoch' ? c.children : [c]))
      .filter((c) => c.kind === 'talk').length;
    assert.ok(talks > 300, `${talks} talks`);
    const [facts] = await rows(sessionFactsQuery(graph, SYNTHETIC_SESSION));
    const last = talks - ((talks - 1) % 100);
    for (const from of [1, 201, last]) {
      const served = await (await fetch(`${server.base}/conversation/${SYNTHETIC_SESSION}?from=${from}`)).text();
      const expected = renderConversationPage({
        document: conversationDocument(whole),
        starts: whole.starts,
        details: detailsFromRows(await readDetails(graph, pageNodes(whole, from), rows)),
        title: facts?.title || undefined,
        project: facts?.project,
        start: facts?.start,
        end: facts?.end,
        compactions: { compactions: Number(facts?.compactions), microcompactions: Number(facts?.microcompactions) },
        transcript: instanceIri('local', 'Transcript', SYNTHETIC_SESSION).slice(1, -1),
        treeQuery: conversationQueries(graph).tree,
        from,
      });
      // Anchors are numbered in the order the page's tree is walked, and a page read by rounds holds
      // no nodes of earlier pages: the same anchors, renumbered in order of first use.
      assert.equal(anchorsInOrder(served), anchorsInOrder(expected), `the page from talk ${from}`);
      assert.ok(served.includes(`</a> ${from}–${Math.min(from + 99, talks)} of ${talks} · `), `the page from talk ${from}: its place`);
    }
  });

  it('the printout weave conversation asks for, at two depths and widths', async () => {
    for (const [depth, width] of [
      [7, 6],
      [3, 2],
    ]) {
      const res = await fetch(`${server.base}/conversation/${SYNTHETIC_SESSION}?format=view&depth=${depth}&width=${width}`);
      const { view } = (await res.json()) as { view: ConversationView };
      assert.equal(render(view, String, depth, width), render(whole, String, depth, width), `--depth ${depth} --width ${width}`);
    }
  });
});

/** `html` with its `node-N` anchors renumbered in the order they first appear. */
function anchorsInOrder(html: string): string {
  const seen = new Map<string, number>();
  return html.replace(/node-\d+/g, (anchor) => {
    if (!seen.has(anchor)) seen.set(anchor, seen.size + 1);
    return `node-${seen.get(anchor)}`;
  });
}
