import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QueryPool, type PoolEvent } from '../../src/server/workers/pool.ts';
import { filesOf } from '../../src/store/manifest.ts';
import { lockStore, openStoreForWriting } from '../../src/store/writer.ts';
import { startTestServer, serverFixturesStore } from './helpers.ts';
import { countIn, queryJob as query } from './jobs.ts';

/**
 * `/status` `store.quads` (and the weave_store_quads gauge) is the size of the store as the
 * endpoint answers it now. It was the count of whichever copy said its size last: a copy busy with
 * a long query while two changes came applied them after the other copy had, and its count of the
 * first change, the last to arrive, said the store had shrunk back; and a write with no other copy
 * open to reload it left the count where it was.
 */

const GRAPH = 'urn:soul:local:Weave/test/quads';
/** Some 2 s on the server fixtures' 3,000 quads: long enough for two changes to come while it runs. */
const LONG = 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?x { ?a ?b ?c } GRAPH ?y { ?d a ?f } FILTER(STR(?c) != STR(?f)) }';
const quads = (n: number) => Array.from({ length: n }, (_, i) => `<urn:x:a> <urn:x:p> "${i + 1}" <${GRAPH}> .\n`).join('');

describe("the store's quads, as /status says them", () => {
  const store = serverFixturesStore('weave-store-quads-');

  it('are counted by a copy that applied every change: one that applies them late, after a long query, does not count the store back', {
    timeout: 120_000,
  }, async () => {
    const counts: number[] = [];
    const pool = new QueryPool({
      size: 2,
      storeDir: store(),
      soul: 'local',
      timeoutMs: 60_000,
      heapMb: 512,
      queueLimit: 8,
      spare: true,
      onEvent: (e: PoolEvent) => {
        if (e.kind === 'store') counts.push(e.quads);
      },
    });
    const lock = await lockStore(store());
    try {
      await pool.whenReady();
      while (pool.stats.ready < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      const size = pool.quads;
      counts.length = 0;
      // One copy runs the long query; the other takes the changes as they come and answers.
      let longDone = false;
      const long = pool.run(query(LONG)).then(() => (longDone = true));
      const writer = await openStoreForWriting(store(), 'local');
      const three = await writer.writeGraph(GRAPH, quads(3), { quads: 3 });
      pool.reload([{ graph: GRAPH, files: filesOf(three) }]);
      assert.equal(await countIn(pool, GRAPH), 3);
      const five = await writer.writeGraph(GRAPH, quads(5), { quads: 5 });
      await writer.close();
      pool.reload([{ graph: GRAPH, files: filesOf(five) }]);
      assert.equal(await countIn(pool, GRAPH), 5);
      assert.equal(longDone, false, 'both changes came while the long query ran');
      assert.equal(pool.quads, size + 5);
      await long;
      // The busy copy now applies both changes, in order: it counts the first, then the second.
      while (counts.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(counts, [size + 3, size + 5, size + 5]);
      assert.equal(pool.quads, size + 5);
    } finally {
      await lock.release();
      await pool.close();
    }
  });
});

it('a write with one copy open counts in /status at once', { timeout: 120_000 }, async () => {
  const token = 'quads-token';
  const server = await startTestServer({ allowUpdate: true, token, workers: 1 });
  try {
    const status = async () => ((await (await fetch(`${server.base}/status`)).json()) as { store: { quads: number } }).store.quads;
    const before = await status();
    const res = await fetch(`${server.base}/sparql`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-update', authorization: `Bearer ${token}` },
      body: 'INSERT DATA { GRAPH <urn:w:notes> { <urn:w:a> <urn:w:p> 1 , 2 } }',
    });
    assert.equal(res.status, 204);
    assert.equal(await status(), before + 2);
  } finally {
    await server.stop();
  }
});
