import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The endpoint step's load: autocannon sends one SPARQL query over and over for a few seconds,
 * and `weave serve` is started on a store as a user would start it.
 */

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface Load {
  /** Requests answered per second, on average. */
  rps: number;
  p50: number;
  p99: number;
  /** Errors, timeouts and answers other than 2xx. */
  failed: number;
}

export async function hammer(base: string, query: string, seconds: number, connections: number, warmupSeconds = 0): Promise<Load> {
  const result = await autocannon({
    // Not counted: the first requests of a server just started compile its code as they go.
    ...(warmupSeconds > 0 ? { warmup: { connections, duration: warmupSeconds } } : {}),
    url: `${base}/sparql?query=${encodeURIComponent(query)}`,
    headers: { accept: 'application/sparql-results+json' },
    connections,
    duration: seconds,
    timeout: 30,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));

/** `weave serve --no-ingest` on `storeDir`, once it answers a query. */
export async function startWeave(
  storeDir: string,
  port: number,
  workers: number,
  readyWithinMs: number,
): Promise<{ base: string; stop(): Promise<void> }> {
  const server: ChildProcess = spawn(
    WEAVE,
    ['serve', '--no-ingest', '--store', storeDir, '--port', String(port), '--workers', String(workers)],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    server.kill('SIGTERM');
    await exited;
  };
  const started = performance.now();
  for (;;) {
    const ok = await fetch(`${base}/sparql?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`, {
      headers: { accept: 'application/sparql-results+json' },
    })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { base, stop };
    if (server.exitCode !== null || performance.now() - started > readyWithinMs) {
      await stop();
      throw new Error(`weave serve did not answer within ${readyWithinMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
