import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { IngestReport } from '../src/ingest.ts';
import type { DetectReport } from '../src/readers/detect.ts';
import { isRunning } from '../src/store/running.ts';
import { REPO, tempDir } from './helpers.ts';

/**
 * The corpus ingested (soul `local`) and read by every reader, once per test run, for the tests
 * that only read it: eight files each ingested the corpus on their own, about 15 s apiece on two
 * busy cores. Under `node --test` every file is a child of the one runner, so the runner's pid
 * names the run: the first file to ask builds the store, the others wait for it, and a detached
 * watcher removes it when the runner is gone. A file run on its own (not under the runner) gets
 * a store of its own. Whoever asks must not write to it.
 */

export interface CorpusStore {
  dir: string;
  ingested: IngestReport;
  detected: DetectReport;
}

const RUN = process.env.NODE_TEST_CONTEXT ? process.ppid : undefined;

export async function corpusStore(): Promise<CorpusStore> {
  if (RUN === undefined) return build(await tempDir('weave-corpus-'));
  const dir = join(tmpdir(), `weave-test-corpus-${RUN}`);
  const claim = `${dir}.building`;
  try {
    await mkdir(claim);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return waitFor(dir, claim);
  }
  await writeFile(join(claim, 'pid'), String(process.pid));
  removeWhenGone(RUN, [dir, claim]);
  try {
    const building = await build(join(claim, 'store'));
    await rename(join(claim, 'store'), dir);
    return { ...building, dir };
  } catch (e) {
    await writeFile(join(claim, 'failed'), String((e as Error).stack ?? e));
    throw e;
  }
}

/** Ingests the corpus into `dir` and reads it with every reader, in a process of its own (test/corpus-build.ts). */
async function build(dir: string): Promise<CorpusStore> {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', join(REPO, 'test', 'corpus-build.ts'), dir], {
    cwd: REPO,
    maxBuffer: 64 << 20,
  });
  const reports = JSON.parse(await readFile(join(dir, 'reports.json'), 'utf8')) as Omit<CorpusStore, 'dir'>;
  return { dir, ...reports };
}

/** The store another file of this run is building, once it is built; its failure, if it failed or died. */
async function waitFor(dir: string, claim: string): Promise<CorpusStore> {
  for (;;) {
    if (existsSync(join(dir, 'reports.json'))) {
      const reports = JSON.parse(await readFile(join(dir, 'reports.json'), 'utf8')) as Omit<CorpusStore, 'dir'>;
      return { dir, ...reports };
    }
    if (existsSync(join(claim, 'failed')))
      throw new Error(`the shared corpus store failed to build: ${await readFile(join(claim, 'failed'), 'utf8')}`);
    const pid = Number(await readFile(join(claim, 'pid'), 'utf8').catch(() => '0'));
    if (pid && !isRunning(pid)) throw new Error(`the test file building the shared corpus store (pid ${pid}) died before it was built`);
    await sleep(250);
  }
}

/** Removes `paths` once process `pid` has ended, from a detached process that outlives this one. */
function removeWhenGone(pid: number, paths: string[]): void {
  const script = `
    const { rmSync } = require('node:fs');
    const alive = () => { try { process.kill(${pid}, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
    const timer = setInterval(() => {
      if (alive()) return;
      clearInterval(timer);
      for (const p of ${JSON.stringify(paths)}) rmSync(p, { recursive: true, force: true });
    }, 1000);`;
  spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore' }).unref();
}

/** Removes a store `corpusStore` built for this file alone; a shared one is the watcher's to remove. */
export async function releaseCorpusStore(store: CorpusStore | undefined): Promise<void> {
  if (store && RUN === undefined) await rm(store.dir, { recursive: true, force: true });
}
