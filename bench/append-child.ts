import { ingest } from '../src/ingest.ts';

/**
 * One ingest for bench/append.ts, in a process of its own (so one way's garbage never slows the
 * other): `node --import tsx bench/append-child.ts ROOT STORE [whole]`. Prints the run's report
 * (its time, sessions carried on) as JSON.
 */
const [root, store, whole] = process.argv.slice(2);
const started = performance.now();
const report = await ingest([root], { storeDir: store, soul: 'local', force: whole === 'whole' });
process.stdout.write(
  `${JSON.stringify({ ms: performance.now() - started, carriedOn: report.carriedOn, sessions: report.sessions, quads: report.quads })}\n`,
);
