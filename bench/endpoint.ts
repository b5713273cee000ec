/**
 * The endpoint against its reference (issue 23), side by side in one run: `weave serve` as a user
 * starts it (two workers, the default here) and a bare Fastify route over an in-process Oxigraph
 * holding the same quads (bench/bare-route.ts), each hammered in turn by autocannon with a point
 * query and an aggregate at 1, 8 and 32 connections, each run after a second's uncounted warm-up.
 * Then whether Weave's union is a set (counts without DISTINCT equal to counts with it, where the
 * bare route counts copies), and 32 connections held for BENCH_SUSTAIN_SECONDS (30): the seconds
 * without a successful answer, and how fast a refusal (503) comes. `node --import tsx bench/endpoint.ts STORE` runs it alone.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { hammer, startWeave, type Load } from './scale/endpoint.ts';

const SECONDS = Number(process.env.BENCH_ENDPOINT_SECONDS ?? 5);
const SUSTAIN_SECONDS = Number(process.env.BENCH_SUSTAIN_SECONDS ?? 30);
/** Each server is asked for a second, uncounted, before each measured run. */
const WARMUP_SECONDS = 1;
const CONNECTIONS = [1, 8, 32];
const BARE_PORT = 7891;
const WEAVE_PORT = 7892;

const AGGREGATE = 'SELECT ?m (COUNT(?c) AS ?n) WHERE { ?c a weave:LlmCall ; weave:lastFragment ?l . ?l weave:model ?m } GROUP BY ?m';
const point = (iri: string) => `SELECT ?p ?o WHERE { <${iri}> ?p ?o }`;
/** What the union must count once each: calls, tool calls, content blocks. */
const COUNTED: [string, string][] = [
  ['calls', '?x a weave:LlmCall'],
  ['tool calls', '?x a weave:ToolCall'],
  ['blocks', '?t weave:hasContentBlock ?x'],
];

export interface EndpointRow {
  query: string;
  connections: number;
  bare: Load;
  weave: Load;
}

export interface EndpointReport {
  rows: EndpointRow[];
  /** Per counted thing: without DISTINCT and with it, through Weave and through the bare route. */
  union: { what: string; weave: [number, number]; bare: [number, number] }[];
  sustained?: Sustained;
}

export interface Sustained {
  seconds: number;
  ok: number;
  refused: number;
  other: number;
  /** Whole seconds of the run in which no request was answered with 200. */
  secondsWithoutAnswer: number;
  /** The slowest 503, in ms. */
  slowestRefusalMs: number;
  rps: number;
}

export async function endpointBench(storeDir: string): Promise<EndpointReport> {
  const bare = await startBare(storeDir);
  let weave: Awaited<ReturnType<typeof startWeave>> | undefined;
  try {
    weave = await startWeave(storeDir, WEAVE_PORT, 2, 600_000);
    const queries: [string, string][] = [
      ['point', point(bare.turn)],
      ['aggregate', AGGREGATE],
    ];
    const rows: EndpointRow[] = [];
    for (const [name, query] of queries)
      for (const connections of CONNECTIONS) {
        const b = await hammer(bare.base, query, SECONDS, connections, WARMUP_SECONDS);
        const w = await hammer(weave.base, query, SECONDS, connections, WARMUP_SECONDS);
        rows.push({ query: name, connections, bare: b, weave: w });
      }
    const union: EndpointReport['union'] = [];
    for (const [what, pattern] of COUNTED) {
      const counts = async (base: string): Promise<[number, number]> => [
        await count(base, `SELECT (COUNT(?x) AS ?n) WHERE { ${pattern} }`),
        await count(base, `SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ${pattern} }`),
      ];
      union.push({ what, weave: await counts(weave.base), bare: await counts(bare.base) });
    }
    const sustained = SUSTAIN_SECONDS > 0 ? await sustain(weave.base, AGGREGATE, 32, SUSTAIN_SECONDS) : undefined;
    return { rows, union, sustained };
  } finally {
    await weave?.stop();
    await bare.stop();
  }
}

async function count(base: string, query: string): Promise<number> {
  const res = await fetch(`${base}/sparql?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/sparql-results+json' } });
  const body = (await res.json()) as { results: { bindings: { n: { value: string } }[] } };
  return Number(body.results.bindings[0].n.value);
}

async function startBare(storeDir: string): Promise<{ base: string; turn: string; stop(): Promise<void> }> {
  const script = fileURLToPath(new URL('./bare-route.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, storeDir, String(BARE_PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`the bare route exited ${code}`)));
  });
  const { turn } = JSON.parse(line) as { turn: string };
  return {
    base: `http://127.0.0.1:${BARE_PORT}`,
    turn,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

type Instance = { on(event: 'response', f: (client: unknown, status: number, bytes: number, ms: number) => void): void };
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<unknown> & Instance;

/** Holds `connections` on the endpoint for `seconds`, noting each answer's second and status. */
async function sustain(base: string, query: string, connections: number, seconds: number): Promise<Sustained> {
  const answered = new Array<number>(seconds + 1).fill(0);
  let ok = 0;
  let refused = 0;
  let other = 0;
  let slowestRefusalMs = 0;
  const started = Date.now();
  const run = autocannon({
    url: `${base}/sparql?query=${encodeURIComponent(query)}`,
    headers: { accept: 'application/sparql-results+json' },
    connections,
    duration: seconds,
    timeout: 60,
  });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status === 200) {
      ok++;
      answered[Math.min(seconds, Math.floor((Date.now() - started) / 1000))]++;
    } else if (status === 503) {
      refused++;
      slowestRefusalMs = Math.max(slowestRefusalMs, ms);
    } else other++;
  });
  await run;
  return {
    seconds,
    ok,
    refused,
    other,
    secondsWithoutAnswer: answered.slice(0, seconds).filter((n) => n === 0).length,
    slowestRefusalMs,
    rps: ok / seconds,
  };
}

export function printEndpoint(report: EndpointReport): void {
  const f = (n: number) => n.toFixed(0).padStart(7);
  console.log('  query      conns  bare req/s  weave req/s  weave/bare  bare p99 ms  weave p99 ms  weave failed');
  for (const r of report.rows)
    console.log(
      `  ${r.query.padEnd(10)} ${String(r.connections).padStart(5)}     ${f(r.bare.rps)}      ${f(r.weave.rps)}  ${(r.weave.rps / r.bare.rps).toFixed(2).padStart(10)}      ${f(r.bare.p99)}       ${f(r.weave.p99)}  ${String(r.weave.failed).padStart(12)}`,
    );
  console.log('  the union as a set: COUNT without DISTINCT / with it');
  for (const u of report.union)
    console.log(
      `    ${u.what.padEnd(11)} weave ${u.weave[0]} / ${u.weave[1]} (${u.weave[0] === u.weave[1] ? 'a set' : 'NOT a set'}), bare ${u.bare[0]} / ${u.bare[1]}`,
    );
  const s = report.sustained;
  if (s)
    console.log(
      `  32 connections for ${s.seconds} s on the aggregate: ${s.ok} answered (${s.rps.toFixed(0)}/s), ${s.refused} refused (503, slowest ${s.slowestRefusalMs.toFixed(0)} ms), ${s.other} other; ${s.secondsWithoutAnswer} seconds without an answer`,
    );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) printEndpoint(await endpointBench(process.argv[2]));
