import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Input, SessionDerivation } from '../../src/derive/derivation.ts';
import { DERIVATIONS } from '../../src/derive/registry.ts';
import { ingest } from '../../src/ingest.ts';
import { checkStore } from '../../src/store/check.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

/**
 * A derivation is one object and one line in the list ingest runs (src/derive/registry.ts): this
 * toy counts the triples of each session graph into a file of its own. Ingest runs it on every
 * session, not again while nothing changed, and only it when its version is bumped.
 */

const QUAD_COUNT: Input<{ quads: number }> = {
  name: 'quad count',
  collect: () => {
    let quads = 0;
    return { add: () => void quads++, done: () => ({ quads }) };
  },
};

function toy(version: string): SessionDerivation<{ quads: number }> {
  return {
    name: 'toy/quads',
    version,
    description: 'How many triples each session graph holds.',
    reads: QUAD_COUNT,
    output: (_soul, sessionId) => ({ file: `toy/${sessionId}`, path: `toy/${sessionId}.json` }),
    derive: ({ quads }) => ({ data: JSON.stringify({ quads }) }),
  };
}

test('a toy derivation: run on every session, not again while nothing changed, and alone when its version is bumped', async () => {
  const dir = await tempDir();
  const paths = [join(FIXTURES, 'spine')];
  try {
    const first = await ingest(paths, { storeDir: dir, soul: 'local', derivations: [...DERIVATIONS, toy('1')] });
    const manifest = (await readManifest(dir))!;
    const sessions = Object.values(manifest.graphs).filter((e) => e.sessionId && !e.reader);
    assert.equal(sessions.length, 2);
    assert.deepEqual(first.derived.ran['toy/quads'], { runs: 2, why: { new: 2 } });
    // Its file for each session holds exactly the quads the session graph's entry counts.
    for (const session of sessions) {
      const entry = manifest.files![`toy/${session.sessionId}`];
      assert.match(entry.file, new RegExp(`^toy/${session.sessionId}\\.[0-9a-f]{12}\\.json$`));
      assert.equal(entry.builtWith, 'toy/quads@1');
      assert.deepEqual(JSON.parse(await readFile(join(dir, entry.file), 'utf8')), { quads: session.quads });
    }
    assert.equal((await checkStore(dir)).ok, true);

    const again = await ingest(paths, { storeDir: dir, soul: 'local', derivations: [...DERIVATIONS, toy('1')] });
    assert.deepEqual([again.sessions, again.skipped, again.derived.ran], [0, 2, {}]);

    // A new version: no session is read again, and nothing but the toy runs.
    const bumped = await ingest(paths, { storeDir: dir, soul: 'local', derivations: [...DERIVATIONS, toy('2')] });
    assert.deepEqual([bumped.sessions, bumped.derived.ran], [0, { 'toy/quads': { runs: 2, why: { 'version changed': 2 } } }]);
    const after = (await readManifest(dir))!;
    for (const session of sessions) assert.equal(after.files![`toy/${session.sessionId}`].builtWith, 'toy/quads@2');
    // The version it replaced is gone from the disk, and the store checks clean.
    const check = await checkStore(dir);
    assert.deepEqual([check.ok, check.problems], [true, []]);
  } finally {
    await removeDir(dir);
  }
});

/** A toy that writes a graph of `lines` lines, each a part of its text (a write of its own). */
function toyGraph(name: string, lines: number): SessionDerivation<{ quads: number }> {
  return {
    name: `toy/${name}`,
    version: '1',
    description: `A graph of ${lines} lines for each session.`,
    reads: QUAD_COUNT,
    output: (_soul, sessionId) => ({ graph: `urn:toy:${name}:${sessionId}` }),
    derive: () => ({
      text: (function* () {
        for (let n = 0; n < lines; n++) yield `<urn:toy:${n}> <urn:toy:n> "${n}" <urn:toy:${name}> .\n`;
      })(),
    }),
  };
}

test("a session's outputs are written side by side, and told and counted in the derivations' order", async () => {
  const dir = await tempDir();
  try {
    const told: string[] = [];
    // The long graph's 2,000 writes end well after the short one's one.
    const report = await ingest([join(FIXTURES, 'spine')], {
      storeDir: dir,
      soul: 'local',
      jobs: 1,
      derivations: [toyGraph('long', 2000), toyGraph('short', 1)],
      onGraph: (graph) => void told.push(graph.replace(/:[^:]*$/, '')),
    });
    assert.deepEqual(told, ['urn:toy:long', 'urn:toy:short', 'urn:toy:long', 'urn:toy:short']);
    assert.deepEqual(report.derived.ran, { 'toy/long': { runs: 2, why: { new: 2 } }, 'toy/short': { runs: 2, why: { new: 2 } } });
    const manifest = (await readManifest(dir))!;
    const quads = Object.entries(manifest.graphs)
      .filter(([graph]) => graph.startsWith('urn:toy:'))
      .map(([graph, entry]) => [graph.replace(/:[^:]*$/, ''), entry.quads]);
    assert.deepEqual(quads.sort(), [
      ['urn:toy:long', 2000],
      ['urn:toy:long', 2000],
      ['urn:toy:short', 1],
      ['urn:toy:short', 1],
    ]);
    assert.deepEqual((await checkStore(dir)).problems, []);
  } finally {
    await removeDir(dir);
  }
});
