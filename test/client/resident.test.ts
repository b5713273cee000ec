import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { claimStart } from '../../src/client/daemon.ts';
import { SERVED_COMMANDS } from '../../src/client/fast.ts';
import { SERVER_LOG, START_FILE } from '../../src/store/layout.ts';
import type { Manifest } from '../../src/store/manifest.ts';
import { startServer } from '../../src/server/server.ts';
import { findServer, isRunning, readRunFile, writeRunFile } from '../../src/store/running.ts';
import { FIXTURES, REPO, tempDir } from '../helpers.ts';

/**
 * The resident server (src/client/daemon.ts), for real: bin/weave run as a user runs it, over a
 * store of all the fixtures, on a real socket. A command with --no-daemon opens the store
 * itself; the same command without it starts a resident server (the first) or asks it (the
 * rest), and prints the same bytes, its exit code and stderr included. The server's request
 * counts prove each was answered there. Every server a test starts is stopped in `after`.
 */

const execute = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
/** The suite answers by itself (test/no-daemon.ts); these commands may ask and start a server. A fixed width for tables. */
const ASKING = { ...process.env, WEAVE_NO_DAEMON: '', COLUMNS: '120' };
/** The largest fixture session with sub-agents and a workflow (spine/), and the largest of all (hardening/depth/). */
const SPINE_SESSION = '11111111-1111-4111-8111-111111111111';
const DEEP_SESSION = 'dee9dee9-0000-4000-8000-000000000001';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function weave(args: string[], env: NodeJS.ProcessEnv = ASKING): Promise<Run> {
  try {
    const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8', env, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Requests a server has answered, by route (its /metrics). */
async function answered(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, route, n] of text.matchAll(/^weave_http_requests_total\{route="([^"]+)",[^}]*\} (\d+)$/gm))
    counts[route] = (counts[route] ?? 0) + Number(n);
  return counts;
}

/** Stops the resident server of `store`, if one runs, and waits for it to go. */
async function stopResident(store: string): Promise<void> {
  const run = await readRunFile(store);
  if (!run || !isRunning(run.pid)) return;
  process.kill(run.pid, 'SIGTERM');
  for (let i = 0; i < 200 && isRunning(run.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function waitUntil(what: string, ready: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${what} within ${ms / 1000} s`);
}

/** What differs from run to run whoever answers: how long a search or a check took. */
function timeless(text: string): string {
  return text
    .replace(/ · \d+ ms\n/g, ' · N ms\n')
    .replace(/^no hits \(\d+ ms\)$/m, 'no hits (N ms)')
    .replace(/"millis": [\d.]+/g, '"millis": N');
}

/**
 * A store (of fixtures/server, unless `ingest` says what to read) for the tests of the describe it
 * is called in: built before them, its resident server stopped and the store removed after. Its
 * directory, once built.
 */
function serverStore(prefix: string, ingest = [join(FIXTURES, 'server'), '--no-detect']): () => string {
  let dir = '';
  before(async () => {
    dir = await tempDir(prefix);
    const built = await weave(['ingest', ...ingest, '--store', dir], { ...process.env, WEAVE_NO_DAEMON: '1' });
    assert.equal(built.code, 0, built.stderr);
  });
  after(async () => {
    await stopResident(dir);
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

describe('every command that reads the store, through the resident server it starts', () => {
  const built = serverStore('weave-resident-', [FIXTURES]);
  let store: string;
  before(() => {
    store = built();
  });

  // Each with the route that answers it when a server does; usage none: the prepared rows answer it, no server asked.
  const COMMANDS: [string[], string][] = [
    // Usage reads the prepared rows whatever runs: two of its forms are enough here (test/usage/ has the rest).
    [['usage', 'daily', '--since', '20250101', '--until', '2026-12-31', '--model', 'opus', '--wide'], ''],
    [['usage', 'session', '--json', '--order', 'asc'], ''],
    [['search', 'cart', 'total'], '/search'],
    [['search', 'cart', '--json', '--limit', '3'], '/search'],
    [['search', 'cart', '--kind', 'tool-input', '--kind', 'text'], '/search'],
    [['search', 'cart', '--session', '1000'], '/search'],
    [['search', 'cart', '--session', '8'], '/search'],
    [['search', 'qqqzzzxxx'], '/search'],
    [['conversation', SPINE_SESSION], '/conversation/:session'],
    [['conversation', SPINE_SESSION.slice(0, 4), '--terms', 'both', '--depth', '12', '--width', '50'], '/conversation/:session'],
    [['conversation', SPINE_SESSION, '--json'], '/conversation/:session'],
    [['conversation', SPINE_SESSION, '--format', 'yaml'], '/conversation/:session'],
    [['conversation', DEEP_SESSION, '--terms', 'native', '--depth', '30', '--width', '1000'], '/conversation/:session'],
    [['conversation', DEEP_SESSION, '--json'], '/conversation/:session'],
    [['query', 'SELECT ?kind (COUNT(*) AS ?n) WHERE { ?s a ?kind } GROUP BY ?kind ORDER BY DESC(?n) ?kind LIMIT 12'], '/sparql'],
    [['query', '--format', 'json', 'SELECT (COUNT(?t) AS ?turns) WHERE { ?t a weave:Turn }'], '/sparql'],
    [['query', 'CONSTRUCT WHERE { ?t a weave:Turn ; weave:role ?r } ORDER BY ?t LIMIT 5'], '/sparql'],
    [['verify'], '/sparql'],
  ];
  it('prints the same bytes, exit code and stderr as the command opening the store itself, and is answered by the server', async () => {
    assert.equal((await weave(['usage', '--store', store, '--no-daemon'])).code, 0);
    assert.equal(await readRunFile(store), undefined, '--no-daemon starts no server');
    // A query starts the server and waits for it (a search or a conversation would not: below).
    assert.equal((await weave(['query', 'ASK {}', '--store', store])).code, 0);
    // Each command through the server, then opening the store itself while the server runs (so
    // both say the same of it in weave status).
    const here: Run[] = [];
    const served: Run[] = [];
    for (const [args] of COMMANDS) {
      served.push(await weave([...args, '--store', store]));
      here.push(await weave([...args, '--store', store, '--no-daemon']));
    }
    const run = await readRunFile(store);
    assert.ok(run, 'the first command that reads the graphs started a resident server');
    assert.equal(run.startedBy, 'weave query');
    assert.equal(run.idleExitSeconds, 600);
    assert.match(run.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);

    for (const [i, [args]] of COMMANDS.entries()) {
      const what = `weave ${args.join(' ')}`;
      assert.equal(served[i].code, here[i].code, `${what}: exit code`);
      assert.equal(timeless(served[i].stdout), timeless(here[i].stdout), `${what}: stdout`);
      assert.equal(served[i].stderr, here[i].stderr, `${what}: stderr`);
    }
    // What the commands say, worked out from the fixtures: not the same empty answer twice.
    const at = (name: string) => COMMANDS.findIndex(([args]) => args.join(' ') === name);
    assert.equal(here[at('search qqqzzzxxx')].code, 1, 'no hits ends 1');
    assert.equal(here[at('search cart --session 8')].stderr, 'weave search: "8" names 2 sessions; give more of the id\n');
    assert.equal(JSON.parse(here[at(`conversation ${SPINE_SESSION} --json`)].stdout).header.session, SPINE_SESSION);
    assert.match(here[at('verify')].stdout, /\nverified: \d[\d,]* lines in \d+ files accounted for;/);

    const counts = await answered(run.url);
    assert.equal(counts['/usage'], undefined, 'usage is answered from the prepared rows');
    for (const route of new Set(COMMANDS.map(([, r]) => r).filter(Boolean))) {
      const asked = COMMANDS.filter(([, r]) => r === route).length;
      // verify asks two queries; every other command one request, after its look at /healthz.
      assert.ok((counts[route] ?? 0) >= asked, `${route}: ${counts[route] ?? 0} requests for ${asked} commands`);
    }
  });

  it('weave status names it: pid, URL, the command that started it, its idle time', async () => {
    const run = await readRunFile(store);
    assert.ok(run);
    // Wide enough that the server's line is not broken under its label.
    const { stdout } = await weave(['status', '--store', store], { ...ASKING, COLUMNS: '400' });
    const since = run.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    assert.match(stdout, /\nwriter {6}none\n/);
    assert.ok(
      stdout.endsWith(
        `\nserver      pid ${run.pid} at ${run.url} since ${since} (started by weave query; stops after 10 min without a request)\n`,
      ),
      stdout,
    );
    const json = JSON.parse((await weave(['status', '--json', '--store', store, '--no-daemon'])).stdout);
    assert.deepEqual(json.server, { pid: run.pid, url: run.url, since: run.startedAt, startedBy: 'weave query', idleExitSeconds: 600 });
  });

  it('answers with what a weave ingest wrote beside it since it opened the store', async () => {
    const SESSIONS = 'SELECT (COUNT(?s) AS ?n) WHERE { ?s a weave:Session }';
    const sessions = async (...more: string[]) => (await weave(['query', '--format', 'csv', SESSIONS, '--store', store, ...more])).stdout;
    // The fixtures' 40 sessions.
    assert.equal(await sessions(), 'n\r\n40\r\n');
    const server = await readRunFile(store);
    const extra = await tempDir('weave-resident-extra-');
    try {
      // A session the store has not seen: the server fixtures' second one, under a new id.
      const [from, to] = ['44444444-4444-4444-8444-444444444444', '45454545-4545-4545-8545-454545454545'];
      const text = await readFile(join(FIXTURES, 'server', '-home-grace-weave-server', `${from}.jsonl`), 'utf8');
      await mkdir(join(extra, '-home-grace-again'));
      await writeFile(join(extra, '-home-grace-again', `${to}.jsonl`), text.replaceAll(from, to));
      const ingested = await weave(['ingest', extra, '--store', store, '--no-detect'], { ...process.env, WEAVE_NO_DAEMON: '1' });
      assert.equal(ingested.code, 0, ingested.stderr);
    } finally {
      await rm(extra, { recursive: true, force: true });
    }
    assert.equal(await sessions(), 'n\r\n41\r\n');
    assert.equal(await sessions('--no-daemon'), 'n\r\n41\r\n');
    assert.equal((await readRunFile(store))?.pid, server?.pid, 'the same server answered');
  });

  it('stops itself when its store is gone', async () => {
    const run = await readRunFile(store);
    assert.ok(run && isRunning(run.pid));
    await rm(join(store, 'server.json'));
    await waitUntil('the resident server stops', () => !isRunning(run.pid));
    assert.match(await readFile(join(store, SERVER_LOG), 'utf8'), /weave serve: stopping: the store no longer names this server\n$/);
  });
});

describe('a search or a conversation on a store with no server open', () => {
  const store = serverStore('weave-resident-quick-');

  it('answers by itself, waiting for no server, and starts one that answers the commands after it', async () => {
    const search = ['search', 'hello', '--store', store()];
    const here = await weave([...search, '--no-daemon']);
    const first = await weave(search);
    assert.deepEqual([first.code, first.stderr], [0, '']);
    assert.equal(timeless(first.stdout), timeless(here.stdout));
    const log = await readFile(join(store(), SERVER_LOG), 'utf8');
    assert.match(log, /^\S+ weave search \(pid \d+\) starts a resident server\n/);
    // Started, not asked: the search was answered here.
    await waitUntil('the server has the store open', async () => !!(await findServer(store(), { open: true })));
    const run = await readRunFile(store());
    assert.equal(run?.startedBy, 'weave search');
    assert.equal((await answered(run.url))['/search'], undefined);
    // Once open, the server answers.
    assert.equal(timeless((await weave(search)).stdout), timeless(here.stdout));
    const conversation = await weave(['conversation', '44444444', '--store', store()]);
    assert.equal(conversation.code, 0, conversation.stderr);
    const counts = await answered(run.url);
    assert.deepEqual([counts['/search'], counts['/conversation/:session']], [1, 1]);
    assert.equal((await readFile(join(store(), SERVER_LOG), 'utf8')).match(/starts a resident server/g)?.length, 1);
  });
});

describe('the start claim', () => {
  it('goes to exactly one of many commands claiming at once, and leaves no claim written aside', async () => {
    const dir = await tempDir('weave-claim-');
    try {
      const claims = await Promise.all(Array.from({ length: 24 }, () => claimStart(dir)));
      assert.deepEqual(
        claims.filter((c) => c === 'ours'),
        ['ours'],
      );
      assert.equal(claims.filter((c) => c === 'taken').length, 23);
      const claim = JSON.parse(await readFile(join(dir, START_FILE), 'utf8'));
      assert.equal(claim.pid, process.pid);
      assert.deepEqual(await readdir(dir), [START_FILE], 'no claim written aside is left');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('two commands at once on a store with no server', () => {
  const store = serverStore('weave-resident-race-');

  it('end with one resident server, which both asked', async () => {
    const [a, b] = await Promise.all([
      weave(['query', 'ASK { ?t a weave:Turn }', '--store', store()]),
      weave(['query', 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }', '--store', store()]),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.stdout, '?n\n--\n 6\n(1 row)\n');
    const log = await readFile(join(store(), SERVER_LOG), 'utf8');
    assert.equal(log.match(/starts a resident server/g)?.length, 1, log);
    assert.equal(log.match(/weave serve: listening on /g)?.length, 1, log);
    const run = await readRunFile(store());
    assert.ok(run && isRunning(run.pid));
    const counts = await answered(run.url);
    assert.equal(counts['/sparql'], 2);
    await assert.rejects(readFile(join(store(), START_FILE)), /ENOENT/, 'the start file is gone once the server runs');
  });

  it('gives way to a weave serve of the same store', async () => {
    const resident = await readRunFile(store());
    assert.ok(resident?.startedBy);
    const { startTestServer } = await import('../server/helpers.ts');
    const server = await startTestServer({ storeDir: store() }, null);
    try {
      assert.equal(isRunning(resident.pid), false);
      const run = await readRunFile(store());
      assert.equal(run?.pid, process.pid);
      assert.equal(run?.startedBy, undefined);
    } finally {
      await server.stop();
    }
  });
});

/**
 * Found using Weave after an edit to it: the resident server an earlier command started went on
 * answering with the code it had loaded, for as long as commands kept it from idling out (an
 * upgrade did not take). Weave is copied for this (its files, its packages linked): an edit to
 * the checkout's own would stop the resident servers of every other test.
 */
describe("a resident server when Weave's files change", () => {
  const store = serverStore('weave-resident-build-');
  let copy = '';
  before(async () => {
    copy = await tempDir('weave-resident-copy-');
    for (const part of ['src', 'ontology', 'data', 'queries', 'bin', 'package.json', 'package-lock.json'])
      await cp(join(REPO, part), join(copy, part), { recursive: true, preserveTimestamps: true });
    await symlink(join(REPO, 'node_modules'), join(copy, 'node_modules'));
  });
  after(async () => {
    await stopResident(store());
    await rm(copy, { recursive: true, force: true });
  });
  const COUNT = 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }';
  const ask = async (weaveBin: string) => {
    const { stdout } = await execute(weaveBin, ['query', '--format', 'csv', COUNT, '--store', store()], { encoding: 'utf8', env: ASKING });
    return stdout;
  };

  it('stops itself, and the next command starts one of Weave as it now is', async () => {
    const weaveCopy = join(copy, 'bin', 'weave');
    assert.equal(await ask(weaveCopy), 'n\r\n6\r\n');
    const first = await readRunFile(store());
    assert.ok(first?.build && isRunning(first.pid), 'a server records the build it runs');
    // An edit, as an upgrade or a developer makes it: the server goes within moments.
    await appendFile(join(copy, 'src', 'time.ts'), '\n// edited\n');
    await waitUntil('the server of the old files stops', () => !isRunning(first.pid), 10_000);
    assert.equal(await readRunFile(store()), undefined, 'its run file is gone');
    assert.match(
      await readFile(join(store(), SERVER_LOG), 'utf8'),
      /weave serve: stopping: Weave's own files changed since it started \(src\/time\.ts\); the next command starts a server of them\n$/,
    );
    assert.equal(await ask(weaveCopy), 'n\r\n6\r\n');
    const second = await readRunFile(store());
    assert.ok(second && second.pid !== first.pid && isRunning(second.pid));
    assert.notEqual(second.build, first.build);
    assert.equal((await answered(second.url))['/sparql'], 1, 'the new server answered');
  });

  it('started by a Weave from before builds were recorded, is stopped by the next command', async () => {
    await stopResident(store());
    assert.equal(await ask(WEAVE), 'n\r\n6\r\n');
    const run = await readRunFile(store());
    assert.ok(run?.startedBy && isRunning(run.pid));
    const { format: _, build: __, ...older } = run;
    await writeRunFile(store(), older);
    assert.equal(await ask(WEAVE), 'n\r\n6\r\n');
    assert.equal(isRunning(run.pid), false);
    const now = await readRunFile(store());
    assert.ok(now?.build && now.pid !== run.pid);
  });

  it('started by the user (weave serve), is theirs: asked as it is', async () => {
    await stopResident(store());
    const { startTestServer } = await import('../server/helpers.ts');
    const server = await startTestServer({ storeDir: store() }, null);
    try {
      const run = await readRunFile(store());
      assert.ok(run && run.startedBy === undefined);
      const { format: _, build: __, ...older } = run;
      await writeRunFile(store(), older);
      assert.equal(await ask(WEAVE), 'n\r\n6\r\n');
      assert.equal((await readRunFile(store()))?.pid, process.pid, 'the same server runs');
      assert.equal((await answered(run.url))['/sparql'], 1, 'and answered');
    } finally {
      await server.stop();
    }
  });

  it('looks once, when its watch begins, for a file written since its process started', async () => {
    // The watch begins once the server listens; an edit while it loaded its code went unseen.
    const { changedSince } = (await import(
      pathToFileURL(join(copy, 'src', 'server', 'build.ts')).href
    )) as typeof import('../../src/server/build.ts');
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await changedSince(started), undefined);
    await appendFile(join(copy, 'src', 'time.ts'), '\n// edited while the server loaded\n');
    assert.equal(await changedSince(started), 'src/time.ts');
    // A file dated in the future (a skewed clock, an unpacked archive) is no change: else every
    // resident server would stop as soon as it started.
    const ahead = new Date(Date.now() + 3_600_000);
    await utimes(join(copy, 'src', 'time.ts'), ahead, ahead);
    assert.equal(await changedSince(started), undefined);
  });
});

describe('a store the resident server cannot open', () => {
  const store = serverStore('weave-resident-broken-');
  let file: string;
  before(async () => {
    // A session graph whose first line is not N-Quads: nothing can open the store.
    const manifest = JSON.parse(await readFile(join(store(), 'manifest.json'), 'utf8')) as Manifest;
    file = join(store(), Object.values(manifest.graphs).find((e) => e.sessionId && !e.reader)!.file);
    const bytes = await readFile(file);
    bytes.write('<broken> <broken> .\n', 0);
    await writeFile(file, bytes);
  });

  it('is opened by the command itself, which says why; commands then do not start one for a while', async () => {
    const broken = `weave query: ${file}:1: not valid N-Quads\n`;
    const first = await weave(['query', 'ASK {}', '--store', store()]);
    assert.equal(first.code, 1);
    assert.equal(
      first.stderr,
      `weave query: the resident server did not start (its log: ${join(store(), SERVER_LOG)}); opening the store here\n${broken}`,
    );
    const second = await weave(['query', 'ASK {}', '--store', store()]);
    assert.deepEqual([second.code, second.stderr], [1, broken]);
    const log = await readFile(join(store(), SERVER_LOG), 'utf8');
    assert.equal(log.match(/starts a resident server/g)?.length, 1, log);
    assert.match(log, /weave serve: stopping: the store cannot be opened\n$/);
    assert.equal(await readRunFile(store()), undefined);
  });

  it('a search answers by itself; the server it starts stops, and no search starts another for a while', async () => {
    await rm(join(store(), START_FILE), { force: true });
    const starts = async () =>
      (await readFile(join(store(), SERVER_LOG), 'utf8').catch(() => '')).match(/starts a resident server/g)?.length ?? 0;
    const before = await starts();
    const search = ['search', 'hello', '--store', store()];
    const first = await weave(search);
    assert.deepEqual([first.code, first.stderr], [0, '']);
    assert.equal(await starts(), before + 1);
    const claim = JSON.parse(await readFile(join(store(), START_FILE), 'utf8')) as { pid: number };
    await waitUntil('the server it started stops', () => !isRunning(claim.pid));
    const second = await weave(search);
    assert.deepEqual([second.code, second.stderr, timeless(second.stdout)], [0, '', timeless(first.stdout)]);
    assert.equal(await starts(), before + 1, 'no second server started');
    assert.equal(JSON.parse(await readFile(join(store(), START_FILE), 'utf8')).failed, true);
  });

  it('a server stopping answers a request waiting for the store at once, not at its deadline', async () => {
    const server = await startServer({
      storeDir: store(),
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
    });
    const waiting = fetch(`${server.url}sparql?query=${encodeURIComponent('ASK {}')}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = performance.now();
    await server.close();
    const res = await waiting;
    assert.equal(res.status, 503);
    // Told at close, or sooner, when the copy fails to open this store (whichever comes first).
    assert.match(
      await res.text(),
      /shutting down|^503 Service Unavailable: the store cannot be opened \(the server log says which file and why\)/,
    );
    assert.ok(performance.now() - started < 10_000, `stopped in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
});

describe('weave serve --idle-exit', () => {
  it('stops after that long without a request, removing its run file', async () => {
    const store = await tempDir('weave-resident-idle-');
    try {
      const built = await weave(['ingest', join(FIXTURES, 'server'), '--store', store, '--no-detect'], {
        ...process.env,
        WEAVE_NO_DAEMON: '1',
      });
      assert.equal(built.code, 0, built.stderr);
      const started = performance.now();
      const served = await weave(['serve', '--store', store, '--no-ingest', '--port', '0', '--idle-exit', '2', '--workers', '1']);
      const seconds = (performance.now() - started) / 1000;
      assert.equal(served.code, 0, served.stderr);
      assert.match(served.stderr, /weave serve: stopping: no request for 2 s\n$/);
      assert.ok(seconds >= 2, `it ran ${seconds.toFixed(1)} s`);
      assert.equal(await readRunFile(store), undefined);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  });
});

it('the light entry compiles and loads without a TypeScript loader (else every command takes the tsx path)', async () => {
  // @ts-expect-error: a plain .mjs module without types
  const { compiled } = await import('../../src/cli/compiled.mjs');
  const fast = await compiled(new URL('../../src/client/fast.ts', import.meta.url));
  assert.equal(typeof fast?.answerQuickly, 'function');
  assert.deepEqual(fast.SERVED_COMMANDS, SERVED_COMMANDS);
});

it('the light entry is compiled for every command it answers (src/cli/launch.mjs lists them)', async () => {
  const launch = await readFile(join(REPO, 'src', 'cli', 'launch.mjs'), 'utf8');
  const listed = /const SERVED = new Set\(\[([^\]]*)\]\)/
    .exec(launch)?.[1]
    .match(/'[a-z]+'/g)
    ?.map((s) => s.slice(1, -1));
  assert.deepEqual(listed?.sort(), [...SERVED_COMMANDS].sort());
});
