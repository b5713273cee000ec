/**
 * Commands over an external store (issue 26): `weave query`, `usage`, `search`, `conversation`
 * and `status` run as a user runs them (bin/weave, `--store` the store's directory, its resident
 * server up after a first run), each beside Virtuoso's own answer time for the SPARQL the command
 * has it answer, asked by a bare fetch; and beside `--no-daemon` (the full CLI, the path before).
 * Each figure is the median of ROUNDS runs taken in turns. A real Virtuoso (test/store/virtuoso.ts)
 * is started for it, fed by `weave ingest` of SOURCE, and stopped.
 * `node --import tsx bench/external-answers.ts [SOURCE]` runs it alone; `npm run bench --
 * --external-answers [SOURCE]` too.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest } from '../src/ingest.ts';
import { sessionTitleQuery } from '../src/model/title.ts';
import { conversationQueries } from '../src/model/view.ts';
import { sessionGraphIri } from '../src/rdf/iri.ts';
import { readManifest } from '../src/store/manifest.ts';
import { CONCURRENT_QUERIES } from '../src/store/remote/client.ts';
import { externalQueryText } from '../src/store/remote/query-text.ts';
import { remoteStoreDir } from '../src/store/remote/config.ts';
import { isRunning, readRunFile } from '../src/store/running.ts';
import { loadPrices } from '../src/usage/prices.ts';
import { reportQuery } from '../src/usage/report.ts';
import { startVirtuoso } from '../test/store/virtuoso.ts';

const ROUNDS = Number(process.env.BENCH_COMMAND_ROUNDS ?? 5);
const WEAVE = fileURLToPath(new URL('../bin/weave', import.meta.url));
/** The aggregate: calls and output tokens per model. */
const AGGREGATE =
  'SELECT ?model (COUNT(?c) AS ?calls) (SUM(?o) AS ?output) WHERE { ?c a weave:LlmCall ; weave:lastFragment ?f . ?f weave:model ?model ; weave:hasUsage/weave:outputTokens ?o } GROUP BY ?model';
/** What `weave search` asks the store besides its index: the session graphs there. */
const SESSION_GRAPHS = 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s a weave:Session } }';

export interface ExternalRow {
  what: string;
  /** Median wall ms: the command (resident server up), with --no-daemon (one run), and Virtuoso's own answer by a bare fetch. */
  command: number;
  alone: number;
  engine?: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(WEAVE, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) =>
      code === 0 || (args[0] === 'search' && code === 1)
        ? resolve(performance.now() - t0)
        : reject(new Error(`weave ${args.join(' ')}: exit ${code}: ${stderr.slice(0, 300)}`)),
    );
  });
}

function nodeAlone(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
      .once('error', reject)
      .once('exit', () => resolve(performance.now() - t0));
  });
}

/** The SPARQL texts asked at once (as a server asks a command's queries, CONCURRENT_QUERIES at a time), by bare fetches, as the store is sent them. */
async function bare(endpoint: string, queries: string[]): Promise<number> {
  const t0 = performance.now();
  const left = [...queries];
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENT_QUERIES, left.length) }, async () => {
      for (let query = left.shift(); query !== undefined; query = left.shift()) await ask(endpoint, query);
    }),
  );
  return performance.now() - t0;
}

