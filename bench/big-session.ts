/**
 * One long session, ingested alone: wall time and peak RSS of `weave ingest` (readers and search
 * included, as a user runs it) on synthetic sessions of 1 MB and 100 MB (bench/synthetic.ts),
 * then, with `weave serve` holding the store, the time `weave conversation` and the session's
 * conversation page (its first page of talks) take to answer, and `weave verify` and a large
 * `weave query` table (record-derived.rq, every record's derived values, drawn at 80 columns) take
 * to finish (below the embedded ceiling only),
 * and of 1 GB with BENCH_BIG_GB=1 (about 5 min and 2.2 GiB peak RSS on two cores:
 * docs/benchmarks.md). Each ingest is a child of its own, its peak RSS measured by /usr/bin/time -v
 * (where there is none, not measured), and its highest RSS and heap in each phase by
 * bench/phases.cjs. The session is written to disk a line at a time first, outside the
 * measure.
 *
 *   npm run bench -- --big-session          this part alone
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SYNTHETIC_SESSION, writeSyntheticSession } from './synthetic.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const TIME = '/usr/bin/time';

export interface BigSessionRow {
  label: string;
  bytes: number;
  lines: number;
  wallSeconds: number;
  peakRssMiB: number;
  exit: number;
  /** The ingest's summary line (or its last error line). */
  said: string;
  /** The highest RSS and heap in use in each phase (bench/phases.cjs), in the loop's order. */
  phases: Phase[];
  /**
   * Seconds to answer, the store held by `weave serve`: the command's printout and the page (HTML
   * bytes), `weave verify` and the record-derived table; none past the embedded ceiling.
   */
  conversation?: { command: number; page: number; pageBytes: number; verify: number; table: number };
}

/** Past this many bytes of transcripts, a store is past the embedded ceiling (the 1 GB session): not served. */
const SERVED_UP_TO = 2e8;

export interface Phase {
  name: string;
  seconds: number;
  rssMiB: number;
  heapMiB: number;
}

/**
 * The phases of a large session's ingest, as the derivation loop runs them (a full collection
 * between each): the read with the conversation model, one pass per input of the session
 * derivations (in the registry's order), then the store derivations.
 */
const PHASES = ['read and conversation model', 'search documents', 'usage rows', 'readers', 'links and the search index'];

export function bigSessionSizes(): { label: string; bytes: number }[] {
  const sizes = [
    { label: '1 MB', bytes: 1e6 },
    { label: '100 MB', bytes: 1e8 },
  ];
  if (process.env.BENCH_BIG_GB === '1') sizes.push({ label: '1 GB', bytes: 1e9 });
  return sizes;
}

