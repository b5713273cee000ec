import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpError } from '../../src/server/errors.ts';
import { QueryPool } from '../../src/server/workers/pool.ts';
import { bodyText as text, queryJob as query } from './jobs.ts';
import { serverFixturesStore } from './helpers.ts';

/**
 * Short reads are sent to a busy worker to wait there (src/server/workers/pool.ts): each still
 * answered right, and one sent behind a job that turns out to run away is not lost with it, put
 * back in line when that worker is ended, or refused at its own deadline like any job that waited.
 */

const CROSS_JOIN = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';

/**
 * What counts as short here: 100 ms, not the server's 20. Jobs over the fixtures take a
 * millisecond or two, but a loaded machine (the suite runs files side by side) can take a thread
 * off its core for longer than 20 ms, and these tests are of what the pool does with short and
 * long jobs, not of how fast this machine answers.
 */
const POOL = { size: 1, soul: 'local', timeoutMs: 20_000, heapMb: 512, pipelineMs: 100 };

describe('jobs sent to a busy worker', () => {
  const store = serverFixturesStore('weave-pipeline-');

  it('are each answered right', async () => {
    const pool = new QueryPool({ ...POOL, storeDir: store(), queueLimit: 64 + 1 });
    try {
      await pool.whenReady();
      for (let i = 0; i < 20; i++) await pool.run(query('ASK {}')); // jobs here are short, on average too
      const answers = await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          pool.run(query(i % 2 ? 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }' : 'ASK { ?t a weave:UserTurn }')),
        ),
      );
      for (const [i, answer] of answers.entries()) {
        const json = JSON.parse(text(answer));
        if (i % 2) assert.equal(json.results.bindings[0].n.value, '6');
        else assert.equal(json.boolean, true);
      }
      assert.ok(pool.sentBehind > 0, 'some were sent to the busy worker');
    } finally {
      await pool.close();
    }
  });

  it('behind a runaway: put back in line when its worker is ended, else refused at its own deadline', async () => {
    const pool = new QueryPool({ ...POOL, storeDir: store(), queueLimit: 8 });
    try {
      await pool.whenReady();
      for (let i = 0; i < 20; i++) await pool.run(query('ASK {}')); // jobs here are short, on average too
      // Sent in one tick: the ASKs go to the worker while the cross join has only just begun.
      const runaway = pool.run(query(CROSS_JOIN), 1500).catch((e: HttpError) => e.status);
      const behind = pool.run(query('ASK { ?t a weave:Turn }'), 20_000);
      assert.equal(pool.sentBehind, 1, 'sent behind the cross join');
      const runaway2 = await runaway;
      assert.equal(runaway2, 504);
      assert.equal(JSON.parse(text(await behind)).boolean, true, 'answered by the worker that replaced the one ended');

      // A job that ran long raised the mean: nothing is sent behind another until it is short again.
      for (let i = 0; i < 40; i++) await pool.run(query('ASK {}'));
      // (Another cross join: the same one again would be refused at once, src/server/workers/runaways.ts.)
      const second = pool.run(query(`${CROSS_JOIN} LIMIT 1`), 1500).catch((e: HttpError) => e.status);
      const refusing = pool.run(query('ASK {}'), 400).catch((e: HttpError) => e);
      assert.equal(pool.sentBehind, 2);
      const refused = await refusing;
      assert.equal((refused as HttpError).status, 503);
      assert.match((refused as HttpError).message, /busy for the whole timeout of 0\.4 s/);
      assert.equal(await second, 504);
      assert.equal(JSON.parse(text(await pool.run(query('ASK {}')))).boolean, true);
    } finally {
      await pool.close();
    }
  });
});
