import { QueryTimedOut } from './errors.ts';

/**
 * A federated query's time (`--timeout`). Its endpoints are asked within it, less a reserve
 * kept for what comes after their answers: an endpoint that takes the connection and never
 * answers is cut while there is still time to answer without it. SERVICE SILENT over it is then
 * one solution with no bindings (SPARQL 1.1 Federated Query §4) and the query answers in time;
 * a plain SERVICE fails naming it. Without this cut fetch waited for its own limit (five
 * minutes), and a server cut the whole query at its deadline with nothing to show.
 */
export interface QueryTime {
  timeoutMs: number;
  /** When the clock started (Date.now(), which every thread shares: the server counts queueing). */
  since: number;
}

/** The time kept after the endpoints' cut: a quarter of the timeout, at most 2 s. */
const reserveMs = (timeoutMs: number) => Math.min(2000, timeoutMs / 4);

/** A timeout as the server says it: `30 s`, `2.5 s`. */
export function timeoutText(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s`;
}

/** What a query cut at its `--timeout` says. */
export function timedOut(timeoutMs: number): string {
  return `the query ran longer than the timeout of ${timeoutText(timeoutMs)} (--timeout) and was stopped`;
}

/** A signal that aborts when the endpoints' share of the time is up (its timer holds no process open). */
export function endpointsCut(time: QueryTime): AbortSignal {
  return AbortSignal.timeout(Math.max(0, time.since + time.timeoutMs - reserveMs(time.timeoutMs) - Date.now()));
}

/** What `job` gives, or QueryTimedOut once the query's time is up. */
export async function withinTime<T>(time: QueryTime | undefined, job: Promise<T>): Promise<T> {
  if (!time) return job;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new QueryTimedOut(timedOut(time.timeoutMs))), Math.max(0, time.since + time.timeoutMs - Date.now()));
    // It holds no process open: a query failed otherwise (strays.ts) leaves it pending.
    timer.unref();
  });
  try {
    return await Promise.race([job, late]);
  } finally {
    clearTimeout(timer);
  }
}
