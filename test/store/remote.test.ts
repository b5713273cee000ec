import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { openQueries, selectRows, type StoreQueries } from '../../src/store/queries.ts';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import { openStore } from '../../src/store/store.ts';
import { runQuery } from '../../src/query/run.ts';
import { REPO } from '../server/helpers.ts';
import { figures, REIFIERS_11, REIFIERS_12 } from './figures.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * The same ingest into an external store (a real Virtuoso, without RDF 1.2) and into a store held
 * here answer the figures alike. One ingest serves both sides: an external store's directory
 * keeps the graph files it sent, so Oxigraph opens exactly what Virtuoso was given.
 */

const FIXTURES = join(REPO, 'fixtures');
const missing = virtuosoMissing();

describe('an external store (Virtuoso)', { skip: missing }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let dir: string;
  let external: StoreQueries;
  let here: StoreQueries;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await mkdtemp(join(tmpdir(), 'weave-remote-'));
    dir = remoteStoreDir(virtuoso.endpoint, base);
    await ingest([FIXTURES], { storeDir: dir, soul: 'local' });
    external = await openQueries(dir);
    const { store } = await openStore(dir);
    here = { query: async (query, mediaType) => runQuery(store, query, { results_format: mediaType }) as string };
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('answers the figures as the store held here does', async () => {
    const expected = await figures(here);
    assert.ok(expected.turns.n > 0 && expected.calls.n > 0 && expected.tokens.output > 0, 'the fixtures have turns, calls and tokens');
    assert.deepEqual(await figures(external), expected);
  });

  it('holds each triple term in the RDF 1.1 form, on the same reifier', async () => {
    const [reified] = await selectRows(here, REIFIERS_12);
    const [statements] = await selectRows(external, REIFIERS_11);
    assert.ok(Number(reified.n) > 0);
    assert.equal(statements.n, reified.n);
    // An annotation on a reifier (its evidence) is still about that reifier.
    const evidence = 'SELECT (COUNT(*) AS ?n) WHERE { ?r weave:evidence ?e ; rdf:subject ?s }';
    const [withEvidence] = await selectRows(external, evidence);
    const [expected] = await selectRows(here, 'SELECT (COUNT(*) AS ?n) WHERE { ?r weave:evidence ?e ; rdf:reifies ?t }');
    assert.equal(withEvidence.n, expected.n);
  });

  it('a session read again replaces its graph there (PUT), not adds to it', async () => {
    const before = await figures(external);
    await ingest([FIXTURES], { storeDir: dir, soul: 'local', force: true });
    assert.deepEqual(await figures(external), before);
  });

  describe('weave serve in front of it', () => {
    let server: RunningServer;
    before(async () => {
      server = await startServer({
        storeDir: dir,
        soul: 'local',
        host: '127.0.0.1',
        port: 0,
        timeoutMs: 20_000,
        workers: 2,
        queueLimit: 8,
        maxResultBytes: 50e6,
        bodyLimitBytes: 1e6,
        allowUpdate: false,
        corsOrigins: [],
        queriesDir: join(REPO, 'queries'),
        verbose: false,
        log: () => {},
      });
      await server.ctx.pool.whenReady();
    });
    after(() => server?.close());

    it('passes queries to it, keeps describe pages and refuses writes', async () => {
      const [turns] = await selectRows(here, 'SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }');
      const res = await fetch(`${server.url}sparql?query=${encodeURIComponent('SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }')}`, {
        headers: { accept: 'text/csv' },
      });
      assert.equal(res.status, 200);
      assert.equal((await res.text()).trim().split(/\r?\n/)[1], turns.n);
      const [turn] = await selectRows(here, 'SELECT ?t WHERE { ?t a weave:UserTurn } ORDER BY ?t LIMIT 1');
      const page = await fetch(`${server.url}describe?iri=${encodeURIComponent(turn.t)}`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /weave:role|role/);
      const write = await fetch(`${server.url}store?graph=urn:w:g`, {
        method: 'PUT',
        headers: { 'content-type': 'text/turtle' },
        body: '<urn:w:a> <urn:w:p> 1 .',
      });
      assert.equal(write.status, 403);
    });
  });
});
