/**
 * Scale bench step: opens a store as Weave does (`openStore`), then runs the ready queries, then
 * serves the same in-process oxigraph.Store from one bare Fastify route, for the endpoint step.
 * Args: STORE QUERIES.json RUNS BUDGET_MS PORT (0: no server). QUERIES.json lists
 * { name, text } objects; one `query` line is printed per query as soon as it is done, so the
 * bench can cut a query off that runs too long and start again without it.
 */
import { wasmBytes } from './wasm.ts';
import { readFile } from 'node:fs/promises';
import Fastify from 'fastify';
import { runQuery } from '../../src/query/run.ts';
import { openStore } from '../../src/store/store.ts';
import { measure, peakRssMiB, report } from './child.ts';
import { percentile } from './stats.ts';

const [storeDir, queriesFile, runsArg, budgetArg, portArg] = process.argv.slice(2);
const queries = JSON.parse(await readFile(queriesFile, 'utf8')) as { name: string; text: string }[];

const opened = await measure(() => openStore(storeDir));
const { store } = opened.value;
report({ step: 'open', wallMs: opened.wallMs, cpuMs: opened.cpuMs, quads: store.size, wasmBytes: wasmBytes(), peakRssMiB: peakRssMiB() });

const json = { results_format: 'application/sparql-results+json' };
for (const { name, text } of queries) {
  const times: number[] = [];
  let rows = 0;
  const started = performance.now();
  // One run at least; more while the budget lasts (a query slower than the budget runs once).
  while (times.length < Number(runsArg) && (times.length < 1 || performance.now() - started < Number(budgetArg))) {
    const t0 = performance.now();
    const out = runQuery(store, text, json);
    times.push(performance.now() - t0);
    if (times.length === 1)
      rows = typeof out === 'string' ? ((JSON.parse(out) as { results?: { bindings: unknown[] } }).results?.bindings.length ?? 1) : 0;
  }
  // The WebAssembly memory after it (it grows and never shrinks): which query made it grow.
  report({
    step: 'query',
    name,
    runs: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    rows,
    wasmBytes: wasmBytes(),
    peakRssMiB: peakRssMiB(),
  });
}

const port = Number(portArg);
if (port) {
  // The bare endpoint: one route, the store in this process, no workers, no limits.
  const app = Fastify();
  app.get('/sparql', async (request, reply) => {
    const query = (request.query as { query?: string }).query ?? '';
    reply.type('application/sparql-results+json');
    return runQuery(store, query, json) as string;
  });
  await app.listen({ port, host: '127.0.0.1' });
  const turn = runQuery(store, 'SELECT ?t WHERE { ?t a weave:AssistantTurn } ORDER BY ?t LIMIT 1', json) as string;
  report({
    step: 'listening',
    port,
    turn: (JSON.parse(turn) as { results: { bindings: { t: { value: string } }[] } }).results.bindings[0]?.t.value,
  });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
