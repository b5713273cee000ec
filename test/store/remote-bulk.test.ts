import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { promisify } from 'node:util';
import { ingest, type IngestReport } from '../../src/ingest.ts';
import { runQuery } from '../../src/query/run.ts';
import { MANIFEST_FILE, SENDING_FILE } from '../../src/store/layout.ts';
import { readGraphBytes, readManifest } from '../../src/store/manifest.ts';
import { openQueries, selectRows, type StoreQueries } from '../../src/store/queries.ts';
import { readRemoteConfig, remoteStoreDir } from '../../src/store/remote/config.ts';
import { VirtuosoLoader } from '../../src/store/remote/bulk.ts';
import { RemoteStore } from '../../src/store/remote/client.ts';
import { gatheredMirror } from '../../src/store/remote/gathered.ts';
import { graphQuads } from '../../src/store/remote/rdf11.ts';
import { openStore } from '../../src/store/store.ts';
import { REPO } from '../server/helpers.ts';
import { figures } from './figures.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * An external store loaded by its bulk loader (remote.json's `bulk`: a real Virtuoso, its isql
 * and a directory it reads): the fixtures answer the figures as the same graphs held here do, a
 * changed session replaces its graph, and an ingest killed mid-load (SIGKILL) then run again ends
 * with every graph there once. Loads of 8 graphs, so the fixtures' 41 take several.
 */

const FIXTURES = join(REPO, 'fixtures');
const missing = virtuosoMissing();
/** The fixtures' session graphs (without readers): one per session, 41 sessions. */
const GRAPHS = 41;
const BATCH = 8;

/** Makes `dir` the store directory of `virtuoso`, with its bulk loader configured. */
async function bulkStore(virtuoso: Virtuoso, base: string): Promise<string> {
  const dir = remoteStoreDir(virtuoso.endpoint, base);
  const path = join(dir, 'remote.json');
  const config = JSON.parse(await readFile(path, 'utf8'));
  config.bulk = { engine: 'virtuoso', isql: virtuoso.isql, user: 'dba', password: 'dba', directory: virtuoso.loadDir, batch: BATCH };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  return dir;
}

/** The quads each graph of the manifest holds in the RDF 1.1 form sent (a set, as Virtuoso keeps them). */
async function expectedQuads(dir: string): Promise<Map<string, number>> {
  const manifest = (await readManifest(dir))!;
  const out = new Map<string, number>();
  for (const [graph, entry] of Object.entries(manifest.graphs)) {
    const lines = Buffer.concat(graphQuads(await readGraphBytes(dir, entry), graph, false, 'b'))
      .toString('utf8')
      .split('\n')
      .filter(Boolean);
    out.set(graph, new Set(lines).size);
  }
  return out;
}

/** The quads Virtuoso holds in each of `graphs`. */
async function heldQuads(external: StoreQueries, graphs: Iterable<string>): Promise<Map<string, number>> {
  const values = [...graphs].map((g) => `<${g}>`).join(' ');
  const rows = await selectRows(external, `SELECT ?g (COUNT(*) AS ?n) WHERE { VALUES ?g { ${values} } GRAPH ?g { ?s ?p ?o } } GROUP BY ?g`);
  return new Map(rows.map((r) => [r.g, Number(r.n)]));
}

function here(dir: string): Promise<StoreQueries> {
  return openStore(dir).then(({ store }) => ({ query: async (q, t) => runQuery(store, q, { results_format: t }) as string }));
}

async function loaderLeftovers(virtuoso: Virtuoso): Promise<{ files: string[]; rows: string }> {
  const files = (await readdir(virtuoso.loadDir)).filter((f) => f.startsWith('weave-bulk-'));
  const child = promisify(execFile)('isql-vt', [virtuoso.isql, 'dba', 'dba', 'VERBOSE=OFF', 'BANNER=OFF', 'PROMPT=OFF']);
  child.child.stdin?.end("SELECT 'rows', COUNT(*) FROM DB.DBA.LOAD_LIST WHERE LL_FILE LIKE '%weave-bulk-%';\n");
  const rows = /rows\s+(\d+)/.exec((await child).stdout)?.[1] ?? '?';
  return { files, rows };
}

