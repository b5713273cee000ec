/**
 * The resident store's figures (issue 11), before and after side by side in one run, on a store
 * just ingested (bench/run.ts calls `residentBench`):
 *
 * - `weave query` with no server (the store opened by the command, as every command did before)
 *   against the same command with `weave serve` up; each ready query of queries/ with the server;
 *   `weave verify` both ways;
 * - `weave serve`: time until it answers and RSS at rest, for 1, 2 and 4 workers, against one
 *   in-memory copy of the store in a process of its own (the 1.3× target), and, when
 *   BENCH_BEFORE names a checkout of an earlier Weave, that checkout's `weave serve` too;
 * - opening: Weave's openStore against Oxigraph's own fastest load of the same quads;
 * - a runaway query: how soon another query is answered, and memory while it runs and after.
 *
 * Wall times are of whole commands (node start included), as a user sees them.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const TIME = '/usr/bin/time';

interface Run {
  ms: number;
  /** Peak RSS in bytes, where /usr/bin/time is there to say. */
  rss?: number;
  code: number | null;
  stdout: string;
}

/** Runs `bin/weave ARGS` of a checkout to its end: wall time and peak RSS. */
function weave(checkout: string, args: string[]): Promise<Run> {
  const bin = join(checkout, 'bin', 'weave');
  const [command, argv] = existsSync(TIME) ? [TIME, ['-f', '%M', bin, ...args]] : [bin, args];
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      const kb = Number(stderr.trim().split('\n').pop());
      resolve({ ms: performance.now() - t0, rss: existsSync(TIME) && kb > 0 ? kb * 1024 : undefined, code, stdout });
    });
  });
}

