import { createHash } from 'node:crypto';
import type { Job } from '../messages.ts';

/**
 * Queries stopped at their deadline lately, by a digest of what they ask (never their text). A
 * running query can only be stopped by ending its worker, which closes a copy of the store; the
 * same query asked again would run as long and close another, while other clients wait for a copy
 * to open. So for `holdMs` after its cut it is refused at once with 504, unless it is given longer
 * than the deadline it ran past.
 */
export class RecentRunaways {
  private readonly cut = new Map<string, { at: number; timeoutMs: number }>();

  constructor(private readonly holdMs: number) {}

  note(job: Job, timeoutMs: number, now = performance.now()): void {
    const key = keyOf(job);
    if (key === undefined) return;
    for (const [k, v] of this.cut) if (now - v.at >= this.holdMs) this.cut.delete(k);
    this.cut.set(key, { at: now, timeoutMs });
  }

  /** When this query was cut (ms ago) and at what deadline, if lately at one no shorter than `timeoutMs`. */
  lastCut(job: Job, timeoutMs: number, now = performance.now()): { agoMs: number; timeoutMs: number } | undefined {
    // Asked of every query: no digest while nothing was cut.
    if (!this.cut.size) return undefined;
    const key = keyOf(job);
    const seen = key === undefined ? undefined : this.cut.get(key);
    if (!seen || now - seen.at >= this.holdMs || timeoutMs > seen.timeoutMs) return undefined;
    return { agoMs: now - seen.at, timeoutMs: seen.timeoutMs };
  }
}

/** Queries only: the other reads are bounded, and a write past its deadline is let finish. */
function keyOf(job: Job): string | undefined {
  if (job.op !== 'query') return undefined;
  const what = [job.query, job.baseIri, job.defaultGraphs.join(' '), job.namedGraphs.join(' '), JSON.stringify(job.federation ?? null)];
  return createHash('sha256').update(what.join('\n')).digest('base64');
}
