import '../no-daemon.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEAVE_NS } from '../../src/rdf/vocab.ts';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { runQuery } from '../../src/query/run.ts';
import type { JsonResults } from '../../src/query/table.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';

export const SOUL = 'test';
export const FIXTURES = fileURLToPath(new URL('../../fixtures/model/', import.meta.url));

/** A term as a test reads it, in a store of `soul`: `Run/<session>/main/<key>`, `weave:exact_unique`, or the literal's text. */
export function shortIn(soul: string): (value: string) => string {
  const instances = `urn:soul:${soul}:Weave/`;
  return (value) => {
    if (value.startsWith(instances)) return decodeURIComponent(value.slice(instances.length));
    if (value.startsWith(WEAVE_NS)) return `weave:${value.slice(WEAVE_NS.length)}`;
    return value;
  };
}

export const short = shortIn(SOUL);

export interface Ingested {
  store: OxStore;
  dir: string;
  /** Solutions as rows of short strings. */
  select(query: string): Record<string, string>[];
  /** A term as `select` gives it. */
  short(value: string): string;
  close(): Promise<void>;
}

/** Ingests a tree of transcripts the way `weave ingest` does, into a fresh store; with `readers`, runs them too. */
export async function ingested(paths: string[], options: { readers?: boolean } = {}): Promise<Ingested> {
  const dir = await mkdtemp(join(tmpdir(), 'weave-model-'));
  await ingest(paths, { storeDir: dir, soul: SOUL });
  if (options.readers) await detect({ storeDir: dir });
  return opened(dir, { soul: SOUL, close: () => rm(dir, { recursive: true, force: true }) });
}

/** A store already written, of `soul`, opened for the model's tests; `close` lets it go. */
export async function opened(dir: string, options: { soul: string; close: () => Promise<void> }): Promise<Ingested> {
  const { store } = await openStore(dir);
  const short = shortIn(options.soul);
  return {
    store,
    dir,
    select(query: string) {
      const text = runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string;
      const json = JSON.parse(text) as JsonResults;
      return (json.results?.bindings ?? []).map((b) =>
        Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.type === 'triple' ? '<<triple>>' : short(v.value)])),
      );
    },
    short,
    close: options.close,
  };
}

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** Sorted `a | b | c` lines: an order-free way to compare sets of rows. */
export function lines(rows: Record<string, string>[], ...vars: string[]): string[] {
  return rows.map((r) => vars.map((v) => r[v] ?? '-').join(' | ')).sort();
}
