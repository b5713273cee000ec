/**
 * Runs the ready queries' forms on a store of its own, in a worker, so that a form running past
 * the cap can be stopped (bench/queries.ts). For each job: the form of now, then the earlier one,
 * REPS times; a message before each run and one after it, with its time and its answer's digest.
 */
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { runQuery } from '../src/query/run.ts';
import { openStore } from '../src/store/store.ts';

export interface QueryJob {
  name: string;
  now: string;
  before: string;
}

export type Side = 'now' | 'before';

export type WorkerMessage =
  | { kind: 'open'; ms: number }
  | { kind: 'start'; name: string; side: Side }
  | { kind: 'ran'; name: string; side: Side; ms: number; rows: number; digest: string };

/** The answer as sorted TSV rows: its size and a digest that tells two answers apart. */
function answer(tsv: string): { rows: number; digest: string } {
  const [, ...rows] = tsv.split('\n').filter((line) => line.length);
  return { rows: rows.length, digest: createHash('sha256').update(rows.sort().join('\n')).digest('hex') };
}

if (parentPort && workerData?.dir) {
  const { dir, jobs, reps } = workerData as { dir: string; jobs: QueryJob[]; reps: number };
  const port = parentPort;
  const post = (message: WorkerMessage) => port.postMessage(message);
  const t0 = performance.now();
  const { store } = await openStore(dir);
  post({ kind: 'open', ms: performance.now() - t0 });
  for (const job of jobs)
    for (let i = 0; i < reps; i++)
      for (const side of ['now', 'before'] as const) {
        post({ kind: 'start', name: job.name, side });
        const t = performance.now();
        const tsv = runQuery(store, job[side], { results_format: 'text/tab-separated-values' }) as string;
        post({ kind: 'ran', name: job.name, side, ms: performance.now() - t, ...answer(tsv) });
      }
}
