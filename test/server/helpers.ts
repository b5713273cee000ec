import '../no-daemon.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { after, before } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerConfig } from '../../src/server/config.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { ingest } from '../../src/ingest.ts';
import { removeDir, tempDir } from '../helpers.ts';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** Two hand-written sessions: 33333333 (4 turns, one Bash tool call and its result) and 44444444 (2 turns). */
export const SERVER_FIXTURES = join(REPO, 'fixtures', 'server');
export const SESSION_A = '33333333-3333-4333-8333-333333333333';
export const SESSION_B = '44444444-4444-4444-8444-444444444444';
/** A turn of the server fixtures: their ids are UUIDs, so each names one turn everywhere, as Claude Code's do. */
export const TURN = (id: string) => `urn:soul:local:Weave/Turn/${id}`;
/** The turns of the server fixtures with their roles, in IRI order. */
export const EXPECTED_TURNS: [string, string][] = [
  ['5e55e55e-0000-4000-8000-000000000001', 'user'],
  ['5e55e55e-0000-4000-8000-000000000002', 'assistant'],
  ['5e55e55e-0000-4000-8000-000000000003', 'user'],
  ['5e55e55e-0000-4000-8000-000000000004', 'assistant'],
  ['7e55e55e-0000-4000-8000-000000000001', 'user'],
  ['7e55e55e-0000-4000-8000-000000000002', 'assistant'],
].map(([id, role]) => [TURN(id), role]);

/**
 * In a describe: a store of the server fixtures (soul local), ingested before its tests and
 * removed after them, for tests that drive the query pool on it; the function gives its directory.
 */
export function serverFixturesStore(prefix: string): () => string {
  let dir = '';
  before(async () => {
    dir = await tempDir(prefix);
    await ingest([SERVER_FIXTURES], { storeDir: dir, soul: 'local' });
  });
  after(() => removeDir(dir));
  return () => dir;
}

export interface TestServer extends RunningServer {
  base: string;
  storeDir: string;
  /** What the server logged. */
  lines: string[];
  stop(): Promise<void>;
}

/**
 * A real server on an ephemeral port over a fresh temp store, with the server fixtures ingested
 * (through the server's own ingest thread) before it is handed over.
 */
export async function startTestServer(
  overrides: Partial<ServerConfig> = {},
  ingestPaths: string[] | null = [SERVER_FIXTURES],
): Promise<TestServer> {
  const storeDir = overrides.storeDir ?? (await mkdtemp(join(tmpdir(), 'weave-serve-test-')));
  const lines: string[] = [];
  const server = await startServer({
    storeDir,
    soul: 'local',
    host: '127.0.0.1',
    port: 0,
    timeoutMs: 20_000,
    workers: 2,
    queueLimit: 64,
    maxResultBytes: 50e6,
    bodyLimitBytes: 1e6,
    allowUpdate: false,
    corsOrigins: [],
    queriesDir: join(REPO, 'queries'),
    ingest: ingestPaths ? { paths: ingestPaths, refreshMs: 0 } : undefined,
    verbose: false,
    log: (line) => lines.push(line),
    ...overrides,
  });
  await server.ctx.pool.whenReady();
  await server.ctx.ingester?.firstRun;
  const base = server.url.replace(/\/$/, '');
  return {
    ...server,
    base,
    storeDir,
    lines,
    async stop() {
      await server.close();
      if (!overrides.storeDir) await rm(storeDir, { recursive: true, force: true });
    },
  };
}

/** A SELECT over the live endpoint, as rows of plain values. */
export async function select(base: string, query: string, init: RequestInit = {}): Promise<Record<string, string>[]> {
  const res = await fetch(`${base}/sparql`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json', ...(init.headers ?? {}) },
    body: query,
  });
  if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`);
  const json = (await res.json()) as { results: { bindings: Record<string, { value: string }>[] } };
  return json.results.bindings.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v.value])));
}

/** Resolves when `check` is true, polling; rejects after `ms`. */
export async function eventually(check: () => Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
