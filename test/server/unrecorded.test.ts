import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { HttpError } from '../../src/server/errors.ts';
import { QueryPool } from '../../src/server/workers/pool.ts';
import { filesOf, readManifest, type Manifest } from '../../src/store/manifest.ts';
import { asNamedIn, unrecordedIn } from '../../src/server/workers/unrecorded.ts';
import { lockStore, openStoreForWriting } from '../../src/store/writer.ts';
import { Ingester } from '../../src/server/workers/ingester.ts';
import { Mutex } from '../../src/server/workers/mutex.ts';
import type { ChangedGraph } from '../../src/server/messages.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';
import { countIn, queryJob as query } from './jobs.ts';
import { serverFixturesStore } from './helpers.ts';

/**
 * An ingest run tells the query workers of each graph as soon as its file is written, while its
 * manifest names it only at the next batch (src/store/writer.ts). A copy of the store that opens in
 * between (the standby, opened beside a long job, kept once that job is cut) read a manifest without
 * the graph and was never told of it: the server lacked graphs that were on disk until they changed
 * again. It now hears of every change the manifest may not name yet (src/server/workers/pool.ts).
 */

const CROSS_JOIN = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
const FINDINGS = 'urn:soul:local:Weave/test/reader/tool/error';

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe('a copy that opens while an ingest run has graphs its manifest does not name yet', () => {
  const store = serverFixturesStore('weave-unrecorded-');

  /** A run's graph told while `size` workers run, then a long job cut: the copy left opened meanwhile. */
  async function openedDuringRun(size: number, graph: string): Promise<void> {
    const pool = new QueryPool({ size, storeDir: store(), soul: 'local', timeoutMs: 20_000, heapMb: 512, queueLimit: 8 });
    const lock = await lockStore(store());
    try {
      await pool.whenReady();
      if (size > 1) await until(() => pool.stats.standby);
      // A run writes a graph and tells the copy open now; its manifest write waits for the batch.
      const writer = await openStoreForWriting(store(), 'local', { batch: Number.POSITIVE_INFINITY });
      const quads = ['<urn:x:a> <urn:x:p> "1"', '<urn:x:a> <urn:x:p> "2"', '<urn:x:b> <urn:x:p> "3"'];
      const entry = await writer.writeGraph(graph, quads.map((q) => `${q} <${graph}> .\n`).join(''), { quads: 3 });
      pool.reload([{ graph, files: filesOf(entry) }], { recorded: false });
      assert.equal(await countIn(pool, graph), 3);
      // A long job (with two workers, the standby opens beside it, reading the manifest as it is) is cut at its deadline.
      const runaway = pool.run(query(CROSS_JOIN), 3000).catch((e: HttpError) => e.status);
      if (size > 1) await until(() => pool.stats.copies === 2);
      assert.equal(await runaway, 504);
      await until(() => pool.stats.ready === 1 && pool.stats.copies === 1);
      // The run ends: its manifest names the graph.
      await writer.close();
      pool.recorded();
      assert.equal(await countIn(pool, graph), 3, 'the copy that replaced the one cut holds the graph');
    } finally {
      await lock.release();
      await pool.close();
    }
  }

  it('loads them after the manifest it opened: the standby, opened beside a long job', () => openedDuringRun(2, FINDINGS));
  it('and with one worker, the copy opened when a long job was cut', () => openedDuringRun(1, `${FINDINGS}/again`));
});

describe('an ingest run that fails before its manifest names what it told of', () => {
  const store = serverFixturesStore('weave-run-failed-');

  it('leaves every copy, open then or later, as the manifest says', async () => {
    const pool = new QueryPool({ size: 2, spare: true, storeDir: store(), soul: 'local', timeoutMs: 20_000, heapMb: 512, queueLimit: 8 });
    const lock = await lockStore(store());
    const fresh = `${FINDINGS}/new`;
    const rows = (graph: string, n: number) =>
      Array.from({ length: n }, (_, i) => `<urn:x:a> <urn:x:p> "${i + 1}" <${graph}> .\n`).join('');
    /** Asked of both copies at once (a job goes to the first idle one). */
    const counts = (graph: string) => Promise.all([countIn(pool, graph), countIn(pool, graph)]);
    try {
      await pool.whenReady();
      await until(() => pool.stats.ready === 2);
      const recorded = await openStoreForWriting(store(), 'local');
      const kept = await recorded.writeGraph(FINDINGS, rows(FINDINGS, 3), { quads: 3 });
      await recorded.close();
      pool.reload([{ graph: FINDINGS, files: filesOf(kept) }]);
      // A run writes a new version of one graph and a new graph, and tells the copies of both.
      const run = await openStoreForWriting(store(), 'local', { batch: Number.POSITIVE_INFINITY });
      const changed = await run.writeGraph(FINDINGS, rows(FINDINGS, 5), { quads: 5 });
      const added = await run.writeGraph(fresh, rows(fresh, 2), { quads: 2 });
      pool.reload(
        [
          { graph: FINDINGS, files: filesOf(changed) },
          { graph: fresh, files: filesOf(added) },
        ],
        { recorded: false },
      );
      assert.deepEqual(await counts(FINDINGS), [5, 5]);
      assert.deepEqual(await counts(fresh), [2, 2]);
      // Its manifest cannot be written: what it wrote is removed, and the run ends failed.
      await run.abandon();
      await pool.recorded({ failed: true });
      assert.deepEqual(await counts(FINDINGS), [3, 3], 'the version the manifest names');
      assert.deepEqual(await counts(fresh), [0, 0], 'a graph the manifest does not name');
      assert.equal(pool.restarts, 0);
    } finally {
      await lock.release();
      await pool.close();
    }
  });
});

