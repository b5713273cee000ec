import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { startServer } from '../../src/server/server.ts';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import { readRunFile } from '../../src/store/running.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * `weave serve --service-allow` in front of an external store (a real Virtuoso): federation joins
 * sources with a store held here, in Weave's engine, and this server holds none. It started, and
 * answered a query with `source=` from Virtuoso alone (the source left out without a word) while
 * its description claimed sd:BasicFederatedQuery; `weave query` refuses the same with its reason,
 * and so does the server now, as it starts.
 */
describe('a server in front of an external store, with --service-allow', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let dir: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-federation-');
    dir = remoteStoreDir(virtuoso.endpoint, join(base, 'store'));
    await ingest([join(FIXTURES, 'server')], { storeDir: dir, soul: 'local' });
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it('does not start, and says why', async () => {
    const config = {
      storeDir: dir,
      soul: 'local',
      host: '127.0.0.1',
      port: 0,
      timeoutMs: 30_000,
      workers: 1,
      queueLimit: 8,
      maxResultBytes: 1e6,
      bodyLimitBytes: 1e6,
      allowUpdate: false,
      corsOrigins: [],
      queriesDir: join(REPO, 'queries'),
      verbose: false,
      log: () => undefined,
    };
    await assert.rejects(startServer({ ...config, serviceAllow: ['http://127.0.0.1:7881/sparql'] }), {
      message: `--service-allow needs a store held here: federated queries join it in Weave's engine, and this store lives in the external store ${virtuoso.endpoint}`,
    });
    assert.equal(await readRunFile(dir), undefined);
    // Without it, the server stands in front of the store as before.
    const server = await startServer(config);
    try {
      const res = await fetch(`${server.url}sparql?query=${encodeURIComponent('ASK { ?s a weave:Session }')}`, {
        headers: { accept: 'application/sparql-results+json' },
      });
      assert.equal(((await res.json()) as { boolean: boolean }).boolean, true);
    } finally {
      await server.close();
    }
  });
});
