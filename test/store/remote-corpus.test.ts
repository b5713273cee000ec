import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { runQuery } from '../../src/query/run.ts';
import { openQueries, selectRows } from '../../src/store/queries.ts';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import { openStore } from '../../src/store/store.ts';
import { CORPUS, HAS_CORPUS } from '../helpers.ts';
import { figures, REIFIERS_11, REIFIERS_12 } from './figures.ts';
import { startVirtuoso, virtuosoMissing } from './virtuoso.ts';

/**
 * The corpus (~0.55 M quads since the lean graph) ingested into a real Virtuoso: every figure answers as Oxigraph
 * answers it over the very graph files that were sent (an external store's directory keeps them).
 */
const skip = !HAS_CORPUS ? 'no ../shared/corpus here' : virtuosoMissing();

test('the corpus in Virtuoso answers the figures as the store held here does', { skip, timeout: 900_000 }, async () => {
  const virtuoso = await startVirtuoso();
  const base = await mkdtemp(join(tmpdir(), 'weave-remote-corpus-'));
  try {
    const dir = remoteStoreDir(virtuoso.endpoint, base);
    const report = await ingest([CORPUS], { storeDir: dir, soul: 'local' });
    assert.ok(report.quads > 500_000, `the corpus is large (${report.quads} quads)`);
    const { store } = await openStore(dir);
    const here = { query: async (query: string, mediaType: string) => runQuery(store, query, { results_format: mediaType }) as string };
    const external = await openQueries(dir);
    const expected = await figures(here);
    assert.ok(expected.turns.n > 9000 && expected.calls.n > 0 && expected.tokens.output > 0);
    assert.deepEqual(await figures(external), expected);
    const [reified] = await selectRows(here, REIFIERS_12);
    const [statements] = await selectRows(external, REIFIERS_11);
    assert.equal(statements.n, reified.n);
  } finally {
    await virtuoso.stop();
    await rm(base, { recursive: true, force: true });
  }
});
