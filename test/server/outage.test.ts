import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES } from '../model/helpers.ts';
import { removeDir, tempDir } from '../helpers.ts';
import { eventually, SERVER_FIXTURES, SESSION_A, select, startTestServer } from './helpers.ts';

/**
 * A query that runs past the timeout never leaves the endpoint without a copy that answers (issue
 * 25): the second copy opens as soon as a job has run long, not at half its time, so it is open
 * before the runaway's worker is ended, however long the store takes to load within the timeout.
 * The fixtures hold a few thousand triples, so a three-way cross join is some 10^10 rows.
 */

const CROSS_JOIN = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
/** What a request is told while the store cannot be opened: why, where to look, and what to do. */
const CANNOT_OPEN =
  'the store cannot be opened (the server log says which file and why); weave verify --self checks its files; weave ingest --rebuild, then weave detect, write its graphs again';
const TURNS = 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }';

/** The cross join as the issue's tester sent it: a 64-byte form POST, from a command-line client. */
const runaway = (base: string, timeout?: number, query = CROSS_JOIN) =>
  fetch(`${base}/sparql${timeout ? `?timeout=${timeout}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/sparql-results+json' },
    body: new URLSearchParams({ query }).toString(),
  });

describe('a query that times out', () => {
  it('alone (nothing else waiting) has a second copy open long before its deadline', async () => {
    // Half the timeout is 30 s: the second copy used to open only then, and on a store that takes
    // longer than that to load nothing answered from the cut until it was open.
    const server = await startTestServer({ timeoutMs: 60_000, workers: 2 });
    try {
      let settled = false;
      const held = runaway(server.base).then(async (r) => {
        settled = true;
        return r.status;
      });
      await eventually(async () => server.ctx.pool.stats.ready === 2, 20_000, 'a second copy open');
      assert.deepEqual(await select(server.base, TURNS), [{ n: '6' }]);
      assert.equal(settled, false, 'the runaway still runs');
      assert.equal(server.ctx.pool.stats.copies, 2);
      await server.stop();
      assert.equal(await held, 503); // the server shutting down
    } finally {
      await server.stop().catch(() => undefined);
    }
  });

  it('has the copy opened beside it answer the union as a set, before and after it is the one kept', async () => {
    // fixtures/model/resumed-session: two sessions hold one call and its records; six calls in the union.
    const server = await startTestServer({ timeoutMs: 60_000, workers: 2 }, [join(FIXTURES, 'resumed-session')]);
    try {
      const held = runaway(server.base, 8).then((r) => r.status);
      await eventually(async () => server.ctx.pool.stats.ready === 2, 20_000, 'a second copy open');
      const calls = 'SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:LlmCall }';
      // Beside the runaway (read through the rewrite), and once it is cut (the copy kept sets shared triples aside).
      assert.deepEqual(await select(server.base, calls), [{ n: '6' }]);
      assert.equal(await held, 504);
      await new Promise((r) => setTimeout(r, 2500));
      assert.deepEqual(await select(server.base, calls), [{ n: '6' }]);
      assert.equal(server.ctx.pool.stats.ready, 1);
    } finally {
      await server.stop();
    }
  });

  it('sent again and again, leaves every cheap query of another client answered', async (t) => {
    // Cheap queries may wait 20 s; each runaway asks for 6 s and is cut then.
    const server = await startTestServer({ timeoutMs: 20_000, workers: 2 });
    try {
      const runaways: { status: number; answeringAtCut: number; text: string }[] = [];
      const cheap: { status: number; rows: unknown }[] = [];
      const answeredAt: number[] = [performance.now()];
      let done = false;
      const attacker = (async () => {
        // The second is the first again, refused at once; the third differs (a fourth pattern), and runs.
        for (const query of [CROSS_JOIN, CROSS_JOIN, CROSS_JOIN.replace('}', '. ?j ?k ?l }')]) {
          const r = await runaway(server.base, 6, query);
          runaways.push({ status: r.status, answeringAtCut: server.ctx.pool.stats.ready, text: await r.text() });
        }
        done = true;
      })();
      while (!done) {
        const r = await fetch(`${server.base}/sparql`, {
          method: 'POST',
          headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
          body: TURNS,
        });
        const body = await r.text();
        answeredAt.push(performance.now());
        cheap.push({ status: r.status, rows: r.status === 200 ? JSON.parse(body).results.bindings[0].n.value : body });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await attacker;
      assert.deepEqual(
        runaways.map((r) => r.status),
        [504, 504, 504],
      );
      assert.match(runaways[0].text, /^504 Gateway Timeout: the query ran longer than the timeout of 6 s and was stopped\n$/);
      assert.match(runaways[1].text, /^504 Gateway Timeout: this query ran longer than the timeout of 6 s \d+ s ago and was stopped/);
      // When each runaway was cut, another copy was open and answering.
      for (const r of runaways) assert.ok(r.answeringAtCut >= 1, `a copy answered at the cut (${r.answeringAtCut})`);
      assert.ok(cheap.length >= 2, `cheap queries were sent (${cheap.length})`);
      assert.deepEqual(
        cheap.filter((c) => c.status !== 200 || c.rows !== '6'),
        [],
        'every cheap query answered 200 with its 6 turns',
      );
      assert.equal(server.ctx.pool.stats.restarts, 2);
      const gaps = answeredAt.slice(1).map((at, i) => at - answeredAt[i]);
      t.diagnostic(`cheap queries: ${cheap.length}; longest gap without an answer: ${Math.max(...gaps).toFixed(0)} ms`);
    } finally {
      await server.stop();
    }
  });
});

describe('a server with a spare copy (--spare)', () => {
  it('keeps two copies at rest, answers beside a runaway and after its cut, and opens a third so one stays free', async () => {
    const server = await startTestServer({ timeoutMs: 20_000, workers: 3, spare: true });
    try {
      const { pool } = server.ctx;
      await eventually(async () => pool.stats.ready === 2, 20_000, 'the spare open');
      assert.deepEqual([pool.stats.ready, pool.stats.copies, pool.stats.spare], [2, 2, true]);
      let settled = false;
      const held = runaway(server.base, 8).then((r) => {
        settled = true;
        return r.status;
      });
      await eventually(async () => pool.stats.busy === 1, 5_000, 'the runaway running');
      // Answered by the spare while the runaway holds the other copy.
      assert.deepEqual(await select(server.base, TURNS), [{ n: '6' }]);
      // The spare is kept free of long jobs: a third copy opens beside the runaway.
      await eventually(async () => pool.stats.ready === 3, 7_500, 'a third copy open beside the runaway');
      assert.equal(settled, false, 'the runaway still runs');
      assert.equal(await held, 504);
      // At the cut two copies still answer; the third is retired once things are calm.
      assert.equal(pool.stats.ready, 2);
      assert.deepEqual(await select(server.base, TURNS), [{ n: '6' }]);
      // Calm again, the third is retired (idle 2 s) and the spare, idle as long, stays.
      await eventually(async () => pool.stats.copies === 2 && pool.stats.ready === 2, 10_000, 'back to two copies');
    } finally {
      await server.stop();
    }
  });
});

describe('a server whose store became unreadable after a runaway was cut', () => {
  /** A server of one copy, a graph file of which is cut mid-line on disk (the manifest unchanged): the next copy cannot open the store. */
  async function damaged(storeDir: string) {
    await ingest([SERVER_FIXTURES], { storeDir, soul: 'local' });
    const server = await startTestServer({ storeDir, timeoutMs: 10_000, workers: 1, queueLimit: 4, maxResultBytes: 1e6 }, null);
    const entry = Object.values((await readManifest(storeDir))!.graphs).find((e) => e.sessionId === SESSION_A)!;
    const path = join(storeDir, entry.file);
    const text = await readFile(path, 'utf8');
    await writeFile(path, `${text.split('\n').slice(0, 9).join('\n')}\n${text.split('\n')[9].slice(0, 30)}`);
    return server;
  }

  it('tells a query that came while the next copy opened that the store cannot be opened, when it fails, not "still loading" at its deadline', async () => {
    const storeDir = await tempDir();
    try {
      const server = await damaged(storeDir);
      try {
        assert.equal((await runaway(server.base, 0.5)).status, 504);
        // The copy in the runaway's place is opening: it has not failed yet.
        assert.equal(server.ctx.pool.stats.openError, undefined);
        const started = performance.now();
        const query = await fetch(`${server.base}/sparql?query=ASK%7B%7D`, { headers: { accept: 'application/sparql-results+json' } });
        assert.equal(query.status, 503);
        assert.equal(await query.text(), `503 Service Unavailable: ${CANNOT_OPEN}\n`);
        // Told when the copy failed, long before its 10 s deadline.
        assert.ok(performance.now() - started < 5000, `${performance.now() - started} ms`);
      } finally {
        await server.stop();
      }
    } finally {
      await removeDir(storeDir);
    }
  });

  it('answers a query 503 at once with what /healthz says, instead of holding it to its deadline', async () => {
    const storeDir = await tempDir();
    try {
      const server = await damaged(storeDir);
      try {
        const base = server.base;
        assert.equal((await runaway(base, 0.5)).status, 504);
        await eventually(
          async () => ((await (await fetch(`${base}/healthz`)).json()) as { status: string }).status === 'failing',
          10_000,
          '/healthz to say failing',
        );
        const query = await fetch(`${base}/sparql?query=ASK%7B%7D`, { headers: { accept: 'application/sparql-results+json' } });
        assert.equal(query.status, 503);
        assert.ok(query.headers.get('retry-after'));
        assert.equal(await query.text(), `503 Service Unavailable: ${CANNOT_OPEN}\n`);
      } finally {
        await server.stop();
      }
    } finally {
      await removeDir(storeDir);
    }
  });
});
