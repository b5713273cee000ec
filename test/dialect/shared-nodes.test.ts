import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { count, FIXTURES, ingestFresh, removeDir } from '../helpers.ts';

const G33 = 'urn:soul:local:Weave/graph/33333333-3333-4333-8333-333333333333';

test('a node many records name (a hook run, a file) is described once per session and linked from each', async () => {
  const { dir, store } = await ingestFresh([join(FIXTURES, 'records')], { observers: () => [] });
  try {
    // toolu_3001 fires three hook runs (one per hook event); five records name them.
    assert.equal(count(store, `GRAPH <${G33}> { ?run a weave:HookRun ; weave:toolUseId "toolu_3001" }`), 3);
    assert.equal(count(store, `GRAPH <${G33}> { ?run a weave:HookRun ; weave:toolUseId "toolu_3001" . ?e ?p ?run }`), 5);
    // No graph file holds a quad twice.
    for (const name of await readdir(join(dir, 'graphs'))) {
      const lines = (await readFile(join(dir, 'graphs', name), 'utf8')).split('\n').filter(Boolean);
      assert.equal(new Set(lines).size, lines.length, `${name} repeats a quad`);
    }
  } finally {
    await removeDir(dir);
  }
});
