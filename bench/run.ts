/**
 * `npm run bench`: speed and memory, reported as ratios measured side by side in one run (these
 * machines are noisy, so absolute times only mean something next to each other).
 *
 *   1. Oxigraph bulk-load strategies on the same N-Quads (BENCH_QUADS of them, default 500k),
 *      each in a worker cut off after BENCH_CAP_SECONDS (default 60): one string, 10k- and
 *      100k-quad chunks, an iterable of chunks, `new Store(quads)`, per-quad `add`.
 *   2. Ingest of a corpus (../shared/corpus, else fixtures/): MB/s, quads, peak RSS; then
 *      opening the store for queries.
 *   3. The resident store (bench/resident.ts): commands with and without `weave serve` up, serve's
 *      memory against one copy of the store, opening against Oxigraph's own load, a runaway query.
 *      BENCH_BEFORE=DIR (a checkout of an earlier Weave, `npm ci` done) adds its `weave serve`.
 *      Then a runaway against another client's answers (bench/outage.ts): from a lone runaway's
 *      504 to the next answer, and the longest gap while runaways come back to back.
 *      BENCH_RESIDENT=0 skips this part.
 *   4. The union read as a set (bench/merge.ts): the example queries and a few questions, over
 *      Oxigraph's union (a bag) and through the rewrite, with what each answers.
 *   5. The ready queries before and now (bench/queries.ts): each query of queries/ beside its
 *      earlier form (bench/before/), with whether both answer the same rows; a form past
 *      BENCH_QUERY_CAP_SECONDS (default 60) is stopped.
 *   6. The derivation loop (bench/derive.ts): a full read against a forced re-read, one reader's
 *      version bumped (only that reader runs), a run where nothing changed and a prompt appended
 *      to one session. BENCH_DERIVE=0 skips it.
 *   7. Prepared answers (bench/answers.ts): `weave usage daily --json` from prepared rows beside
 *      ccusage on the same folder, and beside the same store without the rows.
 *   8. The endpoint (bench/endpoint.ts): `weave serve` against a bare Fastify + Oxigraph route at
 *      1, 8 and 32 connections, whether its union is a set, and 32 connections held for 30 s.
 *   9. Every README command and page (bench/commands.ts) with the server up, alone (--no-daemon)
 *      and beside its reference (node -e 0, ccusage, curl, Chromium's about:blank).
 *  10. `weave mcp` (bench/mcp.ts): each tool asked a question through the SDK's client, with a
 *      `weave serve` up: the transcript, and each call's time in two rounds.
 *  11. One long session (bench/big-session.ts): `weave ingest` of synthetic sessions of 1 MB and
 *      100 MB (and 1 GB with BENCH_BIG_GB=1), wall time and peak RSS; then, up to 100 MB, the
 *      time `weave conversation` and the conversation page take, served. BENCH_BIG=0 skips it;
 *      `npm run bench -- --big-session` runs it alone. (It runs before parts 7 to 10.)
 *  12. Commands over an external store (bench/external-answers.ts): query, usage, search,
 *      conversation and status over a Virtuoso fed by the corpus, each beside Virtuoso's own
 *      answer time for the same SPARQL (a bare fetch) and beside --no-daemon. BENCH_EXTERNAL=0
 *      skips it (as does a machine without Virtuoso); `npm run bench -- --external-answers
 *      [SOURCE]` runs it alone.
 *  13. An external store (bench/external.ts): `weave ingest --store` into a fresh Virtuoso by its
 *      bulk loader and by Graph Store PUTs, and into an embedded store, beside Virtuoso's own bulk
 *      loader of the same quads. BENCH_EXTERNAL=0 skips it; `npm run bench -- --external [SOURCE]`
 *      runs it alone. (It runs before parts 7 to 10.)
 *  14. Two machines, one external store (bench/souls.ts): the source's folders split in two, each
 *      half ingested by its own `weave ingest` of its own soul into one Virtuoso at the same time,
 *      then `weave verify` from each. BENCH_SOULS=0 skips it; `npm run bench -- --souls [SOURCE]`
 *      runs it alone.
 *
 * `npm run bench -- --answers [SOURCE]` runs parts 7 to 10 alone (on BENCH_STORE=DIR when given,
 * else on a store ingested from SOURCE, the corpus or the fixtures).
 * `npm run bench -- --scale K` runs the scale bench instead (bench/scale/main.ts).
 */