async function ask(endpoint: string, query: string): Promise<void> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/sparql-results+json' },
    body: new URLSearchParams({ query: externalQueryText(query, { tripleTerms: false }) }),
  });
  if (!res.ok) throw new Error(`Virtuoso answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  await res.arrayBuffer();
}

export async function externalAnswersBench(source: string): Promise<ExternalRow[]> {
  const virtuoso = await startVirtuoso();
  const base = await mkdtemp(join(tmpdir(), 'weave-bench-external-'));
  const dir = remoteStoreDir(virtuoso.endpoint, base);
  try {
    const t0 = performance.now();
    await ingest([source], { storeDir: dir, soul: 'local' });
    console.log(
      `  (${source} ingested into Virtuoso through the Graph Store Protocol in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    const manifest = (await readManifest(dir))!;
    // The session with the most quads: the conversation a user would wait longest for.
    const [graph, entry] = Object.entries(manifest.graphs)
      .filter(([, e]) => e.sessionId !== undefined && !e.reader)
      .sort(([, a], [, b]) => (b.quads ?? b.bytes) - (a.quads ?? a.bytes))[0];
    const session = entry.sessionId!;
    const prices = await loadPrices();
    const conversation = conversationQueries(sessionGraphIri(manifest.soul, session));
    const cases: { what: string; args: string[]; queries?: string[] }[] = [
      { what: 'query (calls and output per model)', args: ['query', AGGREGATE], queries: [AGGREGATE] },
      { what: 'usage (daily)', args: ['usage'], queries: [reportQuery('daily', prices)] },
      { what: 'search', args: ['search', 'error'], queries: [SESSION_GRAPHS] },
      {
        what: `conversation (${session.slice(0, 8)}, the largest session)`,
        args: ['conversation', session],
        queries: [...Object.values(conversation), sessionTitleQuery(graph)],
      },
      { what: 'status (reads no graph)', args: ['status'] },
    ];
    const served = { ...process.env, WEAVE_NO_DAEMON: '', COLUMNS: '120' };
    const alone = { ...served, WEAVE_NO_DAEMON: '1' };
    // A first run of each starts the resident server and fills the engine's caches: not counted.
    for (const c of cases) {
      await timed([...c.args, '--store', dir], served);
      if (c.queries) await bare(virtuoso.endpoint, c.queries);
    }
    const times = cases.map(() => ({ command: [] as number[], alone: [] as number[], engine: [] as number[] }));
    const floor: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      floor.push(await nodeAlone());
      for (const [i, c] of cases.entries()) {
        times[i].command.push(await timed([...c.args, '--store', dir], served));
        // Once: over the corpus it takes seconds each (the full CLI, and usage loading the graphs here).
        if (round === 0) times[i].alone.push(await timed([...c.args, '--store', dir], alone));
        if (c.queries) times[i].engine.push(await bare(virtuoso.endpoint, c.queries));
      }
    }
    console.log(`  (node -e 0, the floor any command pays here: ${(median(floor) / 1000).toFixed(3)} s)`);
    return cases.map((c, i) => ({
      what: c.what,
      command: median(times[i].command),
      alone: median(times[i].alone),
      engine: c.queries ? median(times[i].engine) : undefined,
    }));
  } finally {
    const run = await readRunFile(dir).catch(() => undefined);
    if (run && isRunning(run.pid)) process.kill(run.pid, 'SIGTERM');
    await virtuoso.stop();
    await rm(base, { recursive: true, force: true });
  }
}

export function printExternalAnswers(rows: ExternalRow[]): void {
  const s = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
  console.log(
    `  ${'command'.padEnd(46)} ${'weave'.padStart(9)} ${'Virtuoso'.padStart(9)} ${'overhead'.padStart(9)} ${'--no-daemon'.padStart(12)}`,
  );
  for (const r of rows)
    console.log(
      `  ${r.what.padEnd(46)} ${s(r.command).padStart(9)} ${(r.engine === undefined ? '-' : s(r.engine)).padStart(9)} ${(r.engine === undefined ? '-' : s(r.command - r.engine)).padStart(9)} ${s(r.alone).padStart(12)}`,
    );
  console.log(
    `  (median of ${ROUNDS}, --no-daemon one run; Virtuoso: the same SPARQL by a bare fetch, a command's queries at once as its server asks them)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const corpus = join(repo, '..', 'shared', 'corpus');
  const source = process.argv[2] ?? (existsSync(corpus) ? corpus : join(repo, 'fixtures'));
  console.log(`commands over an external store (Virtuoso), side by side (source: ${source}):`);
  printExternalAnswers(await externalAnswersBench(source));
}
