import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { HttpError } from '../../src/server/errors.ts';
import type { ChangedGraph } from '../../src/server/messages.ts';
import { QueryPool, type PoolEvent } from '../../src/server/workers/pool.ts';
import { filesOf } from '../../src/store/manifest.ts';
import { lockStore, openStoreForWriting } from '../../src/store/writer.ts';
import { startTestServer, serverFixturesStore } from './helpers.ts';
import { countIn, queryJob as query } from './jobs.ts';

/**
 * A query worker told of a graph whose file does not load (corrupted on disk) failed the reload,
 * which ended the thread: the request waiting got 500 "the query worker crashed" and the copy
 * opened in its place could not open the store. The copy now drops that graph and carries on,
 * the pool says which file once, and the graph's next good version loads.
 */

const FINDINGS = 'urn:soul:local:Weave/test/reader/tool/error';
const CROSS_JOIN = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';

/** Asked of both copies at once (a job goes to the first idle one). */
const countsIn = (pool: QueryPool, graph: string) => Promise.all([countIn(pool, graph), countIn(pool, graph)]);
const quads = (n: number) => Array.from({ length: n }, (_, i) => `<urn:x:a> <urn:x:p> "${i + 1}" <${FINDINGS}> .\n`).join('');

/** Writes `n` quads as the graph's next version, its second line then damaged on disk (no longer N-Quads). */
async function damagedVersion(dir: string, n: number): Promise<ChangedGraph> {
  const writer = await openStoreForWriting(dir, 'local');
  const entry = await writer.writeGraph(FINDINGS, quads(n), { quads: n });
  await writer.close();
  const handle = await open(join(dir, entry.file), 'r+');
  await handle.write('<urn:x:a> <urn:x:p> "2"  broken', quads(1).length);
  await handle.close();
  return { graph: FINDINGS, files: filesOf(entry) };
}

