import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { loadShapes } from '../../src/validate/shapes.ts';
import { validateStore } from '../../src/validate/store.ts';
import { removeDir, tempDir } from '../helpers.ts';
import { everyLineAccounted, graphFilesSound, secretStaysInSession } from './checks.ts';
import { fuzzCase, PLANTED, POOL, render, type FuzzCase } from './mutate.ts';

/**
 * The ingest, the readers and the store under fuzzed transcripts (issue 15): real fixture
 * records, truncated, retyped, dropped and doubled, with invalid UTF-8, lone surrogates, NUL,
 * huge strings, deep nesting, odd ids, tool names and paths, reused uuids and parent cycles.
 * After each run: nothing crashed or hung, every line is an Event or a reported error with file
 * and line, every graph file re-parses in Oxigraph and N3.js to its count with no quad the data
 * injected, a planted secret is in no graph but the session's, and the graph conforms to the
 * shapes of ontology/shapes.ttl.
 *
 * CI runs a fixed seed: WEAVE_FUZZ_SEED (default 15) and WEAVE_FUZZ_RUNS (default 24, well
 * under a minute on two shared cores). A long run: WEAVE_FUZZ_RUNS=2000 WEAVE_FUZZ_SEED=$RANDOM
 * node --import tsx --test test/fuzz/ingest.test.ts; a failure prints its seed and shrunk case.
 */

const SEED = Number(process.env.WEAVE_FUZZ_SEED ?? 15);
const RUNS = Number(process.env.WEAVE_FUZZ_RUNS ?? 24);
const shapes = loadShapes();
/** A run that takes longer has hung (the largest case reads in a second or two). */
const HANG_MS = 60_000;

async function check(c: FuzzCase): Promise<void> {
  const dir = await tempDir('weave-fuzz-');
  try {
    const root = join(dir, 'projects', '-home-fuzz');
    const sessionId = 'f0220000-0000-4000-8000-000000000001';
    const { files } = render(c, sessionId);
    for (const [name, bytes] of files) {
      await mkdir(dirname(join(root, name)), { recursive: true });
      await writeFile(join(root, name), bytes);
    }
    const store = join(dir, 'store');
    const run = async () => {
      const report = await ingest([join(dir, 'projects')], { storeDir: store, soul: 'local' });
      const detected = await detect({ storeDir: store });
      return { report, detected };
    };
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${HANG_MS / 1000} s: hung`)), HANG_MS)),
    );
    const { report, detected } = (await Promise.race([run(), hung]).finally(() => clearTimeout(timer))) as Awaited<ReturnType<typeof run>>;

    const messages = [...report.problems.map((p) => p.message), ...detected.problems.map((p) => p.message)];
    assert.deepEqual(
      report.problems.filter((p) => p.kind === 'failed').map((p) => [p.path, p.lineNo, p.message, ...(p.frames ?? []).slice(0, 6)]),
      [],
      'no session fails inside Weave',
    );
    assert.deepEqual(detected.problems, [], 'no reader fails');
    assert.deepEqual(await everyLineAccounted(store, files, root, report), []);
    assert.deepEqual(await graphFilesSound(store), []);
    assert.deepEqual(await secretStaysInSession(store, PLANTED, messages), []);
    // And the graph is one the shapes accept.
    const validation = await validateStore(store, { shapes: await shapes });
    assert.deepEqual(
      validation.units.flatMap((u) => u.violations.map((v) => `${v.shape} ${v.constraint} ${v.focus} ${v.value ?? ''} ${v.message}`)),
      [],
    );
  } finally {
    await removeDir(dir);
  }
}

test(`fuzzed transcripts: no crash, no hang, every line accounted for, sound graph files, no secret outside its session, valid shapes (seed ${SEED}, ${RUNS} runs)`, async () => {
  assert.ok(POOL.length > 200, `the fixtures give ${POOL.length} records to mutate`);
  await fc.assert(fc.asyncProperty(fuzzCase, check), { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true });
});
