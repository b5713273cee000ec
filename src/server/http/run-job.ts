import type { FastifyRequest } from 'fastify';
import { isWrite, type Job, type JobResult } from '../messages.ts';
import type { ServerContext } from './context.ts';

/**
 * Hands a job to the query workers. A write takes the store lock first (no ingest run rewrites
 * the manifest meanwhile) and marks the statistics stale after.
 */
export async function runJob(ctx: ServerContext, job: Job, request?: FastifyRequest): Promise<JobResult> {
  const timeoutMs = requestTimeout(ctx, request);
  // A federated query cuts its endpoints within its time, counted from now as the pool counts it.
  if (job.op === 'query' && job.federation) job = { ...job, federation: { ...job.federation, time: { timeoutMs, since: Date.now() } } };
  if (!isWrite(job)) return ctx.pool.run(job, timeoutMs);
  const result = await ctx.lock.run(() => ctx.pool.run(job, timeoutMs));
  if (result.changed?.length) ctx.stats.invalidate();
  return result;
}

/** `timeout=SECONDS` may shorten the server's limit for one request, never lengthen it. */
function requestTimeout(ctx: ServerContext, request?: FastifyRequest): number {
  const asked = request ? Number(request.searchParams.get('timeout')) : NaN;
  return Number.isFinite(asked) && asked > 0 ? Math.min(ctx.config.timeoutMs, asked * 1000) : ctx.config.timeoutMs;
}
