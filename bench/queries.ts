/**
 * The ready queries as they are and as they were (issue 23): each query of `queries/` beside its
 * earlier form in `bench/before/` (or beside itself where it has none: the noise between two runs
 * of one text), both through runQuery, alternated REPS times on a copy of the store opened in a
 * worker, medians compared. A form still running after BENCH_QUERY_CAP_SECONDS (default 60) is
 * stopped and shown as "> cap"; the queries after it go on in a fresh worker. Also says whether
 * the two forms answered the same rows (sorted TSV, compared by digest).
 * `node --import tsx bench/queries.ts STORE_DIR` runs it alone.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fitTable } from '../src/query/fit.ts';
import type { QueryJob, Side, WorkerMessage } from './queries-worker.ts';
import { percentile } from './scale/stats.ts';

const REPS = Number(process.env.BENCH_QUERY_REPS ?? 3);
const CAP_MS = Number(process.env.BENCH_QUERY_CAP_SECONDS ?? 60) * 1000;

interface Runs {
  rewritten: boolean;
  ms: Record<Side, number[]>;
  rows: Partial<Record<Side, number>>;
  digest: Partial<Record<Side, string>>;
}

/** One row a ready query: its name, whether it was rewritten, each form's median, their ratio and answers. */
export async function queriesBench(dir: string): Promise<string[][]> {
  const jobs = await readJobs();
  const runs = new Map<string, Runs>(
    jobs.map((j) => [j.name, { rewritten: j.before !== j.now, ms: { now: [], before: [] }, rows: {}, digest: {} }]),
  );
  let todo = jobs;
  while (todo.length) {
    const stopped = await inWorker(dir, todo, runs);
    todo = stopped ? todo.slice(todo.findIndex((j) => j.name === stopped) + 1) : [];
  }
  return jobs.map(({ name }) => row(name, runs.get(name)!));
}

async function readJobs(): Promise<QueryJob[]> {
  const dir = new URL('../queries/', import.meta.url);
  const jobs: QueryJob[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.rq')).sort()) {
    const now = await readFile(new URL(file, dir), 'utf8');
    const earlier = new URL(`./before/${file}`, import.meta.url);
    jobs.push({ name: file, now, before: existsSync(earlier) ? await readFile(earlier, 'utf8') : now });
  }
  return jobs;
}

/** Runs jobs in one worker until they are done (undefined) or one form passes the cap (its query's name). */
function inWorker(dir: string, jobs: QueryJob[], runs: Map<string, Runs>): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    // The server's worker boot file brings tsx into the thread.
    const worker = new Worker(new URL('../src/server/workers/boot.mjs', import.meta.url), {
      workerData: { entry: new URL('./queries-worker.ts', import.meta.url).href, dir, jobs, reps: REPS },
      execArgv: [],
    });
    let timer: NodeJS.Timeout | undefined;
    let stopped: string | undefined;
    worker.on('message', (m: WorkerMessage) => {
      clearTimeout(timer);
      if (m.kind === 'open') process.stderr.write(`  store opened in the worker in ${(m.ms / 1000).toFixed(1)} s\n`);
      else if (m.kind === 'start')
        timer = setTimeout(() => {
          stopped = m.name;
          process.stderr.write(`  ${m.name}: the ${m.side === 'now' ? 'current' : 'earlier'} form stopped after ${CAP_MS / 1000} s\n`);
          void worker.terminate();
        }, CAP_MS);
      else {
        const r = runs.get(m.name)!;
        r.ms[m.side].push(m.ms);
        r.rows[m.side] = m.rows;
        r.digest[m.side] = m.digest;
        process.stderr.write(`  ${m.name} (${m.side === 'now' ? 'now' : 'before'}): ${m.ms.toFixed(0)} ms, ${m.rows} rows\n`);
      }
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve(stopped);
    });
  });
}

function row(name: string, r: Runs): string[] {
  const cap = `> ${(CAP_MS / 1000).toFixed(0)} s`;
  const median = (side: Side) => (r.ms[side].length ? percentile(r.ms[side], 50) : undefined);
  const [before, now] = [median('before'), median('now')];
  const ms = (v: number | undefined) => (v === undefined ? cap : v.toFixed(v < 10 ? 1 : 0));
  const ratio = now === undefined ? '' : before === undefined ? `< ${(now / CAP_MS).toFixed(4)}` : (now / before).toFixed(2);
  const same = r.digest.now && r.digest.before ? (r.digest.now === r.digest.before ? 'same' : 'DIFFER') : '';
  return [
    name,
    r.rewritten ? 'rewritten' : 'as it was',
    ms(before),
    ms(now),
    ratio,
    String(r.rows.before ?? ''),
    String(r.rows.now ?? ''),
    same,
  ];
}

export function printQueriesBench(rows: string[][]): void {
  const heads = ['query', 'form', 'before ms', 'now ms', 'now / before', 'rows before', 'rows now', 'answers'];
  const columns = heads.map((head, i) => ({ head, align: i < 2 || i === 7 ? ('left' as const) : ('right' as const) }));
  for (const line of fitTable(columns, rows, Number.POSITIVE_INFINITY)) console.log(line);
}

/** The load average over the last minute, for the line that introduces the table. */
export function load(): string {
  return loadavg()[0].toFixed(1);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const before = load();
  const rows = await queriesBench(process.argv[2]);
  console.log(`the ready queries before and now, side by side (load ${before} → ${load()} on the last minute):`);
  printQueriesBench(rows);
}
