import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QueryPool } from '../../src/server/workers/pool.ts';
import { filesOf } from '../../src/store/manifest.ts';
import { lockStore, openStoreForWriting } from '../../src/store/writer.ts';
import { bodyText as text, queryJob as query } from './jobs.ts';
import { serverFixturesStore } from './helpers.ts';

/**
 * A query worker can be told of a graph's version after its files are gone: a copy busy with a
 * long page while a run writes the graph twice (the readers run again for a session) applies the
 * first change after the writer has deleted its files, the manifest naming the second. That
 * failed the reload, which ended the thread: the page waiting got 500 "the query worker crashed"
 * and the copy was opened again from disk. It now loads the version the manifest names.
 */

const FINDINGS = 'urn:soul:local:Weave/test/reader/tool/error';

const quad = (value: string) => `<urn:x:a> <urn:x:p> "${value}" <${FINDINGS}> .\n`;

describe('a change told after its files were replaced', () => {
  const store = serverFixturesStore('weave-superseded-');

  it('loads the version the manifest names, and the copy carries on', async () => {
    const pool = new QueryPool({ size: 1, storeDir: store(), soul: 'local', timeoutMs: 20_000, heapMb: 512, queueLimit: 8 });
    const lock = await lockStore(store());
    try {
      await pool.whenReady();
      const quads = pool.quads;
      const writer = await openStoreForWriting(store(), 'local');
      const first = await writer.writeGraph(FINDINGS, quad('1'), { quads: 1 });
      const second = await writer.writeGraph(FINDINGS, quad('1') + quad('2') + quad('3'), { quads: 3 });
      await writer.close(); // the manifest names the second version; the first one's file is deleted
      pool.reload([{ graph: FINDINGS, files: filesOf(first) }], { recorded: false });
      const answer = await pool.run(query(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${FINDINGS}> { ?s ?p ?o } }`));
      assert.equal(JSON.parse(text(answer)).results.bindings[0].n.value, '3');
      pool.reload([{ graph: FINDINGS, files: filesOf(second) }], { recorded: false });
      const again = await pool.run(query(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${FINDINGS}> { ?s ?p ?o } }`));
      assert.equal(JSON.parse(text(again)).results.bindings[0].n.value, '3');
      assert.equal(pool.restarts, 0, 'the copy was not replaced');
      assert.equal(pool.quads, quads + 3, 'the store grew by the graph');
    } finally {
      await lock.release();
      await pool.close();
    }
  });
});
