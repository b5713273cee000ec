import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readManifest } from '../src/store/manifest.ts';
import { lockStore, openStoreForWriting } from '../src/store/writer.ts';
import { ccusage, weaveUsage, type UsageRun } from './scale/usage.ts';

/**
 * Prepared answers (issue 23): `weave usage daily --json` on the store, from its prepared rows,
 * beside `ccusage daily --json` on the folder the store was read from, and beside the same store
 * without prepared rows (a store ingested before them: SPARQL over its session graphs). Run in
 * turns, so load changes touch each alike; the medians are compared.
 */

export interface AnswersRow {
  label: string;
  runs: UsageRun[];
}

export async function answersBench(storeDir: string, source: string, rounds = 3): Promise<AnswersRow[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'weave-answers-'));
  try {
    // ccusage reads <config dir>/projects/**: the source folder is that.
    await mkdir(join(scratch, 'claude'));
    await symlink(source, join(scratch, 'claude', 'projects'));
    const bare = join(scratch, 'store-without-rows');
    await cp(storeDir, bare, { recursive: true });
    await dropPreparedRows(bare);
    const rows: AnswersRow[] = [
      { label: 'ccusage daily --json', runs: [] },
      { label: 'weave usage daily --json (prepared rows)', runs: [] },
      { label: 'weave usage daily --json (no rows: SPARQL over the graphs)', runs: [] },
    ];
    for (let i = 0; i < rounds; i++) {
      rows[0].runs.push(await ccusage([join(scratch, 'claude')]));
      rows[1].runs.push(await weaveUsage(storeDir));
      // The old path takes long: once is enough to see the ratio.
      if (i === 0) rows[2].runs.push(await weaveUsage(bare));
    }
    return rows;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The store as one ingested before usage rows were prepared: their files out of the manifest and off the disk. */
async function dropPreparedRows(dir: string): Promise<void> {
  const manifest = (await readManifest(dir))!;
  const lock = await lockStore(dir);
  try {
    const writer = await openStoreForWriting(dir, manifest.soul);
    for (const name of Object.keys(manifest.files ?? {})) if (name.startsWith('usage/rows/')) await writer.removeFile(name);
    await writer.close();
  } finally {
    await lock.release();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function printAnswers(rows: AnswersRow[]): void {
  const reference = rows[0].runs.filter((r) => r.status === 'ok');
  const refWall = median(reference.map((r) => r.wallMs!));
  const refCpu = median(reference.map((r) => r.cpuMs!));
  for (const row of rows) {
    const ok = row.runs.filter((r) => r.status === 'ok');
    if (!ok.length) {
      console.log(`  ${row.label.padEnd(60)} ${row.runs.map((r) => r.status).join(', ')}`);
      continue;
    }
    const wall = median(ok.map((r) => r.wallMs!));
    const cpu = median(ok.map((r) => r.cpuMs!));
    const totals = ok[0].totals ? `, output ${ok[0].totals.outputTokens} tokens, $${ok[0].totals.totalCost}` : '';
    console.log(
      `  ${row.label.padEnd(60)} ${(wall / 1000).toFixed(2).padStart(6)} s wall ×${(wall / refWall).toFixed(2)}, ${(cpu / 1000).toFixed(2)} s cpu ×${(cpu / refCpu).toFixed(2)} (${ok.length} runs${totals})`,
    );
  }
  console.log('  (× is the ratio to ccusage in the same run; the goal for prepared rows is ≤ 0.2× wall)');
}
