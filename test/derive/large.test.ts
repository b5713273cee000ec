import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { heapGrowthHeld } from '../../src/derive/heap.ts';
import { DERIVATIONS } from '../../src/derive/registry.ts';
import { ingest } from '../../src/ingest.ts';
import { readGraphBytes, readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

/**
 * A large session is not tapped while it is read: each input its derivations read is made from
 * the graph's files after the read, one at a time (src/derive/loop.ts), so that only one is held
 * at once. What they derive is exactly what the tapped inputs give: every output the same, byte
 * for byte, with every session taken as large (a threshold of 0 bytes).
 */

/** Every derivation's output in a store: a reader's graph as its N-Quads, a file as its bytes, by manifest name. */
async function outputs(dir: string): Promise<Map<string, string>> {
  const manifest = (await readManifest(dir))!;
  const out = new Map<string, string>();
  for (const [name, entry] of Object.entries(manifest.graphs))
    if (entry.reader) out.set(name, (await readGraphBytes(dir, entry)).toString('utf8'));
  for (const [name, entry] of Object.entries(manifest.files ?? {}))
    if (entry.builtWith) out.set(name, await readFile(join(dir, entry.file), 'utf8'));
  return out;
}

test('a large session derives, from its files one input at a time, what a tapped one does', async () => {
  const paths = [join(FIXTURES, 'spine'), join(FIXTURES, 'readers')];
  const [tapped, large, run] = [await tempDir(), await tempDir(), await tempDir()];
  try {
    // The heap's growth is held while large sessions are read (src/derive/heap.ts), and only then.
    const held = { tapped: new Set<boolean>(), large: new Set<boolean>() };
    const a = await ingest(paths, {
      storeDir: tapped,
      soul: 'local',
      derivations: DERIVATIONS,
      onProgress: () => held.tapped.add(heapGrowthHeld()),
    });
    const b = await ingest(paths, {
      storeDir: large,
      soul: 'local',
      derivations: DERIVATIONS,
      largeSessionBytes: 0,
      onProgress: () => held.large.add(heapGrowthHeld()),
    });
    assert.deepEqual(held, { tapped: new Set([false]), large: new Set([true]) });
    assert.equal(heapGrowthHeld(), false);
    // So does a run of small sessions reading more than largeRunBytes in all.
    const heldInRun = new Set<boolean>();
    await ingest([paths[0]], { storeDir: run, soul: 'local', largeRunBytes: 0, onProgress: () => heldInRun.add(heapGrowthHeld()) });
    assert.deepEqual(heldInRun, new Set([true]));
    assert.equal(heapGrowthHeld(), false);
    assert.deepEqual(b.derived.ran, a.derived.ran);
    const [want, got] = [await outputs(tapped), await outputs(large)];
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
    // Each store digests secrets with its own key.
    const keyless = (text = '') => text.replace(/hmac-sha256:[0-9a-f]+/g, 'hmac');
    for (const [name, text] of want) assert.equal(keyless(got.get(name)), keyless(text), name);
    // Something to compare: the six sessions' search documents and usage rows (two in spine, four in readers), and findings.
    const names = [...want.keys()];
    assert.equal(names.filter((n) => n.startsWith('search/documents/')).length, 6);
    assert.equal(names.filter((n) => n.startsWith('usage/rows/')).length, 6);
    assert.ok((a.derived.ran['tool/error']?.findings ?? 0) > 0);
  } finally {
    await removeDir(tapped);
    await removeDir(large);
    await removeDir(run);
  }
});
