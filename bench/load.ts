/**
 * `node --import tsx bench/load.ts [PATH]`: the load run of issue 5, outside the test suite.
 * Ingests PATH (default ../shared/corpus, else fixtures/) into a temp store, starts `weave serve`
 * on it as its own process (as a user would run it), then 32 concurrent clients send a mix of
 * SPARQL queries and describe-page requests for 30 s with autocannon. It prints latency and
 * throughput, and exits non-zero on any error, timeout or non-2xx answer.
 *
 *   LOAD_CONNECTIONS=32 LOAD_SECONDS=30 LOAD_WORKERS=2 node --import tsx bench/load.ts
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest } from '../src/ingest.ts';

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  requests: { total: number; average: number; p50: number; p99: number };
  latency: { average: number; p50: number; p90: number; p99: number; max: number };
  throughput: { average: number };
  statusCodeStats: Record<string, { count: number }>;
  duration: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;
const repo = fileURLToPath(new URL('..', import.meta.url));
const corpus = join(repo, '..', 'shared', 'corpus');
const source = process.argv[2] ?? (existsSync(corpus) ? corpus : join(repo, 'fixtures'));
const connections = Number(process.env.LOAD_CONNECTIONS ?? 32);
const seconds = Number(process.env.LOAD_SECONDS ?? 30);
const workers = process.env.LOAD_WORKERS ?? '2';
const port = Number(process.env.LOAD_PORT ?? 7899);

const QUERIES = [
  // the latest turns: an ORDER BY over every turn
  'SELECT ?t ?time WHERE { ?t a weave:Turn ; weave:timestamp ?time } ORDER BY DESC(?time) LIMIT 20',
  // tool use per tool: a GROUP BY over every tool call
  'SELECT ?name (COUNT(*) AS ?n) WHERE { ?b a weave:ToolUseBlock ; weave:toolName ?name } GROUP BY ?name ORDER BY DESC(?n)',
  // models and their token totals
  'SELECT ?model (SUM(?out) AS ?tokens) WHERE { ?t weave:model ?model ; weave:hasUsage/weave:outputTokens ?out } GROUP BY ?model',
  'ASK { ?t a weave:AssistantTurn }',
  'SELECT * WHERE { ?s ?p ?o } LIMIT 100',
];

const dir = await mkdtemp(join(tmpdir(), 'weave-load-'));
let server: ReturnType<typeof spawn> | undefined;
try {
  const t0 = performance.now();
  const report = await ingest([source], { storeDir: dir, soul: 'local' });
  console.log(
    `ingested ${source}: ${report.sessions} sessions, ${report.quads.toLocaleString('en')} quads in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  server = spawn(join(repo, 'bin', 'weave'), ['serve', '--no-ingest', '--store', dir, '--port', String(port), '--workers', workers], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    const health = await fetch(`${base}/healthz`)
      .then((r) => r.json() as Promise<{ store: string }>)
      .catch(() => undefined);
    if (health?.store === 'ready') break;
    if (performance.now() - started > 120_000) throw new Error('the server did not get ready in 2 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`server ready (the store is open; up to ${workers} copies) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // A few resources to describe, found through the endpoint itself.
  const turns = (await (
    await fetch(`${base}/sparql?query=${encodeURIComponent('SELECT ?t WHERE { ?t a weave:AssistantTurn } LIMIT 5')}`)
  ).json()) as { results: { bindings: { t: { value: string } }[] } };
  const describePaths = turns.results.bindings.map((b) => `/describe?iri=${encodeURIComponent(b.t.value)}`);

  const requests = [
    ...QUERIES.map((query) => ({
      method: 'POST',
      path: '/sparql',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/sparql-results+json' },
      body: new URLSearchParams({ query }).toString(),
    })),
    ...describePaths.map((path) => ({ method: 'GET', path, headers: { accept: 'text/html' } })),
    { method: 'GET', path: '/healthz' },
  ];
  console.log(
    `load: ${connections} connections for ${seconds} s over ${requests.length} requests in turn (${QUERIES.length} queries, ${describePaths.length} describe pages, /healthz)`,
  );
  const result = await autocannon({ url: base, connections, duration: seconds, requests, timeout: 60 });

  const codes = Object.entries(result.statusCodeStats)
    .map(([code, s]) => `${code}: ${s.count}`)
    .join(', ');
  console.log(`requests: ${result.requests.total} in ${result.duration} s (${result.requests.average.toFixed(1)}/s on average)`);
  console.log(
    `latency ms: mean ${result.latency.average.toFixed(1)}, p50 ${result.latency.p50}, p90 ${result.latency.p90}, p99 ${result.latency.p99}, max ${result.latency.max}`,
  );
  console.log(`throughput: ${(result.throughput.average / 1e6).toFixed(2)} MB/s; status codes: ${codes}`);
  console.log(`errors: ${result.errors}, timeouts: ${result.timeouts}, non-2xx: ${result.non2xx}`);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  for (const line of metrics.split('\n'))
    if (/^weave_(sparql_(timeouts|rejected)_total|worker_restarts_total|sparql_operations_total)/.test(line)) console.log(`  ${line}`);
  process.exitCode = result.errors || result.timeouts || result.non2xx ? 1 : 0;
} finally {
  server?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await rm(dir, { recursive: true, force: true });
}
