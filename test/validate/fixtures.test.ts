import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { loadShapes } from '../../src/validate/shapes.ts';
import { validateStore, type StoreValidation } from '../../src/validate/store.ts';
import { command } from '../consumers/tools.ts';
import { corpusStore, releaseCorpusStore } from '../corpus-store.ts';
import { FIXTURES, HAS_CORPUS, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * Every fixture, ingested and read by every reader, conforms to ontology/shapes.ttl, without
 * exception; so does the whole corpus, checked by `weave validate --json` as a user runs it (in
 * its own process: the check is promise upon promise, and node:test's tracking of each promise
 * in a test file's process cost it a third more time).
 */

const shapes = await loadShapes();

async function storeOf(paths: string[]): Promise<{ dir: string; result: StoreValidation; sessions: number }> {
  const dir = await tempDir();
  const report = await ingest(paths, { storeDir: dir, soul: 'local' });
  const detected = await detect({ storeDir: dir });
  assert.deepEqual(detected.problems, []);
  return { dir, result: await validateStore(dir, { shapes }), sessions: report.sessions };
}

function violations(result: StoreValidation): string[] {
  return result.units.flatMap((u) =>
    u.violations.map((v) => `${u.name}: ${v.shape} ${v.constraint} ${v.focus} ${v.value ?? ''} ${v.message}`),
  );
}

for (const name of ['spine', 'records', 'readers', 'server', 'model', 'hardening', 'card']) {
  test(`fixtures/${name} conforms to the shapes, with its readers' graphs`, async () => {
    const { dir, result, sessions } = await storeOf([join(FIXTURES, name)]);
    try {
      assert.deepEqual(violations(result), []);
      // Every session graph was checked (one unit each, plus the readers' own graphs).
      assert.equal(result.units.filter((u) => u.sessionId !== undefined).length, sessions);
      assert.ok(result.quads > 0);
    } finally {
      await removeDir(dir);
    }
  });
}

test('the whole corpus conforms to the shapes, session by session', { skip: !HAS_CORPUS && 'no ../shared/corpus here' }, async () => {
  const corpus = await corpusStore();
  try {
    assert.deepEqual(corpus.detected.problems, []);
    // A violation makes it exit 1: its JSON still says which, for the comparison below.
    const { stdout } = await command(join(REPO, 'bin', 'weave'), ['validate', '--store', corpus.dir, '--json'], {
      exitCodes: [0, 1],
      timeout: 600_000,
    });
    const result = JSON.parse(stdout) as StoreValidation;
    assert.deepEqual(violations(result), []);
    assert.equal(result.units.filter((u) => u.sessionId !== undefined).length, corpus.ingested.sessions);
  } finally {
    await releaseCorpusStore(corpus);
  }
});
