import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { StoreSummary } from '../../src/server/http/store-summary.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, ingested } from '../model/helpers.ts';

test("the store's summary: a session graph's quads as the manifest counts them, none for a graph it does not name", async () => {
  const g = await ingested([join(FIXTURES, 'async-agent')]);
  try {
    const summary = new StoreSummary(g.dir);
    const manifest = await readManifest(g.dir);
    const [graph] = Object.entries(manifest!.graphs).find(([, e]) => e.sessionId === '40000000-0000-4000-8000-000000000001' && !e.reader)!;
    // The manifest's count is the graph's: counted again in the opened store.
    const [{ n }] = g.select(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${graph}> { ?s ?p ?o } }`);
    assert.equal(await summary.quadsOf(graph), Number(n));
    assert.ok(Number(n) > 100, `${n} quads`);
    assert.equal(await summary.quadsOf('urn:soul:elsewhere:Weave/graph/40000000-0000-4000-8000-000000000001'), undefined);
    assert.deepEqual(await summary.get(), summary.peek());
    assert.equal((await summary.get()).sessions, 1);
  } finally {
    await g.close();
  }
});