/** Runs `weave ingest` on `source` into `store`; its wall time, peak RSS, each phase's highest memory and what it said. */
function ingestChild(source: string, store: string, phasesFile: string): Promise<Omit<BigSessionRow, 'label' | 'bytes' | 'lines'>> {
  // bin/weave, as a user runs it: it sizes node's heap for long sessions.
  const weave = [join(repo, 'bin', 'weave'), 'ingest', source, '--store', store];
  const timed = existsSync(TIME);
  const env = {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(join(repo, 'bench', 'phases.cjs'))}`.trim(),
    WEAVE_BENCH_PHASES: phasesFile,
  };
  const child = timed ? spawn(TIME, ['-v', ...weave], { cwd: repo, env }) : spawn(weave[0], weave.slice(1), { cwd: repo, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const wall = (performance.now() - started) / 1000;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const said =
        out.split('\n').find((l) => l.startsWith('ingested:')) ??
        err
          .split('\n')
          .filter((l) => l.startsWith('weave') || l.includes(': failed:'))
          .pop() ??
        '';
      readPhases(phasesFile).then(
        (phases) =>
          resolve({ wallSeconds: wall, peakRssMiB: rss ? Number(rss[1]) / 1024 : Number.NaN, exit: code ?? -1, said: said.trim(), phases }),
        reject,
      );
    });
  });
}

/** The phases bench/phases.cjs wrote, named in the loop's order when there are as many as it runs (a small session has one). */
async function readPhases(path: string): Promise<Phase[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const lines = text.split('\n').filter(Boolean);
  return lines.map((line, i) => ({
    name: lines.length === PHASES.length ? PHASES[i] : `phase ${i + 1}`,
    ...(JSON.parse(line) as Omit<Phase, 'name'>),
  }));
}

export async function bigSessionBench(): Promise<BigSessionRow[]> {
  const rows: BigSessionRow[] = [];
  for (const { label, bytes } of bigSessionSizes()) {
    const dir = await mkdtemp(join(tmpdir(), 'weave-big-'));
    try {
      const made = await writeSyntheticSession(join(dir, 'projects'), { bytes });
      const run = await ingestChild(join(dir, 'projects'), join(dir, 'store'), join(dir, 'phases.jsonl'));
      const conversation = run.exit === 0 && bytes <= SERVED_UP_TO ? await conversationTimes(join(dir, 'store')) : undefined;
      rows.push({ label, bytes: made.bytes, lines: made.lines, ...run, ...(conversation ? { conversation } : {}) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

/** `weave conversation` and the conversation page of the synthetic session, the store held by a `weave serve` started for it. */
async function conversationTimes(store: string): Promise<BigSessionRow['conversation']> {
  const server = spawn(join(repo, 'bin', 'weave'), ['serve', '--no-ingest', '--store', store, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    let out = '';
    server.stdout.on('data', (d) => (out += d));
    const base = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const url = /listening on (http:\/\/\S+)\/ /.exec(out)?.[1];
        if (url && /^weave serve: ready /m.test(out)) resolve(url);
      };
      server.stdout.on('data', look);
      server.once('exit', (code) => reject(new Error(`weave serve exited ${code}`)));
    });
    const timed = async (work: () => Promise<number>) => {
      const started = performance.now();
      const bytes = await work();
      return { seconds: (performance.now() - started) / 1000, bytes };
    };
    // The store's server answers each command, as it does a user's (the one just started).
    const weave = (args: string[]) =>
      timed(
        () =>
          new Promise<number>((resolve, reject) => {
            const child = spawn(join(repo, 'bin', 'weave'), [...args, '--store', store], {
              stdio: 'ignore',
              env: { ...process.env, COLUMNS: '80' },
            });
            child.once('error', reject);
            child.once('exit', (code) => (code === 0 ? resolve(0) : reject(new Error(`weave ${args[0]} exited ${code}`))));
          }),
      );
    const command = await weave(['conversation', SYNTHETIC_SESSION]);
    const page = await timed(async () => {
      const response = await fetch(`${base}/conversation/${SYNTHETIC_SESSION}`);
      if (!response.ok) throw new Error(`the conversation page answered ${response.status}`);
      return (await response.arrayBuffer()).byteLength;
    });
    const verify = await weave(['verify']);
    const table = await weave(['query', '-f', join(repo, 'queries', 'record-derived.rq')]);
    return { command: command.seconds, page: page.seconds, pageBytes: page.bytes, verify: verify.seconds, table: table.seconds };
  } finally {
    server.kill('SIGTERM');
  }
}

export function printBigSession(rows: BigSessionRow[]): void {
  console.log('| session | lines | ingest wall s | MB/s | peak RSS MiB | exit |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.label} (${(r.bytes / 1e6).toFixed(1)} MB) | ${r.lines.toLocaleString('en')} | ${r.wallSeconds.toFixed(1)} | ${(r.bytes / 1e6 / r.wallSeconds).toFixed(1)} | ${r.peakRssMiB.toFixed(0)} | ${r.exit} |`,
    );
  for (const r of rows) console.log(`${r.label}: ${r.said}`);
  const served = rows.filter((r) => r.conversation);
  if (served.length) {
    console.log('\nits conversation, verify and a large table, the store held by weave serve (s to answer):');
    console.log('| session | weave conversation | conversation page (first 100 talks) | weave verify | weave query -f record-derived.rq |');
    console.log('|---|---:|---:|---:|---:|');
    for (const r of served) {
      const c = r.conversation!;
      console.log(
        `| ${r.label} | ${c.command.toFixed(2)} | ${c.page.toFixed(2)} (${(c.pageBytes / 1e6).toFixed(1)} MB) | ${c.verify.toFixed(2)} | ${c.table.toFixed(2)} |`,
      );
    }
  }
  const phased = rows.filter((r) => r.phases.length > 1);
  if (!phased.length) return;
  console.log('\nhighest RSS / heap in use by phase, MiB (sampled every 250 ms; phases end at the full collection between them):');
  console.log(`| phase | ${phased.map((r) => r.label).join(' | ')} |`);
  console.log(`|---|${phased.map(() => '---:|').join('')}`);
  for (let i = 0; i < Math.max(...phased.map((r) => r.phases.length)); i++)
    console.log(
      `| ${phased[0].phases[i]?.name ?? `phase ${i + 1}`} | ${phased
        .map((r) => (r.phases[i] ? `${r.phases[i].rssMiB.toFixed(0)} / ${r.phases[i].heapMiB.toFixed(0)}` : ''))
        .join(' | ')} |`,
    );
}
