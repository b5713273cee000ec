/**
 * `npm run bench -- --scale K [--corpus PATH] [--keep] [--external | --external-only] [--name NAME]`: how far one machine goes. Makes K
 * distinct copies of a corpus (copies.ts), then for K = 1, 4, 16, … up to K (or the list given,
 * `--scale 1,2,4`) measures side by side, each step in a process of its own: ingest and the
 * readers (MB/s, quads per MB, peak RSS), opening the store against Oxigraph's own chunked load
 * of the same quads (time, WASM bytes per quad), every query in queries/ (p50, p95), a point and
 * a medium query against `weave serve` and against a bare Fastify route over one in-process
 * store (req/s, p99), and `weave usage daily` against `ccusage daily --json` on the same
 * folders. Writes bench/results/<date>.json and .md (<date>-NAME with --name) and prints the
 * table, with each figure's growth exponent across K.
 *
 * Knobs (environment): BENCH_QUERY_RUNS (7), BENCH_QUERY_BUDGET_MS (15000, per query and K),
 * BENCH_QUERY_CAP_S (180: a query still running is cut off), BENCH_VERIFY_CAP_S (3600: the
 * external step's `weave verify`), BENCH_ENDPOINT_SECONDS (5),
 * BENCH_CONNECTIONS (8), BENCH_WORKERS (1, for weave serve), BENCH_PORT (the bare route's port;
 * weave serve takes the next; default 7950 + pid % 40).
 *
 * `--external` adds the external step at each K (external.ts): the copies ingested into a
 * Virtuoso by `weave ingest --store http://…/sparql` beside Virtuoso's own bulk loader of the same
 * quads, and each ready query through `weave query --store` beside a bare fetch of it (Virtuoso
 * on BENCH_PORT + 2, given BENCH_VIRTUOSO_GB of buffers, 4 by default); `--external-only` runs it
 * without the embedded steps (for K past the embedded ceiling).
 *
 * The results files are written again after every figure, so a step whose process dies (or a run
 * cut short) keeps every figure measured before it; the bench stops waiting for a step whose
 * process has died.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, type Line } from './child.ts';
import { makeCopies } from './copies.ts';
import { hammer, startWeave } from './endpoint.ts';
import type { ScaleResults, ScaleRun } from './results.ts';
import { externalStep } from './external.ts';
import { markdownTable } from './table.ts';
import { ccusage, weaveUsage } from './usage.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SETTINGS = {
  queryRuns: knob('BENCH_QUERY_RUNS', 7),
  queryBudgetMs: knob('BENCH_QUERY_BUDGET_MS', 15_000),
  queryCapS: knob('BENCH_QUERY_CAP_S', 180),
  verifyCapS: knob('BENCH_VERIFY_CAP_S', 3600),
  endpointSeconds: knob('BENCH_ENDPOINT_SECONDS', 5),
  connections: knob('BENCH_CONNECTIONS', 8),
  workers: knob('BENCH_WORKERS', 1),
};
const PORT = knob('BENCH_PORT', 7950 + (process.pid % 40));
const HOUR = 3600_000;

const MEDIUM = 'SELECT ?name (COUNT(*) AS ?n) WHERE { ?b a weave:ToolUseBlock ; weave:toolName ?name } GROUP BY ?name ORDER BY DESC(?n)';
const FIRST_TURN = 'SELECT ?t WHERE { ?t a weave:AssistantTurn } ORDER BY ?t LIMIT 1';
const FIRST_SESSION = 'SELECT ?s WHERE { ?transcript weave:sessionId ?s } ORDER BY ?s LIMIT 1';
const point = (iri: string) => `SELECT ?p ?o WHERE { <${iri}> ?p ?o }`;

/** The K values to run: `4` → 1, 4; `16` → 1, 4, 16; `1,2,4` as given. */
export function kValues(arg: string): number[] {
  if (arg.includes(',')) return [...new Set(arg.split(',').map(Number))].sort((a, b) => a - b);
  const k = Number(arg);
  if (!Number.isSafeInteger(k) || k < 1) throw new Error(`--scale takes a whole number ≥ 1 or a list such as 1,2,4, not "${arg}"`);
  const ks = [1];
  for (let x = 4; x < k; x *= 4) ks.push(x);
  if (k > 1) ks.push(k);
  return ks;
}

