import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { select, startTestServer } from './helpers.ts';

/**
 * A query that would run for hours is stopped at the timeout: its worker is ended, the client
 * hears 504, and meanwhile /healthz answers and other queries are answered by the standby, which
 * opens the store once a job has held the one copy too long; afterwards memory is back to one
 * copy. A full queue answers 503 with Retry-After. The fixtures hold a few thousand triples
 * (ontology included), so a three-way cross join is some 10^10 rows.
 */

const CROSS_JOIN = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';

const post = (base: string, query: string) =>
  fetch(`${base}/sparql`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: 'application/json' },
    body: query,
  });

describe('a runaway query', () => {
  it('is cut at the timeout while /healthz and other queries keep answering', async () => {
    const server = await startTestServer({ timeoutMs: 4000, workers: 2 });
    try {
      const started = performance.now();
      let cutAt = Number.POSITIVE_INFINITY;
      const runaway = post(server.base, CROSS_JOIN).then(async (r) => {
        cutAt = performance.now();
        return { status: r.status, body: await r.text(), ms: cutAt - started };
      });
      await new Promise((r) => setTimeout(r, 200));

      // While the one copy grinds, the event loop stays free, and the standby opens the store and answers.
      const health = await fetch(`${server.base}/healthz`);
      assert.equal(health.status, 200);
      const rows = await select(server.base, 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }');
      assert.deepEqual(rows, [{ n: '6' }]);
      assert.ok(performance.now() < cutAt, 'another query is answered before the runaway is cut');

      const cut = await runaway;
      assert.equal(cut.status, 504);
      assert.equal(cut.body, '504 Gateway Timeout: the query ran longer than the timeout of 4 s and was stopped\n');
      assert.ok(cut.ms >= 3900 && cut.ms < 8000, `stopped near the timeout (${cut.ms.toFixed(0)} ms)`);

      // The copy that served meanwhile answers on; once idle, no more than one copy is kept.
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; i < 4; i++)
        assert.deepEqual(await select(server.base, 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }'), [{ n: '6' }]);
      const metrics = await (await fetch(`${server.base}/metrics`)).text();
      assert.match(metrics, /^weave_sparql_timeouts_total\{op="query",where="running"\} 1$/m);
      assert.match(metrics, /^weave_worker_restarts_total\{reason="timeout"\} 1$/m);
      assert.match(metrics, /^weave_store_copies 1$/m);
      // The same query again is refused at once: it would close another copy.
      const again = await post(server.base, CROSS_JOIN);
      assert.equal(again.status, 504);
      assert.match(
        await again.text(),
        /^504 Gateway Timeout: this query ran longer than the timeout of 4 s \d+ s ago and was stopped; it is not run again for \d+ s \(stopping it closes a copy of the store\)\n$/,
      );
      assert.match(await (await fetch(`${server.base}/metrics`)).text(), /^weave_worker_restarts_total\{reason="timeout"\} 1$/m);
      // A request may ask for less time than the server allows.
      const short = await fetch(`${server.base}/sparql?timeout=0.3`, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-query' },
        body: `${CROSS_JOIN} LIMIT 1`,
      });
      assert.equal(short.status, 504);
      assert.match(await short.text(), /timeout of 0\.3 s and was stopped/);
    } finally {
      await server.stop();
    }
  });

  it('a full queue answers 503 with Retry-After, and a job that waits out its deadline gets 503', async () => {
    const server = await startTestServer({ timeoutMs: 1200, workers: 1, queueLimit: 1 });
    try {
      const busy = post(server.base, CROSS_JOIN); // takes the only worker
      await new Promise((r) => setTimeout(r, 100));
      const waiting = post(server.base, 'ASK {}'); // waits in the queue's one place
      await new Promise((r) => setTimeout(r, 100));
      const refused = await post(server.base, 'ASK {}');
      assert.equal(refused.status, 503);
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      assert.match(await refused.text(), /^503 Service Unavailable: the server is busy \(1 requests waiting\); try again shortly\n$/);
      assert.equal((await busy).status, 504);
      // The queued ASK reaches its own deadline (100 ms after the runaway's) before the replacement
      // worker has loaded the store, which takes far longer than 100 ms: 503, never a hang.
      const queued = await waiting;
      assert.equal(queued.status, 503);
      assert.equal(await queued.text(), '503 Service Unavailable: the server was busy for the whole timeout of 1.2 s; try again shortly\n');
      await server.ctx.pool.whenReady();
      assert.equal((await post(server.base, 'ASK {}')).status, 200);
      const metrics = await (await fetch(`${server.base}/metrics`)).text();
      assert.match(metrics, /^weave_sparql_rejected_total\{op="query"\} 1$/m);
      assert.match(metrics, /^weave_sparql_timeouts_total\{op="query",where="queue"\} 1$/m);
    } finally {
      await server.stop();
    }
  });
});
