import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * The command line and its threads run from a built copy of Weave (src/cli/compiled.mjs), where
 * tsx cost a command 0.2 s and each thread 0.7 s of CPU to start. A copy that could not be built
 * would leave every command on the tsx path, as right and slower: these say it is built, and built
 * as the sources mean it.
 */

// @ts-expect-error: a plain .mjs module without types
const { compiled, light, program } = await import('../../src/cli/compiled.mjs');
const src = (path: string) => new URL(`../../src/${path}`, import.meta.url);

const PROGRAMS = ['cli/main.ts', 'session-worker.ts', 'server/workers/query-worker.ts', 'server/workers/ingest-worker.ts'];

test('each program has a built copy, and the command line loads from it', async () => {
  const built: (string | undefined)[] = await Promise.all(PROGRAMS.map((p) => program(src(p))));
  for (const [i, path] of built.entries()) {
    assert.ok(path?.startsWith(join(REPO, 'node_modules', '.cache', 'weave')), `${PROGRAMS[i]}: ${path}`);
    assert.ok(path?.endsWith(PROGRAMS[i].replace(/\.ts$/, '.mjs')), path);
  }
  assert.equal(await program(src('ingest.ts')), undefined, 'a module that is no program has no copy');
  const { run } = await import(pathToFileURL(built[0]!).href);
  assert.equal(typeof run, 'function');
});

test('each module keeps its own import.meta.url in the built copy (the files it finds beside itself)', async () => {
  // The files of this build (a folder may hold chunks of older ones).
  const dir = dirname(dirname(await program(src('cli/main.ts'))));
  const { outputs } = JSON.parse(await readFile(join(dir, 'built.json'), 'utf8')) as { outputs: string[] };
  const code = outputs.filter((f) => f.endsWith('.mjs'));
  assert.ok(code.length > PROGRAMS.length, code.join(' '));
  const all = (await Promise.all(code.map((f) => readFile(join(dir, f), 'utf8')))).join('\n');
  // Only the banner's require, which asks for Node's own modules, still uses the copy's URL.
  const left = all.split('\n').filter((line) => line.includes('import.meta.url') && !line.includes('__weaveRequire(import.meta.url)'));
  assert.deepEqual(left, []);
  assert.ok(all.includes(JSON.stringify(pathToFileURL(join(REPO, 'src', 'store', 'ontology.ts')).href)));
});

test('the light copies: usage leaves its SPARQL reports out, the fast client keeps what it imports later, in chunks of its own', async () => {
  const usage = await compiled(src('cli/usage.ts'));
  const fast = await compiled(src('client/fast.ts'));
  assert.equal(typeof usage?.answerQuickly, 'function');
  assert.equal(typeof fast?.answerQuickly, 'function');
  const imports = async (entry: string) =>
    [...(await readFile(await light(src(entry)), 'utf8')).matchAll(/\bimport\("(\.[^"]+)"\)/g)].map((m) => m[1]).sort();
  assert.deepEqual(await imports('cli/usage.ts'), ['../usage/graphs.ts', '../usage/group-report.ts']);
  // The external store's rewrite (its SPARQL parser) and the YAML printer: loaded only when asked for.
  const entry = await light(src('client/fast.ts'));
  const later = await imports('client/fast.ts');
  assert.ok(later.length >= 2, later.join(' '));
  for (const chunk of later) {
    assert.match(chunk, /^\.\/chunks\/[\w-]+\.mjs$/);
    await readFile(join(dirname(entry), chunk));
  }
  const text = await readFile(entry, 'utf8');
  assert.ok(!text.includes('@traqula') && !text.includes('chevrotain'), 'the SPARQL parser is not in the entry');
  assert.ok(text.length < 400_000, `the entry is ${text.length} bytes`);
});

test('with --verbose a thread’s failure names the TypeScript sources, as the command’s own does (source maps are a thread’s own)', async () => {
  const { SessionPool } = await import('../../src/session-pool.ts');
  const { DIALECTS } = await import('../../src/dialect/index.ts');
  const { emptyManifest } = await import('../../src/store/manifest.ts');
  const dir = await tempDir();
  /** A session no dialect reads (an id the thread does not know): its read fails in the thread, with the thread's stack. */
  const failed = async (maps: boolean) => {
    if (maps) process.env.WEAVE_SOURCE_MAPS = '1';
    else delete process.env.WEAVE_SOURCE_MAPS;
    const pool = new SessionPool(1, {
      storeDir: dir,
      soul: 'local',
      search: false,
      readers: [],
      largeSession: 1e9,
      dialects: [DIALECTS[0].module!],
    });
    try {
      const session = { sessionId: 's', subagents: [], journals: [], batches: [], projectDir: dir };
      const read = await pool.read({
        target: { session, dialect: 'no-such-dialect', graph: 'urn:x:g', stamps: [], sessionId: 's', builtWith: 'x', keep: false },
        view: emptyManifest('local'),
      });
      return read.storeFailure?.stack ?? '';
    } finally {
      await pool.close();
      delete process.env.WEAVE_SOURCE_MAPS;
    }
  };
  try {
    assert.match(await failed(true), /\(\/.*\/src\/[\w/-]+\.ts:\d+:\d+\)/);
    // Without it, the built copy's own lines: the thread runs from the copy, not through tsx.
    assert.doesNotMatch(await failed(false), /src\/[\w/-]+\.ts:\d+/);
  } finally {
    await removeDir(dir);
  }
});
