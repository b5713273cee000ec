/**
 * One long session, ingested alone: wall time and peak RSS of `weave ingest` (readers and search
 * included, as a user runs it) on synthetic sessions of 1 MB and 100 MB (bench/synthetic.ts),
 * and of 1 GB with BENCH_BIG_GB=1 (9 min and 3.7 GiB peak RSS on two cores: docs/benchmarks.md). Each ingest is a
 * child of its own, measured by /usr/bin/time -v where there is one, else by the child's own
 * process.resourceUsage(). The session is written to disk a line at a time first, outside the
 * measure.
 *
 *   npm run bench -- --big-session          this part alone
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticSession } from './synthetic.ts';

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
}

export function bigSessionSizes(): { label: string; bytes: number }[] {
  const sizes = [
    { label: '1 MB', bytes: 1e6 },
    { label: '100 MB', bytes: 1e8 },
  ];
  if (process.env.BENCH_BIG_GB === '1') sizes.push({ label: '1 GB', bytes: 1e9 });
  return sizes;
}

/** Runs `weave ingest` on `source` into `store`; its wall time, peak RSS and what it said. */
function ingestChild(source: string, store: string): Promise<Omit<BigSessionRow, 'label' | 'bytes' | 'lines'>> {
  // bin/weave, as a user runs it: it sizes node's heap for long sessions.
  const weave = [join(repo, 'bin', 'weave'), 'ingest', source, '--store', store];
  const timed = existsSync(TIME);
  const child = timed ? spawn(TIME, ['-v', ...weave], { cwd: repo }) : spawn(weave[0], weave.slice(1), { cwd: repo });
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
      resolve({ wallSeconds: wall, peakRssMiB: rss ? Number(rss[1]) / 1024 : Number.NaN, exit: code ?? -1, said: said.trim() });
    });
  });
}

export async function bigSessionBench(): Promise<BigSessionRow[]> {
  const rows: BigSessionRow[] = [];
  for (const { label, bytes } of bigSessionSizes()) {
    const dir = await mkdtemp(join(tmpdir(), 'weave-big-'));
    try {
      const made = await writeSyntheticSession(join(dir, 'projects'), { bytes });
      const run = await ingestChild(join(dir, 'projects'), join(dir, 'store'));
      rows.push({ label, bytes: made.bytes, lines: made.lines, ...run });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

export function printBigSession(rows: BigSessionRow[]): void {
  console.log('| session | lines | ingest wall s | MB/s | peak RSS MiB | exit |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.label} (${(r.bytes / 1e6).toFixed(1)} MB) | ${r.lines.toLocaleString('en')} | ${r.wallSeconds.toFixed(1)} | ${(r.bytes / 1e6 / r.wallSeconds).toFixed(1)} | ${r.peakRssMiB.toFixed(0)} | ${r.exit} |`,
    );
  for (const r of rows) console.log(`${r.label}: ${r.said}`);
}
