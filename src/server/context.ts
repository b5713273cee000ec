import type { FastifyReply, FastifyRequest } from 'fastify';
import oxigraph from 'oxigraph';
import type { ServerConfig } from './config.ts';
import type { DatasetStats } from './dataset.ts';
import type { Ingester } from './ingester.ts';
import type { Job, JobResult } from './jobs.ts';
import { isWrite } from './jobs.ts';
import { contentType } from './media.ts';
import type { Metrics } from './metrics.ts';
import type { Mutex } from './mutex.ts';
import type { QueryPool } from './pool.ts';
import type { StoreSummary } from './store-summary.ts';

/** What every route needs: the configuration, the workers, the write lock, the counters. */
export interface ServerContext {
  config: ServerConfig;
  pool: QueryPool;
  /** One writer of the store directory at a time: ingest runs and HTTP writes. */
  lock: Mutex;
  metrics: Metrics;
  stats: StatsCache;
  summary: StoreSummary;
  ingester?: Ingester;
}

/** Runs a job; a write takes the store lock first and marks the statistics stale after. */
export async function runJob(ctx: ServerContext, job: Job, request?: FastifyRequest): Promise<JobResult> {
  const timeoutMs = requestTimeout(ctx, request);
  if (!isWrite(job)) return ctx.pool.run(job, timeoutMs);
  const result = await ctx.lock.run(() => ctx.pool.run(job, timeoutMs));
  if (result.changed?.length) ctx.stats.invalidate();
  return result;
}

/** `timeout=SECONDS` may shorten the server's limit for one request, never lengthen it. */
function requestTimeout(ctx: ServerContext, request?: FastifyRequest): number {
  const asked = request ? Number(new URLSearchParams(request.url.split('?')[1] ?? '').get('timeout')) : NaN;
  return Number.isFinite(asked) && asked > 0 ? Math.min(ctx.config.timeoutMs, asked * 1000) : ctx.config.timeoutMs;
}

/** Sends a worker's answer with its Content-Type (and Vary: Accept, since it was negotiated). */
export function sendResult(reply: FastifyReply, result: JobResult): FastifyReply {
  reply.code(result.status).header('vary', 'Accept');
  for (const [k, v] of Object.entries(result.headers ?? {})) reply.header(k, v);
  if (!result.body || result.status === 204) return reply.send();
  return reply.header('content-type', contentType(result.mediaType!)).send(Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength));
}

/** The URL a request reached, without its query string: the endpoint IRI the client knows. */
export function requestUrl(request: FastifyRequest, path = request.url.split('?')[0]): string {
  const host = request.headers.host ?? `${request.hostname}`;
  return `${request.protocol}://${host}${path}`;
}

/** Turtle converted, in this thread, to the RDF syntax the client chose (small documents only). */
export function convertTurtle(turtle: string, baseIri: string, format: string): string {
  if (format === 'text/turtle') return turtle;
  const store = new oxigraph.Store();
  store.load(turtle, { format: 'text/turtle', base_iri: baseIri });
  return store.dump({ format });
}

/**
 * Dataset statistics (VoID, the service description), computed by a worker and kept until the
 * store changes, and at least ten seconds while sessions keep landing: they cost seconds of a
 * worker's time on a large store.
 */
export class StatsCache {
  private generation = 0;
  private cached?: { generation: number; at: number; stats: DatasetStats };
  private inflight?: Promise<DatasetStats>;

  constructor(
    private readonly compute: () => Promise<DatasetStats>,
    private readonly minAgeMs = 10_000,
  ) {}

  invalidate(): void {
    this.generation++;
  }

  /** The last figures, without waiting (undefined before the first computation). */
  peek(): DatasetStats | undefined {
    return this.cached?.stats;
  }

  async get(): Promise<DatasetStats> {
    const c = this.cached;
    if (c && (c.generation === this.generation || performance.now() - c.at < this.minAgeMs)) return c.stats;
    if (!this.inflight) {
      const generation = this.generation;
      this.inflight = this.compute()
        .then((stats) => {
          this.cached = { generation, at: performance.now(), stats };
          return stats;
        })
        .finally(() => (this.inflight = undefined));
    }
    return this.inflight;
  }
}