test('a load whose graphs fail part-way (a read that fails after a file is written) leaves no file of its own behind', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'weave-bulk-files-'));
  try {
    // Isql is never reached: the second graph fails before the load is registered.
    const loader = new VirtuosoLoader({ engine: 'virtuoso', isql: '127.0.0.1:1', user: 'dba', password: 'dba', directory }, false);
    // More than one file's worth (8 MiB), so the first file is written before the second graph is read.
    const line = (i: number) => `<urn:x:s${i}> <urn:x:p> "${'x'.repeat(100)}" <urn:x:g1> .\n`;
    const big = Buffer.from(Array.from({ length: 90_000 }, (_, i) => line(i)).join(''));
    assert.ok(big.length > 8 * 1024 * 1024);
    const failing = async (): Promise<Buffer> => {
      assert.equal((await readdir(directory)).length, 1, 'the first file is written by now');
      throw new Error('the graph file cannot be read');
    };
    await assert.rejects(
      loader.load([
        { graph: 'urn:x:g1', read: async () => big },
        { graph: 'urn:x:g2', read: failing },
      ]),
      /the graph file cannot be read/,
    );
    assert.deepEqual(await readdir(directory), []);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('an isql that does not say how many files wait fails the load, where it was waited on for ever', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'weave-bulk-files-'));
  try {
    // A stand-in for isql that takes every statement and prints nothing.
    const isql = join(directory, 'isql');
    await writeFile(isql, '#!/bin/sh\ncat >/dev/null\n', { mode: 0o755 });
    const loader = new VirtuosoLoader(
      { engine: 'virtuoso', isql: '127.0.0.1:1', user: 'dba', password: 'dba', directory, command: isql },
      false,
    );
    const graph = Buffer.from('<urn:x:s> <urn:x:p> "o" <urn:x:g1> .\n');
    await assert.rejects(loader.load([{ graph: 'urn:x:g1', read: async () => graph }]), /did not say how many files wait and load/);
    assert.deepEqual(await readdir(directory), ['isql']);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

describe('an external store loaded by its bulk loader (Virtuoso)', { skip: missing }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let sources: string;
  let dir: string;
  let first: IngestReport;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await mkdtemp(join(tmpdir(), 'weave-bulk-'));
    sources = join(base, 'fixtures');
    await cp(FIXTURES, sources, { recursive: true });
    dir = await bulkStore(virtuoso, base);
    first = await ingest([sources], { storeDir: dir, soul: 'local' });
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('loads the graphs by the bulk loader, each once, and answers the figures as the store held here does', async () => {
    assert.equal(first.external?.graphs, GRAPHS);
    // Every full batch of 8 goes by the loader. A batch under 8 goes by PUT, at two points at most:
    // once the sessions are read (sendGathered), if the load before it ends before the readers'
    // graphs add to it (on a loaded machine, 31 of 39 went by the loader), and at the close.
    assert.ok(first.external!.bulk >= GRAPHS - 2 * (BATCH - 1), `bulk-loaded: ${first.external!.bulk}`);
    const external = await openQueries(dir);
    assert.deepEqual(await figures(external), await figures(await here(dir)));
    const expected = await expectedQuads(dir);
    assert.equal(expected.size, GRAPHS);
    assert.deepEqual(await heldQuads(external, expected.keys()), expected);
    assert.deepEqual(await loaderLeftovers(virtuoso), { files: [], rows: '0' });
  });

  it('a batch being loaded no longer counts as gathered: the writer gathers the next one meanwhile', async () => {
    const config = (await readRemoteConfig(dir))!;
    const manifest = (await readManifest(dir))!;
    const mirror = await gatheredMirror(
      new RemoteStore(config),
      new VirtuosoLoader(config.bulk!, config.tripleTerms),
      dir,
      manifest.graphs,
    );
    const entries = Object.entries(manifest.graphs).slice(0, BATCH + 1);
    const read = (i: number) => () => readGraphBytes(dir, entries[i][1]);
    for (let i = 0; i < BATCH; i++) await mirror.put(entries[i][0], read(i));
    assert.equal(mirror.gathered!(), BATCH);
    const loading = mirror.settle!();
    // Counted still, the writer waited out every load the moment it began (the ingest stalled a second a batch).
    assert.equal(mirror.gathered!(), 0);
    await mirror.put(entries[BATCH][0], read(BATCH));
    // A graph of the load under way put again (a newer version) waits for the next load.
    await mirror.put(entries[0][0], read(0));
    assert.equal(mirror.gathered!(), 2);
    await loading;
    assert.equal(mirror.gathered!(), 2);
    await mirror.settle!();
    assert.equal(mirror.gathered!(), 0);
    const expected = await expectedQuads(dir);
    assert.deepEqual(await heldQuads(await openQueries(dir), expected.keys()), expected);
  });

  it('a session changed and read again replaces exactly its graph', async () => {
    const file = join(sources, 'model/tool-joins/-home-dev-tools/30000000-0000-4000-8000-000000000001.jsonl');
    const text = await readFile(file, 'utf8');
    assert.ok(text.includes('Run the linter and the formatter.'));
    await writeFile(file, text.replace('Run the linter and the formatter.', 'Run the linter, then the formatter.'));
    const versions = async () =>
      Object.entries((await readManifest(dir))!.graphs).map(([g, e]) => [g, JSON.stringify([e.file, e.derived])] as const);
    const before = new Map(await versions());
    const report = await ingest([sources], { storeDir: dir, soul: 'local' });
    assert.equal(report.sessions, 1);
    const external = await openQueries(dir);
    const count = (t: string) => `SELECT (COUNT(*) AS ?n) WHERE { ?x ?p "${t}" }`;
    assert.deepEqual(await selectRows(external, count('Run the linter and the formatter.')), [{ n: '0' }]);
    assert.deepEqual(
      await selectRows(external, count('Run the linter, then the formatter.')),
      await selectRows(await here(dir), count('Run the linter, then the formatter.')),
    );
    const changed = (await versions()).filter(([g, v]) => before.get(g) !== v).map(([g]) => g);
    assert.deepEqual(changed, ['urn:soul:local:Weave/graph/30000000-0000-4000-8000-000000000001']);
    assert.deepEqual(report.external, { graphs: 1, bulk: 0 }, 'one graph, by PUT');
    const expected = await expectedQuads(dir);
    assert.deepEqual(await heldQuads(external, expected.keys()), expected);
    assert.deepEqual(await figures(external), await figures(await here(dir)));
  });

  it('refuses a remote.json that holds a password others may read, naming it', async () => {
    const path = join(dir, 'remote.json');
    const { chmod } = await import('node:fs/promises');
    await chmod(path, 0o644);
    try {
      await assert.rejects(readRemoteConfig(dir), {
        message: `${path}: holds the bulk loader's password but others may read it; chmod 600 ${path}`,
      });
    } finally {
      await chmod(path, 0o600);
    }
  });
});

