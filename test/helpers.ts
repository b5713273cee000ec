import './no-daemon.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { ingest, type IngestOptions, type IngestReport } from '../src/ingest.ts';
import { runQuery } from '../src/query/run.ts';
import type { JsonResults } from '../src/query/table.ts';
import { openStore, type OxStore } from '../src/store/store.ts';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
export const FIXTURES = join(REPO, 'fixtures');
/** The shared corpus of real transcripts, beside the checkout; tests over it skip without it. */
export const CORPUS = join(REPO, '..', 'shared', 'corpus');
export const HAS_CORPUS = existsSync(CORPUS);

export async function tempDir(prefix = 'weave-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Ingests `paths` into a fresh store and opens it. */
export async function ingestFresh(
  paths: string[],
  options: Partial<IngestOptions> = {},
): Promise<{ dir: string; store: OxStore; report: IngestReport }> {
  const dir = await tempDir();
  const report = await ingest(paths, { storeDir: dir, soul: 'local', ...options });
  const { store } = await openStore(dir);
  return { dir, store, report };
}

/** SELECT rows as plain objects of term values. */
export function select(store: OxStore, query: string): Record<string, string>[] {
  const json = JSON.parse(runQuery(store, query, { results_format: 'json' }) as string) as JsonResults;
  return (json.results?.bindings ?? []).map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v.value === 'string' ? v.value : JSON.stringify(v.value)])),
  );
}

/** The single number a `SELECT (COUNT(...) AS ?n)` query returns. */
export function count(store: OxStore, where: string): number {
  return Number(select(store, `SELECT (COUNT(*) AS ?n) WHERE { ${where} }`)[0].n);
}
