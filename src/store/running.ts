import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { httpRequest } from '../client/http.ts';
import { writeFileAtomically } from './atomic.ts';
import { RUN_FILE } from './layout.ts';

/**
 * The run file: a `weave serve` that has the store open writes `<store>/server.json` (its pid,
 * URL and token; mode 0600, since the token authorises writes) and removes it when it stops.
 * Commands call `findServer(storeDir)` and, when it answers, ask that server instead of opening
 * the store themselves. A run file whose pid is gone, or whose server does not answer as that
 * pid, is stale: ignored here, and replaced by the next `weave serve`.
 */

export const RUN_FORMAT = 'weave-server/1';

interface RunFile {
  format: typeof RUN_FORMAT;
  pid: number;
  /** The server's base URL, ending in `/` (`http://127.0.0.1:7878/`). */
  url: string;
  /** A bearer token the server accepts. */
  token: string;
  startedAt: string;
  /** A resident server started by a command (`weave usage`, …) rather than by `weave serve`: which one. */
  startedBy?: string;
  /** It stops itself after this many seconds without a request. */
  idleExitSeconds?: number;
  /** The endpoints its federated queries may contact (`--service-allow`), when it runs them itself. */
  serviceAllow?: string[];
  /** The build of Weave it runs (build.ts); absent from a Weave before builds were recorded. */
  build?: string;
}

/** A server that answered for this store: where it is and the token to send. */
export interface FoundServer {
  url: string;
  token: string;
  pid: number;
  /** Set for a resident server a command started (the run file's `startedBy`). */
  startedBy?: string;
  /** The endpoints its federated queries may contact; absent: it runs none for a command. */
  serviceAllow?: string[];
  /** The build of Weave it runs (build.ts), as its run file says. */
  build?: string;
}

export async function writeRunFile(dir: string, run: Omit<RunFile, 'format'>): Promise<void> {
  const file: RunFile = { format: RUN_FORMAT, ...run };
  // A server may start on a store not built yet (its first ingest makes the rest).
  await mkdir(dir, { recursive: true });
  await writeFileAtomically(join(dir, RUN_FILE), `${JSON.stringify(file, null, 1)}\n`, undefined, 0o600);
}

/** Removes the run file if it still names `pid` (a newer server may have replaced it). */
export async function removeRunFile(dir: string, pid = process.pid): Promise<void> {
  const run = await readRunFile(dir);
  if (run?.pid === pid) await rm(join(dir, RUN_FILE), { force: true });
}

/** The run file, or undefined when there is none or it is not one (a damaged file counts as stale). */
export async function readRunFile(dir: string): Promise<RunFile | undefined> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(dir, RUN_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const r = json as Partial<RunFile>;
  const sound =
    r?.format === RUN_FORMAT &&
    Number.isInteger(r.pid) &&
    (r.pid as number) > 0 &&
    typeof r.url === 'string' &&
    /^https?:\/\/.+\/$/.test(r.url) &&
    typeof r.token === 'string' &&
    typeof r.startedAt === 'string' &&
    (r.startedBy === undefined || typeof r.startedBy === 'string') &&
    (r.idleExitSeconds === undefined || (typeof r.idleExitSeconds === 'number' && r.idleExitSeconds > 0)) &&
    (r.serviceAllow === undefined || (Array.isArray(r.serviceAllow) && r.serviceAllow.every((url) => typeof url === 'string'))) &&
    (r.build === undefined || typeof r.build === 'string');
  return sound ? (r as RunFile) : undefined;
}

/**
 * The server running for the store in `storeDir`, or undefined: its run file names a live pid
 * and `/healthz` at its URL answers, within `timeoutMs`, with that same pid and a store that is
 * open or opening.
 */
export async function findServer(
  storeDir: string,
  options: { timeoutMs?: number /** Only a server whose store is open (not still loading). */; open?: boolean } = {},
): Promise<FoundServer | undefined> {
  const run = await readRunFile(storeDir);
  if (!run || !isRunning(run.pid)) return undefined;
  try {
    const res = await httpRequest(`${run.url}healthz`, { timeoutMs: options.timeoutMs ?? 3000 });
    const health = JSON.parse(res.text) as { pid?: number; store?: string };
    // A server still loading is found (its queries wait for the store); one that cannot open it is
    // not, so the command opens the store itself and says which file is wrong.
    if (health.pid !== run.pid || health.store === 'failing' || (options.open && health.store !== 'ready')) return undefined;
  } catch {
    return undefined;
  }
  return {
    url: run.url,
    token: run.token,
    pid: run.pid,
    ...(run.startedBy && { startedBy: run.startedBy }),
    ...(run.serviceAllow && { serviceAllow: run.serviceAllow }),
    ...(run.build && { build: run.build }),
  };
}

/** Stops a resident server (SIGTERM, as its owner would) and waits up to 10 s for it to go: whether it went. */
export async function stopResident(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return !isRunning(pid);
  }
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    if (!isRunning(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