describe('an ingest into the bulk loader killed part-way (SIGKILL), run again', { skip: missing }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let dir: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await mkdtemp(join(tmpdir(), 'weave-bulk-kill-'));
    dir = await bulkStore(virtuoso, base);
    // isql as Weave runs it, except that when asked to run the loaders, with WEAVE_TEST_KILL set it
    // kills the ingest (its parent): the graphs of that load are cleared and its files registered;
    // with WEAVE_TEST_FAIL_ONCE set to a file not there yet, it makes the file and fails as a
    // deadlocked transaction does.
    const isql = join(base, 'isql');
    await writeFile(
      isql,
      `#!/bin/sh
input=$(cat)
case "$input" in *rdf_loader_run*)
  [ -n "$WEAVE_TEST_KILL" ] && kill -9 $PPID && exit 1
  if [ -n "$WEAVE_TEST_FAIL_ONCE" ] && [ ! -e "$WEAVE_TEST_FAIL_ONCE" ]; then
    : > "$WEAVE_TEST_FAIL_ONCE"
    echo '*** Error 40001: [Virtuoso Driver][Virtuoso Server]SR172: Transaction deadlocked'
    exit 1
  fi;;
esac
printf '%s\\n' "$input" | exec isql-vt "$@"
`,
      { mode: 0o755 },
    );
    const path = join(dir, 'remote.json');
    const config = JSON.parse(await readFile(path, 'utf8'));
    config.bulk.command = isql;
    await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await rm(base, { recursive: true, force: true });
  });

  /** `weave ingest` of the fixtures in a child process, its exit signal. */
  function child(options: { force?: boolean; env?: Record<string, string> }, onStart?: (done: () => boolean) => Promise<void>) {
    const script = `import { ingest } from ${JSON.stringify(join(REPO, 'src/ingest.ts'))};
await ingest([${JSON.stringify(FIXTURES)}], { storeDir: ${JSON.stringify(dir)}, soul: 'local', force: ${!!options.force} });`;
    const process_ = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO,
      stdio: 'ignore',
      env: { ...process.env, ...options.env },
    });
    let done = false;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => process_.once('exit', (_code, signal) => resolve(signal)));
    void exited.then(() => (done = true));
    void onStart?.(() => done).then(() => process_.kill('SIGKILL'));
    return exited;
  }

  it('a first ingest killed in its second load: the rest is read and sent, every graph there once', async () => {
    // Killed while its second load runs: the first is in the manifest, the journal names the second's graphs.
    const signal = await child({}, async (done) => {
      while (!done() && !(existsSync(join(dir, MANIFEST_FILE)) && existsSync(join(dir, SENDING_FILE))))
        await new Promise((r) => setTimeout(r, 2));
    });
    assert.equal(signal, 'SIGKILL', 'the ingest was killed before it ended');
    const kept = Object.keys((await readManifest(dir))!.graphs).length;
    assert.ok(kept >= BATCH && kept < GRAPHS, `graphs the killed run's manifest names: ${kept}`);

    const report = await ingest([FIXTURES], { storeDir: dir, soul: 'local' });
    // Only what the first run's manifest did not name is read and sent.
    assert.equal(report.skipped, kept);
    const external = await openQueries(dir);
    const expected = await expectedQuads(dir);
    assert.equal(expected.size, GRAPHS);
    assert.deepEqual(await heldQuads(external, expected.keys()), expected);
    assert.deepEqual(await figures(external), await figures(await here(dir)));
    assert.equal(existsSync(join(dir, SENDING_FILE)), false);
    assert.deepEqual(await loaderLeftovers(virtuoso), { files: [], rows: '0' });
  });

  it('a forced re-read killed after its load cleared graphs the manifest names: they are sent again at that version', async () => {
    const expected = await expectedQuads(dir);
    const signal = await child({ force: true, env: { WEAVE_TEST_KILL: '1' } });
    assert.equal(signal, 'SIGKILL');
    const cut = (JSON.parse(await readFile(join(dir, SENDING_FILE), 'utf8')) as { graphs: string[] }).graphs;
    assert.equal(cut.length, BATCH);
    const external = await openQueries(dir);
    // Cleared there, still named here.
    assert.deepEqual(await heldQuads(external, cut), new Map());

    const report = await ingest([FIXTURES], { storeDir: dir, soul: 'local' });
    assert.equal(report.sessions, 0, 'nothing is read again: the manifest names every session at its version');
    assert.deepEqual(report.external, { graphs: BATCH, bulk: BATCH });
    assert.deepEqual(await expectedQuads(dir), expected);
    assert.deepEqual(await heldQuads(external, expected.keys()), expected);
    assert.deepEqual(await figures(external), await figures(await here(dir)));
    assert.equal(existsSync(join(dir, SENDING_FILE)), false);
    assert.deepEqual(await loaderLeftovers(virtuoso), { files: [], rows: '0' });
  });

  it('a load that fails once (a deadlock) is made again, whole: the ingest ends, every graph there once', async () => {
    const expected = await expectedQuads(dir);
    const marker = join(base, 'failed-once');
    process.env.WEAVE_TEST_FAIL_ONCE = marker;
    const notes: string[] = [];
    try {
      const report = await ingest([FIXTURES], { storeDir: dir, soul: 'local', force: true, onNote: (n) => notes.push(n) });
      assert.equal(existsSync(marker), true, 'a load failed');
      // Said, with isql's own line: the first load (a batch) failed and was made again.
      assert.deepEqual(notes, [
        `a bulk load of ${BATCH} graphs failed (isql at ${virtuoso.isql}: 40001: [Virtuoso Driver][Virtuoso Server]SR172: Transaction deadlocked); it is made again, whole`,
      ]);
      // Sent by the bulk loader, the load that failed among them (it failed no ingest).
      assert.ok(report.external!.bulk >= BATCH, `bulk-loaded: ${report.external!.bulk}`);
    } finally {
      delete process.env.WEAVE_TEST_FAIL_ONCE;
    }
    const external = await openQueries(dir);
    assert.deepEqual(await expectedQuads(dir), expected);
    assert.deepEqual(await heldQuads(external, expected.keys()), expected);
    assert.deepEqual(await figures(external), await figures(await here(dir)));
    assert.equal(existsSync(join(dir, SENDING_FILE)), false);
    assert.deepEqual(await loaderLeftovers(virtuoso), { files: [], rows: '0' });
  });

  it('a load that cannot reach isql fails the ingest with a clear error; fixed, the next run sends it', async () => {
    const expected = await expectedQuads(dir);
    const path = join(dir, 'remote.json');
    const config = JSON.parse(await readFile(path, 'utf8'));
    const command = config.bulk.command;
    await writeFile(path, JSON.stringify({ ...config, bulk: { ...config.bulk, command: join(base, 'no-isql') } }), { mode: 0o600 });
    await assert.rejects(ingest([FIXTURES], { storeDir: dir, soul: 'local', force: true }), {
      message: `${join(base, 'no-isql')} is not installed: the bulk loader is reached through Virtuoso's isql (set bulk.command in remote.json)`,
    });
    await writeFile(path, JSON.stringify({ ...config, bulk: { ...config.bulk, command } }), { mode: 0o600 });
    await ingest([FIXTURES], { storeDir: dir, soul: 'local' });
    const external = await openQueries(dir);
    assert.deepEqual(await expectedQuads(dir), expected);
    assert.deepEqual(await heldQuads(external, expected.keys()), expected);
    assert.equal(existsSync(join(dir, SENDING_FILE)), false);
    assert.deepEqual(await loaderLeftovers(virtuoso), { files: [], rows: '0' });
  });
});