export async function scaleBench(args: string[]): Promise<void> {
  const at = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const ks = kValues(at('--scale') ?? '1');
  const corpus = at('--corpus') ?? join(REPO, '..', 'shared', 'corpus');
  const keep = args.includes('--keep');
  const embedded = !args.includes('--external-only');
  const external = !embedded || args.includes('--external');
  const dir = await mkdtemp(join(tmpdir(), 'weave-scale-'));
  const results: ScaleResults = {
    date: new Date().toISOString().slice(0, 10),
    corpus,
    machine: { cpus: cpus().length, node: process.version, loadBefore: loadavg() },
    settings: SETTINGS,
    runs: [],
  };
  const say = (text: string) => process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
  const out = join(REPO, 'bench', 'results');
  // `--name NAME`: bench/results/<date>-NAME.*, beside the day's other runs.
  const name = at('--name') ? `${results.date}-${at('--name')}` : results.date;
  await mkdir(out, { recursive: true });
  const save = async () => {
    results.machine.loadAfter = loadavg();
    await writeFile(join(out, `${name}.json`), `${JSON.stringify(results, null, 1)}\n`);
    await writeFile(join(out, `${name}.md`), markdownTable(results));
  };
  try {
    say(`copying ${corpus} ${Math.max(...ks)} times into ${dir}`);
    const copies = await makeCopies(corpus, join(dir, 'corpus'), Math.max(...ks));
    const queries = await readyQueries();
    for (const k of ks) {
      const run: ScaleRun = { k, bytes: copies.bytes * k, queries: [], endpoint: [], usage: {} };
      results.runs.push(run);
      const configDirs = copies.configDirs.slice(0, k);
      if (embedded) await embeddedSteps(run, join(dir, `store-${k}`), configDirs, queries, dir, keep, save, say);
      if (external) {
        say(`K = ${k}: external (Virtuoso)`);
        run.external = { queries: [] };
        await externalStep(
          run.external,
          configDirs.map((d) => join(d, 'projects')),
          join(dir, `external-${k}`),
          PORT + 2,
          queries,
          save,
          (t) => say(`K = ${k}: ${t}`),
          SETTINGS.queryCapS * 1000,
          SETTINGS.verifyCapS * 1000,
        );
        await save();
      }
    }
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
    else say(`kept ${dir}`);
  }
  await save();
  process.stdout.write(`${markdownTable(results)}\nwritten: bench/results/${name}.json and .md\n`);
}

/** The embedded steps at one K: ingest, open and the ready queries, Oxigraph's chunked load, weave serve, usage. */
async function embeddedSteps(
  run: ScaleRun,
  store: string,
  configDirs: string[],
  queries: { name: string; text: string }[],
  dir: string,
  keep: boolean,
  save: () => Promise<void>,
  say: (text: string) => void,
): Promise<void> {
  say(`K = ${run.k}: ingest`);
  await ingestStep(
    run,
    store,
    configDirs.map((d) => join(d, 'projects')),
  );
  await save();
  say(`K = ${run.k}: open, queries, bare endpoint`);
  // A store that does not open (past the ceiling, refused) is a figure too: the steps after it still run.
  await storeStep(run, store, queries, dir, save).catch((e: Error) => (run.failed = [...(run.failed ?? []), e.message.slice(0, 400)]));
  await save();
  say(`K = ${run.k}: Oxigraph's chunked load`);
  const raw = startChild('raw-step.ts', [store]);
  run.raw = strip(await raw.next('raw', 2 * HOUR)) as ScaleRun['raw'];
  await raw.stop();
  await save();
  say(`K = ${run.k}: weave serve`);
  await weaveEndpoint(run, store);
  await save();
  say(`K = ${run.k}: weave usage daily, ccusage daily`);
  run.usage.weave = await weaveUsage(store);
  run.usage.ccusage = await ccusage(configDirs);
  await save();
  if (!keep) await rm(store, { recursive: true, force: true });
}

async function ingestStep(run: ScaleRun, store: string, paths: string[]): Promise<void> {
  const child = startChild('ingest-step.ts', [store, ...paths]);
  run.ingest = strip(await child.next('ingest', 4 * HOUR)) as ScaleRun['ingest'];
  run.readers = strip(await child.next('readers', 4 * HOUR)) as ScaleRun['readers'];
  await child.exited;
}

