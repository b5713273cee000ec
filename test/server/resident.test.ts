import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { startServer } from '../../src/server/server.ts';
import { RUN_FILE } from '../../src/store/layout.ts';
import { buildOf } from '../../src/server/build.ts';
import { findServer, readRunFile, RUN_FORMAT } from '../../src/store/running.ts';
import { REPO, SERVER_FIXTURES, startTestServer } from './helpers.ts';

/**
 * One process owns the open store: `weave serve` writes `<store>/server.json` (pid, URL, token,
 * readable by the user only) and removes it when it stops; commands find it with `findServer`
 * and ask it; a stale run file (dead pid, or no answer as that pid) is ignored and replaced. A
 * server still opening its store says so, and a query that cannot wait gets 503 + Retry-After.
 */

const execute = promisify(execFile);
/** A command's environment with the server asked (the suite's default answers by itself: test/no-daemon.ts). */
const ASKING = { ...process.env, WEAVE_NO_DAEMON: '' };
const WEAVE = join(REPO, 'bin', 'weave');
const TURNS = 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }';
/** The server fixtures hold 6 turns (helpers.ts: EXPECTED_TURNS), as `weave query` prints them: the rule as wide as "?n". */
// Numbers are right-aligned under their header.
const TURNS_TABLE = '?n\n--\n 6\n(1 row)\n';

let store: string;
before(async () => {
  store = await mkdtemp(join(tmpdir(), 'weave-resident-'));
  await ingest([SERVER_FIXTURES], { storeDir: store, soul: 'local' });
});
after(() => rm(store, { recursive: true, force: true }));

/** A pid that ran and has exited, so no process has it now (pids are not reused at once). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

async function queryCount(base: string): Promise<number> {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  return Number(/^weave_sparql_operations_total\{op="query",status="200"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
}

describe('the run file', () => {
  it('is written 0600 with pid, URL and token while the server runs, found by findServer, and removed when it stops', async () => {
    const server = await startTestServer({ storeDir: store }, null);
    try {
      const path = join(store, RUN_FILE);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      const run = await readRunFile(store);
      assert.equal(run?.format, RUN_FORMAT);
      assert.equal(run?.pid, process.pid);
      assert.equal(run?.url, server.url);
      assert.equal(run?.token, server.ctx.config.token);
      assert.ok((run?.token.length ?? 0) >= 32, 'a generated token when none was given');
      assert.deepEqual(await findServer(store), { url: server.url, token: run!.token, pid: process.pid, build: await buildOf() });
      // A second server for the same store is refused, naming the first.
      await assert.rejects(
        startTestServer({ storeDir: store }, null),
        new RegExp(`already runs at ${server.url.replace(/[/.]/g, '\\$&')} \\(pid ${process.pid}\\)`),
      );
    } finally {
      await server.stop();
    }
    assert.equal(await readRunFile(store), undefined);
    assert.equal(await findServer(store), undefined);
  });

  it('is stale with a dead pid, or a live pid that does not answer as itself: ignored, then replaced', async () => {
    const stale = (pid: number, url: string) =>
      writeFile(join(store, RUN_FILE), JSON.stringify({ format: RUN_FORMAT, pid, url, token: 'old', startedAt: '2026-01-01T00:00:00Z' }));
    await stale(await deadPid(), 'http://127.0.0.1:9/');
    assert.equal(await findServer(store), undefined);
    // This process is alive, but nothing of it listens on port 9 (discard).
    await stale(process.pid, 'http://127.0.0.1:9/');
    assert.equal(await findServer(store, { timeoutMs: 1000 }), undefined);
    const server = await startTestServer({ storeDir: store }, null);
    try {
      const run = await readRunFile(store);
      assert.equal(run?.url, server.url);
      assert.notEqual(run?.token, 'old');
    } finally {
      await server.stop();
    }
  });
});

describe('weave query with a server up', () => {
  it('is answered by the server (its query count goes up by one), the same as opened here', async () => {
    const server = await startTestServer({ storeDir: store }, null);
    let served: string;
    try {
      const before = await queryCount(server.base);
      served = (await execute(WEAVE, ['query', '--store', store, TURNS], { encoding: 'utf8', env: ASKING })).stdout;
      assert.equal(await queryCount(server.base), before + 1);
      // A query error reads as a local run's: the position in the user's text.
      const bad = await execute(WEAVE, ['query', '--store', store, 'SELECT ?x WHERE {'], { encoding: 'utf8', env: ASKING }).then(
        () => ({ code: 0, stderr: '' }),
        (e) => e as { code: number; stderr: string },
      );
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^weave query: error at line 1, column 18: /);
    } finally {
      await server.stop();
    }
    assert.equal(served, TURNS_TABLE);
    const opened = (await execute(WEAVE, ['query', '--store', store, TURNS], { encoding: 'utf8' })).stdout;
    assert.equal(opened, TURNS_TABLE);
  });
});

describe('weave query --rdf, --format and --source with a server up', () => {
  const REIFIED = 'CONSTRUCT { ?r rdf:reifies ?t } WHERE { ?r rdf:reifies ?t } ORDER BY ?r LIMIT 5';
  const STATEMENT = '<http://www.w3.org/1999/02/22-rdf-syntax-ns#Statement>';
  /** pool.ttl holds three copia:Moment (m-0001, m-0002, m-0003); the store holds none. */
  const MOMENTS = 'SELECT (COUNT(?m) AS ?n) WHERE { ?m a <https://repolex.ai/ontology/kit/copia/Moment> }';
  const POOL = join(REPO, 'fixtures', 'federation', 'pool.ttl');
  const weave = async (...args: string[]) => (await execute(WEAVE, ['query', '--store', store, ...args], { encoding: 'utf8' })).stdout;
  const asking = async (...args: string[]) =>
    (await execute(WEAVE, ['query', '--store', store, ...args], { encoding: 'utf8', env: ASKING })).stdout;

  it('carries the rdf mode and format to the server, the same as opened here; a federated query runs here', async () => {
    const server = await startTestServer({ storeDir: store }, null);
    const served: Record<string, string> = {};
    try {
      const before = await queryCount(server.base);
      served.rdf11 = await asking('--rdf', '1.1', '--format', 'ntriples', REIFIED);
      served.star = await asking('--rdf', 'star', '--format', 'ntriples', REIFIED);
      assert.equal(await queryCount(server.base), before + 2);
      // Sources on the command line: Comunica here, never the server (its count stays).
      assert.equal(await asking('--source', POOL, MOMENTS), '?n\n--\n 3\n(1 row)\n');
      assert.equal(await queryCount(server.base), before + 2);
    } finally {
      await server.stop();
    }
    // RDF 1.1: the reifier is an rdf:Statement, no triple term; star: << s p o >>.
    assert.ok(served.rdf11.includes(STATEMENT) && !served.rdf11.includes('<<'));
    assert.ok(served.star.includes('<< ') && !served.star.includes('<<(') && !served.star.includes(STATEMENT));
    assert.equal(served.rdf11, await weave('--rdf', '1.1', '--format', 'ntriples', REIFIED));
    assert.equal(served.star, await weave('--rdf', 'star', '--format', 'ntriples', REIFIED));
  });
});