describe('a reload whose graph file does not load', () => {
  const store = serverFixturesStore('weave-reload-failure-');

  it('drops the graph, says which file once, and loads its next good version', async () => {
    const events: PoolEvent[] = [];
    const pool = new QueryPool({
      size: 2,
      storeDir: store(),
      soul: 'local',
      timeoutMs: 20_000,
      heapMb: 512,
      queueLimit: 8,
      spare: true,
      onEvent: (e) => events.push(e),
    });
    const lock = await lockStore(store());
    try {
      await pool.whenReady();
      while (pool.stats.ready < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      const size = pool.quads;
      const writer = await openStoreForWriting(store(), 'local');
      const good = await writer.writeGraph(FINDINGS, quads(3), { quads: 3 });
      await writer.close();
      pool.reload([{ graph: FINDINGS, files: filesOf(good) }]);
      assert.deepEqual(await countsIn(pool, FINDINGS), [3, 3]);
      assert.equal(pool.quads, size + 3);

      const bad = await damagedVersion(store(), 4);
      const [{ file }] = bad.files;
      pool.reload([bad]);
      // Both copies answer, each without the graph; neither was replaced.
      assert.deepEqual(await countsIn(pool, FINDINGS), [0, 0]);
      assert.equal(pool.restarts, 0, 'no copy was replaced');
      assert.equal(pool.quads, size, 'the store counts the graph gone');
      const said = events.filter((e) => e.kind === 'reload-failed');
      assert.deepEqual(
        said,
        [{ kind: 'reload-failed', message: `${join(store(), file)}:2: not valid N-Quads` }],
        'said once, by file and line',
      );
      assert.deepEqual(pool.stats.notLoaded, [{ graph: FINDINGS, problem: `${join(store(), file)}:2: not valid N-Quads` }]);

      const fixed = await writer.writeGraph(FINDINGS, quads(5), { quads: 5 });
      await writer.close();
      pool.reload([{ graph: FINDINGS, files: filesOf(fixed) }]);
      assert.deepEqual(await countsIn(pool, FINDINGS), [5, 5]);
      assert.equal(pool.quads, size + 5);
      assert.equal(pool.stats.notLoaded, undefined, 'nothing left to attend to');
      assert.equal(pool.restarts, 0);
    } finally {
      await lock.release();
      await pool.close();
    }
  });

  it('a copy opened after it, from disk, leaves the graph out too rather than fail to open', async () => {
    const pool = new QueryPool({ size: 1, storeDir: store(), soul: 'local', timeoutMs: 20_000, heapMb: 512, queueLimit: 8 });
    const lock = await lockStore(store());
    try {
      await pool.whenReady();
      const bad = await damagedVersion(store(), 6);
      pool.reload([bad]);
      assert.equal(await countIn(pool, FINDINGS), 0);
      // A long job is cut at its deadline: with one worker, the copy in its place opens from disk.
      const runaway = await pool.run(query(CROSS_JOIN), 3000).catch((e: HttpError) => e.status);
      assert.equal(runaway, 504);
      assert.equal(await countIn(pool, FINDINGS), 0, 'the endpoint answers, without the graph');
      assert.equal(pool.stats.openError, undefined);
      assert.deepEqual(pool.stats.notLoaded, [{ graph: FINDINGS, problem: `${join(store(), bad.files[0].file)}:2: not valid N-Quads` }]);
      const writer = await openStoreForWriting(store(), 'local');
      const fixed = await writer.writeGraph(FINDINGS, quads(2), { quads: 2 });
      await writer.close();
      pool.reload([{ graph: FINDINGS, files: filesOf(fixed) }]);
      assert.equal(await countIn(pool, FINDINGS), 2);
      assert.equal(pool.stats.notLoaded, undefined);
    } finally {
      await lock.release();
      await pool.close();
    }
  });

  it('a copy opened during the run that told of it says so no second time', async () => {
    const events: PoolEvent[] = [];
    const pool = new QueryPool({
      size: 1,
      storeDir: store(),
      soul: 'local',
      timeoutMs: 20_000,
      heapMb: 512,
      queueLimit: 8,
      onEvent: (e) => events.push(e),
    });
    const lock = await lockStore(store());
    try {
      await pool.whenReady();
      const before = await countIn(pool, FINDINGS);
      // A run writes the graph, damaged on disk, and tells the copy; its manifest still names the version before.
      const run = await openStoreForWriting(store(), 'local', { batch: Number.POSITIVE_INFINITY });
      const entry = await run.writeGraph(FINDINGS, quads(7), { quads: 7 });
      const handle = await open(join(store(), entry.file), 'r+');
      await handle.write('<urn:x:a> <urn:x:p> "2"  broken', quads(1).length);
      await handle.close();
      pool.reload([{ graph: FINDINGS, files: filesOf(entry) }], { recorded: false });
      assert.equal(await countIn(pool, FINDINGS), 0);
      // The copy in place of one cut opens the version the manifest names, then the change told of.
      const runaway = await pool.run(query(CROSS_JOIN), 3000).catch((e: HttpError) => e.status);
      assert.equal(runaway, 504);
      assert.equal(await countIn(pool, FINDINGS), 0, 'as the copy before it');
      const problem = `${join(store(), entry.file)}:2: not valid N-Quads`;
      assert.deepEqual(
        events.filter((e) => e.kind === 'reload-failed'),
        [{ kind: 'reload-failed', message: problem }],
      );
      assert.deepEqual(pool.stats.notLoaded, [{ graph: FINDINGS, problem }]);
      await run.abandon();
      await pool.recorded({ failed: true });
      assert.equal(await countIn(pool, FINDINGS), before, 'the run failed: the version the manifest names');
      assert.equal(pool.stats.notLoaded, undefined);
    } finally {
      await lock.release();
      await pool.close();
    }
  });

  it('weave serve beside another writer: answers, logs the file once, and /status says the store needs attention', async () => {
    // Its store is the describe's: opened as it is, nothing ingested.
    const server = await startTestServer({ storeDir: store(), timeoutMs: 5000, queueLimit: 4, maxResultBytes: 1e6 }, null);
    const { lines, base } = server;
    const lock = await lockStore(store());
    try {
      // Another process writes the graph; the server follows the manifest and loads it.
      const bad = await damagedVersion(store(), 3);
      const problem = `${join(store(), bad.files[0].file)}:2: not valid N-Quads`;
      for (let i = 0; i < 200 && !lines.length; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      const sparql = `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${FINDINGS}> { ?s ?p ?o } }`;
      const answer = await fetch(`${base}/sparql?query=${encodeURIComponent(sparql)}`, {
        headers: { accept: 'application/sparql-results+json' },
      });
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(await answer.text()).results.bindings[0].n.value, '0');
      assert.deepEqual(lines, [
        `a graph did not load and is left out until its next version (weave verify --self checks the store): ${problem}`,
      ]);
      const status = JSON.parse(await (await fetch(`${base}/status`)).text());
      assert.equal(status.store.attention, '1 graph(s) did not load and are left out; run weave verify --self');
      assert.deepEqual(status.workers.notLoaded, [{ graph: FINDINGS, problem }]);
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
    } finally {
      await lock.release();
      await server.stop();
    }
  });
});