/** Opens the store, runs the queries (a query past the cap is cut off and the rest run in a new process), then loads the bare endpoint. */
async function storeStep(
  run: ScaleRun,
  store: string,
  queries: { name: string; text: string }[],
  dir: string,
  save: () => Promise<void>,
): Promise<void> {
  let left = [...queries];
  for (let attempt = 0; ; attempt++) {
    const file = join(dir, `queries-${attempt}.json`);
    await writeFile(file, JSON.stringify(left));
    const child = startChild('store-step.ts', [store, file, String(SETTINGS.queryRuns), String(SETTINGS.queryBudgetMs), String(PORT)]);
    const open = await child.next('open', 2 * HOUR);
    if (!open) throw new Error(`the store did not open: ${child.death() ?? 'no figure within 2 hours'}`);
    if (attempt === 0) {
      run.open = strip(open) as ScaleRun['open'];
      await save();
    }
    let interrupted = false;
    while (left.length) {
      const started = performance.now();
      const done = await child.next('query', SETTINGS.queryCapS * 1000);
      if (!done) {
        // Either the query ran past the cap, or it took the process down (a WebAssembly trap).
        const died = child.death();
        run.queries.push({
          name: left[0].name,
          runs: 0,
          ...(died ? { diedAfterMs: performance.now() - started, died } : { cutOffAfterMs: performance.now() - started }),
        });
        left = left.slice(1);
        await save();
        interrupted = true;
        break;
      }
      run.queries.push(strip(done) as ScaleRun['queries'][number]);
      left = left.slice(1);
      await save();
    }
    // The rest (or, after the last query, only the bare endpoint) in a new process: this one is
    // gone, or still busy with the query cut off.
    if (interrupted) {
      await child.stop();
      continue;
    }
    const listening = await child.next('listening', 60_000);
    if (listening?.turn) {
      const base = `http://127.0.0.1:${PORT}`;
      for (const [name, query] of [
        ['point', point(String(listening.turn))],
        ['medium', MEDIUM],
      ] as const)
        run.endpoint.push({ query: name, bare: await hammer(base, query, SETTINGS.endpointSeconds, SETTINGS.connections) });
    }
    await child.stop();
    return;
  }
}

async function weaveEndpoint(run: ScaleRun, store: string): Promise<void> {
  let server: Awaited<ReturnType<typeof startWeave>>;
  try {
    server = await startWeave(store, PORT + 1, SETTINGS.workers, 2 * HOUR);
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n`);
    return;
  }
  try {
    const first = await fetch(`${server.base}/sparql?query=${encodeURIComponent(FIRST_TURN)}`, {
      headers: { accept: 'application/sparql-results+json' },
    });
    const iri = ((await first.json()) as { results: { bindings: { t: { value: string } }[] } }).results.bindings[0]?.t.value;
    for (const [name, query] of [
      ['point', iri ? point(iri) : undefined],
      ['medium', MEDIUM],
    ] as const) {
      if (!query) continue;
      const entry = run.endpoint.find((e) => e.query === name) ?? run.endpoint[run.endpoint.push({ query: name }) - 1];
      entry.weave = await hammer(server.base, query, SETTINGS.endpointSeconds, SETTINGS.connections);
    }
    run.pages = await pages(server.base, iri);
  } finally {
    await server.stop();
  }
}

/** Each page a browser asks of weave serve once: its status and time to the last byte (a page that fails is a figure too). */
async function pages(base: string, turn: string | undefined): Promise<NonNullable<ScaleRun['pages']>> {
  const sessions = await fetch(`${base}/sparql?query=${encodeURIComponent(FIRST_SESSION)}`, {
    headers: { accept: 'application/sparql-results+json' },
  }).then((r) => r.json() as Promise<{ results: { bindings: { s: { value: string } }[] } }>);
  const session = sessions.results.bindings[0]?.s.value;
  const paths = [
    '/overview',
    '/conversation',
    ...(session ? [`/conversation/${session}`] : []),
    ...(turn ? [`/describe?iri=${encodeURIComponent(turn)}`] : []),
    '/search?q=git+worktree',
    '/usage?report=daily',
  ];
  const out: NonNullable<ScaleRun['pages']> = [];
  for (const path of paths) {
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`, { headers: { accept: 'text/html' } }).catch(() => undefined);
    await res?.arrayBuffer().catch(() => undefined);
    out.push({
      page: (session ? path.replace(session, 'SESSION') : path).replace(/iri=[^&]+/, 'iri=TURN'),
      status: res?.status ?? 0,
      ms: performance.now() - t0,
    });
  }
  return out;
}

async function readyQueries(): Promise<{ name: string; text: string }[]> {
  const folder = join(REPO, 'queries');
  const names = (await readdir(folder)).filter((n) => n.endsWith('.rq')).sort();
  return Promise.all(names.map(async (n) => ({ name: n.replace(/\.rq$/, ''), text: await readFile(join(folder, n), 'utf8') })));
}

function strip(line: Line | undefined): Omit<Line, 'step'> | undefined {
  if (!line) return undefined;
  const { step: _step, ...rest } = line;
  return rest;
}
