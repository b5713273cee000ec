import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { link, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { rmSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { LOCK_FILE, STALE_LOCK, tempPathOf } from './layout.ts';
import { utcSeconds } from '../time.ts';

/**
 * The writer lock: `<store>/lock` names the one process that may write the store (ingest, detect,
 * the links pass, a server that ingests or takes writes), with its pid, its command and since
 * when. A second process that wants to write gets one line naming the holder. A lock whose
 * process no longer runs (it was killed) is taken over, with a note saying whose it was.
 *
 * The file is written aside and linked into place, so it is created whole and only by one
 * process. Threads of the holding process (the server's ingest thread and query workers) write
 * under the same lock: the lock is the process's; one thread's writes are ordered by the server.
 */

interface LockHolder {
  pid: number;
  /** What the holder is doing, as typed (`weave ingest`, `weave serve`). */
  command: string;
  /** When it took the lock (ISO 8601). */
  since: string;
  host: string;
  /** When the holder process started (ms since the epoch): a reused pid is not the holder. */
  started: number;
  /** Tells this taking of the lock from any other, so a release never removes another's lock. */
  nonce: string;
}

export interface StoreLock {
  readonly holder: LockHolder;
  /** This call took the lock (else this process already held it, and keeps it after `release`). */
  readonly fresh: boolean;
  /** Gives the lock up (a lock this process held before stays held). */
  release(): Promise<void>;
}

export interface LockOptions {
  /** What the holder is doing, shown to whoever finds the store locked; default from argv. */
  command?: string;
  /** Told when a lock left by a process that no longer runs is taken over. */
  onNote?: (note: string) => void;
}

/** A store another process is writing. `holder` says who. */
class StoreLockedError extends Error {
  readonly code = 'ELOCKED';
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(`the store in ${dir} is being written by ${describeHolder(holder)}; ${whatToDo(holder)}`);
  }
}

/** A server never finishes: it is asked (the commands that read the store ask it), or stopped. */
function whatToDo(holder: LockHolder): string {
  return /^weave serve\b/.test(holder.command)
    ? 'weave serve keeps this store current; ask it, or stop it'
    : 'wait for it to finish, or stop it';
}

function lockPath(dir: string): string {
  return join(dir, LOCK_FILE);
}

const PROCESS_STARTED = Math.round(Date.now() - process.uptime() * 1000);

/** This thread's holds, per store directory: how many takes are not yet released. */
const held = new Map<string, { holder: LockHolder; count: number }>();

/** Takes the store's writer lock, or throws `StoreLockedError` naming the process that has it. */
export async function takeStoreLock(dir: string, options: LockOptions = {}): Promise<StoreLock> {
  const path = lockPath(dir);
  const mine = held.get(path);
  if (mine) {
    mine.count++;
    return handle(path, mine.holder, false);
  }
  const holder: LockHolder = {
    pid: process.pid,
    command: options.command ?? commandLine(),
    since: new Date().toISOString(),
    host: hostname(),
    started: PROCESS_STARTED,
    nonce: randomBytes(8).toString('hex'),
  };
  await mkdir(dir, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    if (await create(path, holder)) {
      held.set(path, { holder, count: 1 });
      if (held.size === 1 && !process.listeners('exit').includes(releaseAll)) process.on('exit', releaseAll);
      return handle(path, holder, true);
    }
    const found = await readHolder(path);
    if (found === 'gone') continue;
    if (found !== 'damaged' && isThisProcess(found)) {
      // Another thread of this process holds it: write under its hold, never release it.
      return { holder: found, fresh: false, release: async () => undefined };
    }
    if (found !== 'damaged' && isRunning(found)) throw new StoreLockedError(dir, found);
    if (attempt >= 3) throw new Error(`${path}: cannot take the store lock (other processes keep taking it); try again`);
    if (await takeAway(path, found)) {
      options.onNote?.(
        found === 'damaged'
          ? `${path} was damaged; taken over`
          : `took over the store lock of ${describeHolder(found)}, which is no longer running`,
      );
    }
  }
}

/** Whether this process holds the store's lock (in this thread or another). */
export async function holdsStoreLock(dir: string): Promise<boolean> {
  if (held.has(lockPath(dir))) return true;
  const found = await readHolder(lockPath(dir));
  return typeof found === 'object' && isThisProcess(found);
}

/** Who holds the lock now: undefined when nobody, `stale` when its process no longer runs. */
export async function lockHolder(dir: string): Promise<{ holder: LockHolder; stale: boolean } | undefined> {
  const found = await readHolder(lockPath(dir));
  if (found === 'gone') return undefined;
  if (found === 'damaged') return { holder: { pid: 0, command: '?', since: '?', host: '?', started: 0, nonce: '' }, stale: true };
  return { holder: found, stale: !isThisProcess(found) && !isRunning(found) };
}

export function describeHolder(holder: LockHolder): string {
  const host = holder.host === hostname() ? '' : ` on ${holder.host}`;
  return `pid ${holder.pid}${host} (${holder.command}, since ${utcSeconds(holder.since)})`;
}

function handle(path: string, holder: LockHolder, fresh: boolean): StoreLock {
  let released = false;
  return {
    holder,
    fresh,
    async release() {
      if (released) return;
      released = true;
      const mine = held.get(path);
      if (!mine || --mine.count > 0) return;
      held.delete(path);
      const found = await readHolder(path);
      if (typeof found === 'object' && found.nonce === holder.nonce) await rm(path, { force: true });
    },
  };
}

/** Creates the lock file whole, only if there is none; false when there is one. */
async function create(path: string, holder: LockHolder): Promise<boolean> {
  const temp = tempPathOf(path);
  try {
    const file = await open(temp, 'w');
    try {
      await file.writeFile(`${JSON.stringify(holder)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await link(temp, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    const reason = code === 'ENOSPC' ? 'no space left on device (ENOSPC)' : String((e as Error).message).split('\n')[0];
    throw Object.assign(new Error(`cannot take the store lock ${path}: ${reason}; the store stays as it was`, { cause: e }), { code });
  } finally {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

async function readHolder(path: string): Promise<LockHolder | 'gone' | 'damaged'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw e;
  }
  return parseHolder(text);
}

function parseHolder(text: string): LockHolder | 'damaged' {
  try {
    const json = JSON.parse(text);
    if (typeof json?.pid === 'number' && typeof json.nonce === 'string') return json as LockHolder;
  } catch {
    /* below */
  }
  return 'damaged';
}

/**
 * Moves a stale lock out of the way, checking that what moved is the lock judged stale (another
 * process may have taken it over in between: then it is put back).
 */
async function takeAway(path: string, stale: LockHolder | 'damaged'): Promise<boolean> {
  const aside = tempPathOf(join(dirname(path), STALE_LOCK));
  try {
    await rename(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  const moved = parseHolder(await readFile(aside, 'utf8'));
  const same = moved === 'damaged' ? stale === 'damaged' : stale !== 'damaged' && moved.nonce === stale.nonce;
  if (!same) {
    await link(aside, path).catch(() => undefined);
    await rm(aside, { force: true });
    return false;
  }
  await rm(aside, { force: true });
  return true;
}

function isThisProcess(holder: LockHolder): boolean {
  return holder.pid === process.pid && holder.host === hostname() && Math.abs(holder.started - PROCESS_STARTED) < 2000;
}

/** Whether the holder still runs. On another host that cannot be told: it is taken to run. */
function isRunning(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return isThisProcess(holder);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** On exit, the locks go with the process; a kill leaves them, for the next writer to take over. */
function releaseAll(): void {
  for (const [path, { holder }] of held) {
    try {
      const found = parseHolder(readFileSync(path, 'utf8'));
      if (typeof found === 'object' && found.nonce === holder.nonce) rmSync(path, { force: true });
    } catch {
      /* gone already */
    }
  }
  held.clear();
}

/** `weave ingest`, `weave serve`, …: the command as typed, without its arguments (they may name paths). */
function commandLine(): string {
  const script = process.argv[1] ?? '';
  if (/(?:^|\/)(?:weave|cli\/main\.ts|cli\/launch\.mjs)$/.test(script) && process.argv[2]) return `weave ${process.argv[2]}`;
  return `node ${basename(script)}`;
}