import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { STRATEGIES } from './load-worker.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest } from '../src/ingest.ts';
import { readGraphBytes, readManifest } from '../src/store/manifest.ts';
import { openStore } from '../src/store/store.ts';
import { answersBench, printAnswers } from './answers.ts';
import { commandsBench, printCommands } from './commands.ts';
import { endpointBench, printEndpoint } from './endpoint.ts';
import { externalAnswersBench, printExternalAnswers } from './external-answers.ts';
import { virtuosoMissing } from '../test/store/virtuoso.ts';
import { bigSessionBench, printBigSession } from './big-session.ts';
import { deriveBench, printDeriveRows } from './derive.ts';
import { mergeBench, printMergeBench } from './merge.ts';
import { load, printQueriesBench, queriesBench } from './queries.ts';
import { outageBench } from './outage.ts';
import { printRows, residentBench } from './resident.ts';

if (process.argv.includes('--big-session')) {
  const { bigSessionBench, printBigSession } = await import('./big-session.ts');
  console.log('\none long session ingested alone (bench/big-session.ts; 1 GB with BENCH_BIG_GB=1):');
  printBigSession(await bigSessionBench());
  process.exit(0);
}

if (process.argv.includes('--external-answers')) {
  const { externalAnswersBench, printExternalAnswers } = await import('./external-answers.ts');
  const given = process.argv.slice(2).find((a) => !a.startsWith('--'));
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const corpus = join(repo, '..', 'shared', 'corpus');
  const from = given ?? (existsSync(corpus) ? corpus : join(repo, 'fixtures'));
  console.log(`\ncommands over an external store (Virtuoso), side by side (source: ${from}):`);
  printExternalAnswers(await externalAnswersBench(from));
  process.exit(0);
}

if (process.argv.includes('--external')) {
  const { externalBench, printExternal } = await import('./external.ts');
  const at = process.argv.indexOf('--external');
  const given = process.argv[at + 1] && !process.argv[at + 1].startsWith('--') ? process.argv[at + 1] : undefined;
  const corpus = fileURLToPath(new URL('../../shared/corpus', import.meta.url));
  const from = given ?? (existsSync(corpus) ? corpus : fileURLToPath(new URL('../fixtures', import.meta.url)));
  console.log(`\nweave ingest into Virtuoso beside Virtuoso's own bulk loader of the same quads (source: ${from}; ratio to the loader):`);
  printExternal(await externalBench(from));
  process.exit(0);
}

if (process.argv.includes('--scale')) {
  await (await import('./scale/main.ts')).scaleBench(process.argv.slice(2));
  process.exit(0);
}

const answersOnly = process.argv.includes('--answers');
const repo = fileURLToPath(new URL('..', import.meta.url));
const corpus = join(repo, '..', 'shared', 'corpus');
const source =
  process.argv.slice(2).find((a) => a !== '--answers' && a !== '--souls') ?? (existsSync(corpus) ? corpus : join(repo, 'fixtures'));

/** Part 14: two machines, two souls, one Virtuoso, at once. */
async function souls(): Promise<void> {
  const { printSouls, soulsBench } = await import('./souls.ts');
  console.log(`
two machines, one external store: two weave ingest of two souls into one Virtuoso at once (source: ${source}, load ${load()}):`);
  printSouls(await soulsBench(source));
}

if (process.argv.includes('--souls')) {
  await souls();
  process.exit(0);
}

