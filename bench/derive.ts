import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, type IngestReport } from '../src/ingest.ts';
import type { Reader } from '../src/readers/reader.ts';
import { READERS } from '../src/readers/registry.ts';

/**
 * The derivation loop, side by side on one store (part 5 of `npm run bench`): a full read into an
 * empty store (every session read, every derivation run) against what a change costs: a re-read
 * with `--force` (graph files the same bytes, so no derivation's input changed), one reader's
 * version bumped (that reader alone runs, on every session, from the graph files), and a run where
 * nothing changed. Each row runs on its own copy of the same store.
 */

export interface DeriveRow {
  name: string;
  ms: number;
  sessionsRead: number;
  ran: string;
}

const bumped = (target: string): Reader[] => READERS.map((r) => (r.name === target ? { ...r, version: `${r.version}-bench` } : r));

export async function deriveBench(source: string, storeDir: string): Promise<DeriveRow[]> {
  const work = await mkdtemp(join(tmpdir(), 'weave-bench-derive-'));
  try {
    // The readers run on the store once, so that every derivation is current before the rows.
    await ingest([source], { storeDir, soul: 'local', readers: { list: READERS } });
    const rows: DeriveRow[] = [];
    const row = async (name: string, run: (dir: string) => Promise<IngestReport>, empty = false) => {
      const dir = join(work, String(rows.length));
      if (!empty) await cp(storeDir, dir, { recursive: true });
      const t0 = performance.now();
      const report = await run(dir);
      const ms = performance.now() - t0;
      const ran = Object.entries(report.derived.ran)
        .map(([n, r]) => `${n} ${r.runs}`)
        .join(', ');
      rows.push({ name, ms, sessionsRead: report.sessions, ran: ran || 'nothing' });
    };
    const options = (dir: string, readers: readonly Reader[]) => ({ storeDir: dir, soul: 'local', readers: { list: readers } });
    await row('full read, every derivation', (dir) => ingest([source], options(dir, READERS)), true);
    await row('re-read (--force), same bytes', (dir) => ingest([source], { ...options(dir, READERS), force: true }));
    await row('tool/error version bumped', (dir) => ingest([source], options(dir, bumped('tool/error'))));
    await row('human/authored version bumped', (dir) => ingest([source], options(dir, bumped('human/authored'))));
    await row('nothing changed', (dir) => ingest([source], options(dir, READERS)));
    return rows;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export function printDeriveRows(rows: DeriveRow[]): void {
  const full = rows[0].ms;
  for (const r of rows)
    console.log(
      `  ${r.name.padEnd(32)} ${r.ms.toFixed(0).padStart(7)} ms  ×${(r.ms / full).toFixed(3)}  ${String(r.sessionsRead).padStart(4)} sessions read · ran: ${r.ran}`,
    );
}