describe('a server still opening its store', () => {
  const config = (timeoutMs: number) => ({
    storeDir: store,
    soul: 'local',
    host: '127.0.0.1',
    port: 0,
    timeoutMs,
    workers: 2,
    queueLimit: 8,
    maxResultBytes: 1e6,
    bodyLimitBytes: 1e6,
    allowUpdate: false,
    corsOrigins: [],
    queriesDir: join(REPO, 'queries'),
    verbose: false,
    log: () => {},
  });

  it('answers a query sent at once as soon as the store is open', async () => {
    const server = await startServer(config(60_000));
    try {
      // Sent before the worker has booted (it loads tsx and Oxigraph first: far more than a few ms).
      assert.equal(((await (await fetch(`${server.url}healthz`)).json()) as { store: string }).store, 'loading');
      const res = await fetch(`${server.url}sparql?query=${encodeURIComponent(TURNS)}`, { headers: { accept: 'text/csv' } });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'n\r\n6\r\n');
      assert.equal((await server.ready).quads > 0, true);
    } finally {
      await server.close();
    }
  });

  it('gives 503 with Retry-After, saying the store is loading, to a query whose deadline comes first', async () => {
    const server = await startServer(config(50));
    try {
      const status = (await (await fetch(`${server.url}status`)).json()) as { store: { state: string } };
      assert.equal(status.store.state, 'loading');
      const res = await fetch(`${server.url}sparql?query=${encodeURIComponent(TURNS)}`);
      assert.equal(res.status, 503);
      assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      assert.match(await res.text(), /^503 Service Unavailable: the store is still loading\b.*; it should answer in about \d+ s\n$/);
      await server.ready;
      assert.equal(((await fetch(`${server.url}status`).then((r) => r.json())) as { store: { state: string } }).store.state, 'ready');
    } finally {
      await server.close();
    }
  });
});

describe('readable run file', () => {
  it('holds nothing but the fields named (no store content)', async () => {
    const server = await startTestServer({ storeDir: store }, null);
    try {
      assert.deepEqual(Object.keys(JSON.parse(await readFile(join(store, RUN_FILE), 'utf8'))).sort(), [
        'build',
        'format',
        'pid',
        'startedAt',
        'token',
        'url',
      ]);
    } finally {
      await server.stop();
    }
  });
});