function node(args: string[]): Promise<{ quads: number; ms: number; rss: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

/** The resident set of a running process (Linux), in bytes. */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

interface Served {
  pid: number;
  base: string;
  /** From spawn to the first answer from an open store. */
  readyMs: number;
  stop(): Promise<void>;
}

/** `weave serve --no-ingest` of a checkout; ready when /healthz says the store is open (or, in older builds, every worker is). */
export async function serve(
  checkout: string,
  dir: string,
  workers: number,
  port: number,
  timeoutSeconds = 30,
  extra: string[] = [],
): Promise<Served> {
  const t0 = performance.now();
  const child = spawn(
    join(checkout, 'bin', 'weave'),
    [
      'serve',
      '--no-ingest',
      '--store',
      dir,
      '--port',
      String(port),
      '--workers',
      String(workers),
      '--timeout',
      String(timeoutSeconds),
      ...extra,
    ],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    const health = (await fetch(`${base}/healthz`).then(
      (r) => r.json(),
      () => undefined,
    )) as { store?: string; workersReady?: number; workers?: number } | undefined;
    if (health?.store === 'ready' || (health?.workers !== undefined && health.workersReady === health.workers)) break;
    if (child.exitCode !== null) throw new Error(`${checkout}: weave serve exited ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    pid: child.pid!,
    base,
    readyMs: performance.now() - t0,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes?: number) => (bytes === undefined ? 'n/a' : `${(bytes / 2 ** 20).toFixed(0)} MiB`);

export interface Row {
  figure: string;
  before: string;
  after: string;
  ratio: string;
}

export async function residentBench(dir: string, options: { before?: string; port?: number } = {}): Promise<Row[]> {
  const rows: Row[] = [];
  const row = (figure: string, before: string, after: string, ratio: number | undefined) =>
    rows.push({ figure, before, after, ratio: ratio === undefined || !Number.isFinite(ratio) ? '' : `×${ratio.toFixed(2)}` });
  const port = options.port ?? 7961;

  // One copy of the store, and Oxigraph's floor for loading it.
  const single = await node(['bench/open-store.ts', dir]);
  const raw = await node(['bench/open-store.ts', dir, 'raw']);
  row(
    `open the store (${single.quads.toLocaleString('en')} quads): Oxigraph's fastest load → openStore`,
    s(raw.ms),
    s(single.ms),
    single.ms / raw.ms,
  );

  const ask = ['query', '--store', dir, 'ASK {}'];
  // The command opening the store itself: --no-daemon, or it would start a resident server.
  const alone = [await weave(REPO, [...ask, '--no-daemon']), await weave(REPO, [...ask, '--no-daemon'])];

  const servers: Record<string, { readyMs: number; rss: number }> = {};
  const measureServe = async (checkout: string, label: string, workers: number) => {
    const served = await serve(checkout, dir, workers, port);
    await new Promise((r) => setTimeout(r, 3000));
    servers[`${label}/${workers}`] = { readyMs: served.readyMs, rss: rssOf(served.pid) };
    await served.stop();
  };
  for (const workers of [1, 2, 4]) {
    if (options.before) await measureServe(options.before, 'before', workers);
    await measureServe(REPO, 'after', workers);
  }

  const server = await serve(REPO, dir, 2, port, 20);
  try {
    const withServer = [await weave(REPO, ask), await weave(REPO, ask), await weave(REPO, ask)];
    row(
      "weave query 'ASK {}': store opened by the command → weave serve up",
      s(median(alone.map((r) => r.ms))),
      s(median(withServer.map((r) => r.ms))),
      median(alone.map((r) => r.ms)) / median(withServer.map((r) => r.ms)),
    );
    // What the light entry saves: the same command line through tsx (help needs no store).
    const throughTsx = [await weave(REPO, ['query', '--help']), await weave(REPO, ['query', '--help'])];
    row(
      "node + tsx start alone (weave query --help) → weave query 'ASK {}' answered by the server",
      s(median(throughTsx.map((r) => r.ms))),
      s(median(withServer.map((r) => r.ms))),
      median(throughTsx.map((r) => r.ms)) / median(withServer.map((r) => r.ms)),
    );
    row(
      "weave query 'ASK {}' peak RSS",
      mib(alone[0].rss),
      mib(withServer[0].rss),
      alone[0].rss && withServer[0].rss ? alone[0].rss / withServer[0].rss : undefined,
    );

    const readyQueries = (await readdir(join(REPO, 'queries'))).filter((n) => n.endsWith('.rq')).sort();
    const times: [string, number][] = [];
    for (const name of readyQueries)
      times.push([name, (await weave(REPO, ['query', '--store', dir, '-f', join(REPO, 'queries', name)])).ms]);
    const slowest = times.reduce((a, b) => (b[1] > a[1] ? b : a));
    row(
      `every ready query (${times.length}) with the server up: slowest (${slowest[0]})`,
      s(median(alone.map((r) => r.ms))),
      s(slowest[1]),
      median(alone.map((r) => r.ms)) / slowest[1],
    );

    const verifyServed = await weave(REPO, ['verify', '--store', dir]);
    await server.stop();
    const verifyAlone = await weave(REPO, ['verify', '--store', dir, '--no-daemon']);
    row(
      'weave verify: store opened by the command → weave serve up',
      s(verifyAlone.ms),
      s(verifyServed.ms),
      verifyAlone.ms / verifyServed.ms,
    );
    row(
      'weave verify peak RSS',
      mib(verifyAlone.rss),
      mib(verifyServed.rss),
      verifyAlone.rss && verifyServed.rss ? verifyAlone.rss / verifyServed.rss : undefined,
    );
  } finally {
    await server.stop().catch(() => undefined);
  }

  for (const workers of [1, 2, 4]) {
    const after = servers[`after/${workers}`];
    const before = servers[`before/${workers}`];
    row(
      `weave serve --workers ${workers}: time until it answers`,
      before ? s(before.readyMs) : '(BENCH_BEFORE)',
      s(after.readyMs),
      before ? before.readyMs / after.readyMs : undefined,
    );
    row(
      `weave serve --workers ${workers}: RSS at rest`,
      before ? mib(before.rss) : '(BENCH_BEFORE)',
      mib(after.rss),
      before ? before.rss / after.rss : undefined,
    );
    row(
      `weave serve --workers ${workers}: RSS ÷ one in-memory copy (${mib(single.rss)}); target ≤ 1.3`,
      before ? (before.rss / single.rss).toFixed(2) : '',
      (after.rss / single.rss).toFixed(2),
      undefined,
    );
  }

  rows.push(...(await runaway(dir, port, single.rss)));
  return rows;
}

/**
 * A cross join holds the one copy; a second query comes 1 s later. The standby opens the store
 * and answers it; the runaway is cut at the timeout; the extra copy is closed once idle.
 */
async function runaway(dir: string, port: number, copy: number): Promise<Row[]> {
  const server = await serve(REPO, dir, 2, port, 40);
  const rows: Row[] = [];
  try {
    const atRest = rssOf(server.pid);
    let peak = atRest;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid))), 200);
    const post = (query: string) =>
      fetch(`${server.base}/sparql`, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-query', accept: 'text/csv' },
        body: query,
      });
    const t0 = performance.now();
    const held = post('SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }').then((r) => ({
      status: r.status,
      ms: performance.now() - t0,
    }));
    await new Promise((r) => setTimeout(r, 1000));
    const t1 = performance.now();
    const other = await post('SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }');
    const otherMs = performance.now() - t1;
    const cut = await held;
    // The extra copy is closed 2 s after it went idle; give it a moment more.
    await new Promise((r) => setTimeout(r, 5000));
    clearInterval(sampler);
    const after = rssOf(server.pid);
    rows.push({
      figure: `runaway query held the copy: another query answered after (status ${other.status})`,
      before: '',
      after: s(otherMs),
      ratio: '',
    });
    rows.push({ figure: `runaway query cut at the timeout (status ${cut.status})`, before: '', after: s(cut.ms), ratio: '' });
    rows.push({
      figure: 'runaway: RSS at rest → peak while the standby served → after',
      before: mib(atRest),
      after: `${mib(peak)} → ${mib(after)}`,
      ratio: `×${(peak / copy).toFixed(2)} → ×${(after / copy).toFixed(2)} of one copy`,
    });
  } finally {
    await server.stop();
  }
  return rows;
}

export function printRows(rows: Row[]): void {
  const widths = [
    Math.max(...rows.map((r) => r.figure.length)),
    Math.max(6, ...rows.map((r) => r.before.length)),
    Math.max(5, ...rows.map((r) => r.after.length)),
  ];
  console.log(`${'figure'.padEnd(widths[0])}  ${'before'.padStart(widths[1])}  ${'after'.padStart(widths[2])}  ratio`);
  for (const r of rows)
    console.log(`${r.figure.padEnd(widths[0])}  ${r.before.padStart(widths[1])}  ${r.after.padStart(widths[2])}  ${r.ratio}`);
}