describe('asNamedIn', () => {
  const graph = 'urn:soul:local:Weave/s/reader/human/authored';
  const other = 'urn:soul:local:Weave/s/reader/tool/error';
  const entry = { file: 'graphs/g.aaaaaaaaaaaa.nq', bytes: 10, quads: 1 };
  const manifest: Manifest = { format: 'weave-store/1', soul: 'local', graphs: { [graph]: entry } };
  const told = (g: string, tag: string) => ({ graph: g, files: [{ file: `graphs/g.${tag}.nq`, bytes: 20 }] });

  it('gives each graph told of once, in the order last told, with the files the manifest names or none', () => {
    assert.deepEqual(asNamedIn(manifest, [told(graph, 'bbbbbbbbbbbb'), told(other, 'cccccccccccc'), told(graph, 'dddddddddddd')]), [
      { graph: other, files: [] },
      { graph, files: [{ file: entry.file, bytes: 10, digest: undefined }] },
    ]);
    assert.deepEqual(asNamedIn(undefined, [told(graph, 'bbbbbbbbbbbb')]), [{ graph, files: [] }]);
  });

  it('leaves out the graphs whose last change the manifest names: the copies hold them already', () => {
    const named = { graph, files: [{ file: entry.file, bytes: 10 }] };
    assert.deepEqual(asNamedIn(manifest, [told(graph, 'bbbbbbbbbbbb'), named]), []);
    assert.deepEqual(asNamedIn(manifest, [named, told(other, 'cccccccccccc'), { graph: other, files: [] }]), []);
  });
});

describe('unrecordedIn', () => {
  const graph = 'urn:soul:local:Weave/s/reader/human/authored';
  const version = (tag: string, bytes: number) => ({ graph, files: [{ file: `graphs/g.${tag}.nq`, bytes }] });
  const manifestNaming = (tag: string | undefined, bytes = 0): Manifest => ({
    format: 'weave-store/1',
    soul: 'local',
    graphs: tag ? { [graph]: { file: `graphs/g.${tag}.nq`, bytes, quads: 1 } } : {},
  });
  const [v1, v2, v3] = [version('aaaaaaaaaaaa', 10), version('bbbbbbbbbbbb', 20), version('aaaaaaaaaaaa', 10)];
  const gone = { graph, files: [] };

  it('leaves out the changes up to the last the manifest names', () => {
    assert.deepEqual(unrecordedIn(manifestNaming('aaaaaaaaaaaa', 10), [v1, v2]), [v2]);
    assert.deepEqual(unrecordedIn(manifestNaming('bbbbbbbbbbbb', 20), [v1, v2]), []);
    // The same version again (a file named by its bytes): the last time it was written counts.
    assert.deepEqual(unrecordedIn(manifestNaming('aaaaaaaaaaaa', 10), [v1, v2, v3]), []);
    assert.deepEqual(unrecordedIn(manifestNaming(undefined), [v1, gone]), []);
  });

  it('keeps them all where the manifest names none of them', () => {
    assert.deepEqual(unrecordedIn(undefined, [v1, v2]), [v1, v2]);
    assert.deepEqual(unrecordedIn(manifestNaming(undefined), [v1, v2]), [v1, v2]);
    // Same file, more of it: another version.
    assert.deepEqual(unrecordedIn(manifestNaming('aaaaaaaaaaaa', 5), [v1, v2]), [v1, v2]);
  });
});

describe('an ingest run of weave serve', () => {
  it('ends with its manifest naming every graph it told of, so what a copy opening then reads is whole', async () => {
    const storeDir = await tempDir('weave-run-end-');
    const lock = await lockStore(storeDir);
    const told: ChangedGraph[] = [];
    const ends: number[] = [];
    const ingester = new Ingester({
      paths: [join(FIXTURES, 'server')],
      storeDir,
      soul: 'local',
      detect: true,
      lock: new Mutex(),
      refreshMs: 0,
      onGraphs: (graphs) => told.push(...graphs),
      onRunEnd: () => {
        ends.push(told.length);
      },
    });
    // The ingest thread does not keep a process alive (a server's socket does).
    const alive = setInterval(() => undefined, 1000);
    try {
      ingester.start();
      await ingester.firstRun;
      // Two sessions, each with the graphs of the five readers, and the five readers' descriptions.
      assert.equal(told.length, 2 + 2 * 5 + 5);
      assert.deepEqual(ends, [told.length], 'the run ended once, after the last graph it told of');
      assert.deepEqual(unrecordedIn(await readManifest(storeDir), told), []);
    } finally {
      clearInterval(alive);
      await ingester.close();
      await lock.release();
      await removeDir(storeDir);
    }
  });

  it('that fails says so at its end, and holds the store until the copies have caught up with the manifest', async () => {
    const storeDir = await tempDir('weave-run-fails-');
    const lock = await lockStore(storeDir);
    const mutex = new Mutex();
    const order: string[] = [];
    const ingester = new Ingester({
      paths: [join(storeDir, 'no-such-folder')],
      storeDir,
      soul: 'local',
      detect: false,
      lock: mutex,
      refreshMs: 0,
      onGraphs: () => undefined,
      onRunEnd: async ({ failed }) => {
        order.push(`run ended${failed ? ', failed' : ''}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        order.push('copies caught up');
      },
    });
    const alive = setInterval(() => undefined, 1000);
    try {
      ingester.start();
      await until(() => order.length > 0);
      // A write over HTTP waits for the same lock.
      await mutex.run(async () => order.push('next writer'));
      assert.deepEqual(order, ['run ended, failed', 'copies caught up', 'next writer']);
      assert.equal(ingester.status.state, 'failed');
    } finally {
      clearInterval(alive);
      await ingester.close();
      await lock.release();
      await removeDir(storeDir);
    }
  });
});