if (answersOnly) {
  const given = process.env.BENCH_STORE;
  const dir = given ?? (await mkdtemp(join(tmpdir(), 'weave-bench-')));
  try {
    if (!given) await ingest([source], { storeDir: dir, soul: 'local' });
    await answers(dir);
  } finally {
    if (!given) await rm(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
/** Parts 7 to 10: the answers a user waits for, each beside its reference. */
async function answers(dir: string): Promise<void> {
  console.log(`\nprepared answers, side by side (source: ${source}, load ${load()}):`);
  printAnswers(await answersBench(dir, source));
  console.log(`\nthe endpoint against a bare Fastify + Oxigraph route, side by side (load ${load()}):`);
  printEndpoint(await endpointBench(dir));
  console.log(`\nevery README command and page, side by side (load ${load()}):`);
  printCommands(await commandsBench(dir, source));
  console.log(`\nweave mcp through the SDK's client, a weave serve up (load ${load()}):`);
  await new Promise<void>((done, failed) =>
    spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./mcp.ts', import.meta.url)), dir, '--serve'], { stdio: 'inherit' })
      .once('error', failed)
      .once('exit', (code) => (code === 0 ? done() : failed(new Error(`bench/mcp.ts exited ${code}`)))),
  );
}

const LOAD_QUADS = Number(process.env.BENCH_QUADS ?? 500_000);

const CAP_MS = Number(process.env.BENCH_CAP_SECONDS ?? 60) * 1000;

/** Runs one load strategy in a worker; a strategy still loading after the cap is cut off. */
function loadInWorker(strategy: string, lines: string[]): Promise<{ ms: number; size?: number }> {
  return new Promise((resolve, reject) => {
    // The server's worker boot file brings tsx into the thread.
    const entry = new URL('./load-worker.ts', import.meta.url).href;
    const worker = new Worker(new URL('../src/server/workers/boot.mjs', import.meta.url), {
      workerData: { entry, strategy, lines },
      execArgv: [],
    });
    const timer = setTimeout(() => worker.terminate().then(() => resolve({ ms: CAP_MS })), CAP_MS);
    worker.once('message', (m: { ms: number; size: number }) => {
      clearTimeout(timer);
      worker.terminate().then(() => resolve(m));
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

const dir = await mkdtemp(join(tmpdir(), 'weave-bench-'));
try {
  // 2 first: it makes the N-Quads that 1 loads.
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const report = await ingest([source], { storeDir: dir, soul: 'local' });
  const ingestMs = performance.now() - t0;
  const t1 = performance.now();
  const { store } = await openStore(dir);
  const openMs = performance.now() - t1;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);

  // The graphs as the store names them: a graph folder also holds each session's saved read state.
  const lines: string[] = [];
  for (const entry of Object.values((await readManifest(dir))!.graphs)) {
    for (const l of (await readGraphBytes(dir, entry)).toString('utf8').split('\n')) if (l) lines.push(l);
    if (lines.length >= LOAD_QUADS) break;
  }
  const sample = lines.slice(0, LOAD_QUADS);
  const results: { name: string; ms: number; size?: number }[] = [];
  for (const name of Object.keys(STRATEGIES)) results.push({ name, ...(await loadInWorker(name, sample)) });
  const base = results[0].ms;

  console.log(`source: ${source}`);
  console.log(
    `ingest: ${report.files} files, ${(report.bytes / 1e6).toFixed(1)} MB, ${report.records} records, ${report.quads} quads in ${(ingestMs / 1000).toFixed(2)} s = ${(report.bytes / 1e6 / (ingestMs / 1000)).toFixed(1)} MB/s`,
  );
  console.log(
    `open store for queries: ${store.size} quads in ${(openMs / 1000).toFixed(2)} s = ${Math.round(store.size / (openMs / 1000)).toLocaleString('en')} quads/s`,
  );
  console.log(`peak RSS during ingest + open: ${(peak / 2 ** 20).toFixed(0)} MiB (started at ${(rss0 / 2 ** 20).toFixed(0)} MiB)`);
  console.log(`\nbulk load of ${sample.length} quads, side by side (ratio to the strategy Weave uses):`);
  for (const r of results)
    console.log(
      `  ${r.name.padEnd(28)} ${r.size === undefined ? '>' : ' '}${r.ms.toFixed(0).padStart(7)} ms  ${r.size === undefined ? '>' : '×'}${(r.ms / base).toFixed(2)}  ${r.size === undefined ? '(cut off)' : `(${r.size} quads)`}`,
    );
  if (process.env.BENCH_RESIDENT !== '0') {
    console.log(`\nthe resident store, side by side${process.env.BENCH_BEFORE ? ` (before: ${process.env.BENCH_BEFORE})` : ''}:`);
    printRows(await residentBench(dir, { before: process.env.BENCH_BEFORE }));
    console.log('\na runaway query against the answers of another client (issue 25), side by side:');
    printRows(await outageBench(dir, { before: process.env.BENCH_BEFORE }));
  }
  console.log("\nthe union read as a set (src/query/merge.ts) against Oxigraph's bag, side by side:");
  printMergeBench(await mergeBench(store));
  const loadBefore = load();
  const queries = await queriesBench(dir);
  console.log(`\nthe ready queries before and now, side by side (load ${loadBefore} → ${load()} on the last minute):`);
  printQueriesBench(queries);
  if (process.env.BENCH_DERIVE !== '0') {
    console.log('\nthe derivation loop, side by side (ratio to a full re-read):');
    printDeriveRows(await deriveBench(source));
  }
  if (process.env.BENCH_BIG !== '0') {
    console.log(`\none long session ingested alone (bench/big-session.ts; 1 GB with BENCH_BIG_GB=1; load ${load()}):`);
    printBigSession(await bigSessionBench());
  }
  if (process.env.BENCH_EXTERNAL !== '0' && !virtuosoMissing()) {
    const { externalBench, printExternal } = await import('./external.ts');
    console.log(`\nweave ingest into Virtuoso beside Virtuoso's own bulk loader of the same quads (ratio to the loader; load ${load()}):`);
    printExternal(await externalBench(source));
  }
  await answers(dir);
  if (process.env.BENCH_EXTERNAL !== '0' && !virtuosoMissing()) {
    console.log(`\ncommands over an external store (Virtuoso), side by side (source: ${source}, load ${load()}):`);
    printExternalAnswers(await externalAnswersBench(source));
  }
  if (process.env.BENCH_SOULS !== '0') await souls();
} finally {
  await rm(dir, { recursive: true, force: true });
}
