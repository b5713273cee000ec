import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_LOG, START_FILE } from '../store/layout.ts';
import { readManifest } from '../store/manifest.ts';
import { findServer, isRunning, stopResident, type FoundServer } from '../store/running.ts';

/**
 * The resident server, as language servers and build daemons have one: a command that reads the
 * store asks the server running for it, and when none runs, starts one in the background
 * (`weave serve --no-ingest --started-by …`, detached, on a free port of 127.0.0.1, its log in
 * `<store>/server.log`) and asks it, so only the first command on a built store pays the open.
 * It serves the store as it is (it reads no transcript and takes no write; what a `weave ingest`
 * writes is loaded before its next answer) and stops itself after IDLE_EXIT_SECONDS without a
 * request. Two commands starting at once end with one server: the one that creates
 * `<store>/server.starting` (O_EXCL) starts it, the other waits for it. `--no-daemon` or
 * WEAVE_NO_DAEMON=1: the command answers by itself, as before, asking no server.
 */

export const IDLE_EXIT_SECONDS = 600;
/** The longest a query of a resident server may take: a command opening the store itself has no limit. */
const TIMEOUT_SECONDS = 600;
/** The longest a command waits for a server it (or another command) started to open the store. */
const START_PATIENCE_MS = 60_000;
/** After a server failed to start, commands answer by themselves this long before one tries again. */
const FAILED_BACKOFF_MS = 60_000;
/** Past this the log is started afresh. */
const LOG_LIMIT = 1 << 20;

/** The command line's entry, which `weave serve` runs through; the light entry names it (it is bundled elsewhere). */
const ENTRY = fileURLToPath(new URL('../cli/launch.mjs', import.meta.url));

/** Whether this run answers by itself: `--no-daemon`, or WEAVE_NO_DAEMON set (to anything but 0). */
export function noDaemon(values: { 'no-daemon'?: boolean }): boolean {
  const env = process.env.WEAVE_NO_DAEMON;
  return values['no-daemon'] === true || (env !== undefined && env !== '' && env !== '0');
}

export const NO_DAEMON_HELP = `  --no-daemon        open the store in this process (also WEAVE_NO_DAEMON=1); by default the
                     store's server answers, started in the background when none runs (it
                     stops after ${IDLE_EXIT_SECONDS / 60} minutes without a request)`;

export interface ResidentOptions {
  /** The command asking, as `weave status` names it: `usage`. */
  command: string;
  /** The command line's entry to run `weave serve` with (the light entry passes its own). */
  entry?: string;
  /**
   * The command answers by itself in about a second, opening no more than its own part of the
   * store (search, conversation), where a server takes the whole store's open to start: it waits
   * for no server. One already open answers; else one is started for the commands after it.
   */
  quickHere?: boolean;
}

/**
 * The server for the store in `storeDir`: the one running, else one started now. Undefined when
 * none can be had (no store there, a start that failed): the command then
 * opens the store itself.
 */
export async function residentServer(storeDir: string, options: ResidentOptions): Promise<FoundServer | undefined> {
  if (options.quickHere) return openServer(storeDir, options);
  const running = await current(await findServer(storeDir));
  if (running) return running;
  const dir = resolve(storeDir);
  const soul = await residentSoul(dir);
  if (!soul) return undefined;
  const claim = await claimStart(dir);
  if (claim === 'failed') return undefined;
  if (claim === 'taken') return waitForServer(dir, () => startPending(dir));
  let started: FoundServer | undefined;
  try {
    // Another command may have started one between the look above and the claim.
    started = (await current(await findServer(dir))) ?? (await start(dir, soul, options));
  } catch {
    // The log cannot be written, the server cannot be spawned: answered here.
  }
  if (started) {
    await rm(join(dir, START_FILE), { force: true });
    return started;
  }
  await markFailedStart(dir);
  process.stderr.write(
    `weave ${options.command}: the resident server did not start (its log: ${join(dir, SERVER_LOG)}); opening the store here\n`,
  );
  return undefined;
}

/**
 * For a command quick by itself: the server with the store open, or undefined, after starting one
 * in the background when none runs or is starting. The claim is handed to the server (its pid),
 * so it holds while the server opens the store, after this command is gone.
 */
async function openServer(storeDir: string, options: ResidentOptions): Promise<FoundServer | undefined> {
  const open = await current(await findServer(storeDir, { open: true }));
  if (open) return open;
  const dir = resolve(storeDir);
  const soul = await residentSoul(dir);
  if (!soul || (await current(await findServer(dir))) || (await startDied(dir)) || (await claimStart(dir)) !== 'ours') return undefined;
  try {
    const server = await spawnServer(dir, soul, options);
    if (server.pid !== undefined && !server.gone()) await writeStartFile(dir, { pid: server.pid, at: Date.now() });
    else await rm(join(dir, START_FILE), { force: true });
  } catch {
    // Not started: the claim names this command, and once it exits a quick command takes it for a
    // failed start (startDied) and waits it out.
  }
  return undefined;
}

/**
 * `found`, unless it is a resident server of a Weave from before builds were recorded: that one
 * does not stop when Weave's files change (server/build.ts), so it is stopped here, and the
 * command starts one of its own. A server the user started (`weave serve`) is theirs to stop, and
 * is asked as it is; so is a resident one that will not stop.
 */
async function current(found: FoundServer | undefined): Promise<FoundServer | undefined> {
  if (!found?.startedBy || found.build) return found;
  return (await stopResident(found.pid)) ? undefined : found;
}

/**
 * Whether the server a quick command started died while it opened the store (one that cannot
 * open it stops): its claim then becomes the mark of a failed start, which commands wait out,
 * rather than each search starting another.
 */
async function startDied(dir: string): Promise<boolean> {
  const claim = await readStartFile(dir);
  if (!claim || claim.failed || isRunning(claim.pid) || Date.now() - claim.at > START_PATIENCE_MS) return false;
  await markFailedStart(dir);
  return true;
}

/** The claim becomes the mark of a failed start, which commands wait out (claimStart). */
async function markFailedStart(dir: string): Promise<void> {
  await writeStartFile(dir, { pid: process.pid, at: Date.now(), failed: true }).catch(() => undefined);
}

/** The soul of a store a resident server can serve: a built store, held here or in an external store (whose server keeps its query rewriter warm). */
async function residentSoul(dir: string): Promise<string | undefined> {
  // A damaged manifest is the command's to report, in its words.
  return (await readManifest(dir).catch(() => undefined))?.soul;
}

interface StartClaim {
  pid: number;
  at: number;
  /** The start failed: commands answer by themselves for a while. */
  failed?: true;
}

/** Creates the start file (ours), or reads whose it is: a start under way (taken) or one that failed lately. */
export async function claimStart(dir: string): Promise<'ours' | 'taken' | 'failed'> {
  for (;;) {
    try {
      if (await placeClaim(dir)) return 'ours';
    } catch {
      // A store this user cannot write to: no server of its own, then.
      return 'failed';
    }
    const claim = await readStartFile(dir);
    if (claim) {
      const age = Date.now() - claim.at;
      if (claim.failed && age < FAILED_BACKOFF_MS) return 'failed';
      if (!claim.failed && age < START_PATIENCE_MS && isRunning(claim.pid)) return 'taken';
    }
    // A claim whose starter is gone, or that is past its time: stale, removed, and claimed again.
    await rm(join(dir, START_FILE), { force: true });
  }
}

/**
 * Places a claim whole or not at all: written under a name of its own, then linked to the start
 * file (a link fails when the name exists). Created empty and written after, another command
 * could read it half-written, take it for a stale one and claim it too.
 */
async function placeClaim(dir: string): Promise<boolean> {
  const mine = join(dir, `${START_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFile(mine, JSON.stringify({ pid: process.pid, at: Date.now() } satisfies StartClaim), { mode: 0o600 });
  try {
    await link(mine, join(dir, START_FILE));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return false;
  } finally {
    await rm(mine, { force: true });
  }
}

async function readStartFile(dir: string): Promise<StartClaim | undefined> {
  try {
    const claim = JSON.parse(await readFile(join(dir, START_FILE), 'utf8')) as Partial<StartClaim>;
    return Number.isInteger(claim.pid) && typeof claim.at === 'number' ? (claim as StartClaim) : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the claim whole (renamed into place), so no command reads it half-written. */
async function writeStartFile(dir: string, claim: StartClaim): Promise<void> {
  const mine = join(dir, `${START_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFile(mine, JSON.stringify(claim), { mode: 0o600 });
  await rename(mine, join(dir, START_FILE));
}

/** Whether another command's start is still under way. */
async function startPending(dir: string): Promise<boolean> {
  const claim = await readStartFile(dir);
  return !!claim && !claim.failed && isRunning(claim.pid);
}

/** Starts `weave serve` for the store, detached, and waits until it listens. */
async function start(dir: string, soul: string, options: ResidentOptions): Promise<FoundServer | undefined> {
  const server = await spawnServer(dir, soul, options);
  return waitForServer(dir, async () => !server.gone());
}

/**
 * `weave serve` for the store, spawned detached (its own process group: a Ctrl-C meant for the
 * command does not reach it), its output in the log: its pid, and whether it has exited or could
 * not be spawned.
 */
async function spawnServer(dir: string, soul: string, options: ResidentOptions): Promise<{ pid?: number; gone(): boolean }> {
  const logPath = join(dir, SERVER_LOG);
  const size = await stat(logPath).then(
    (s) => s.size,
    () => 0,
  );
  const log = await open(logPath, size > LOG_LIMIT ? 'w' : 'a', 0o600);
  await log.write(`${new Date().toISOString()} weave ${options.command} (pid ${process.pid}) starts a resident server\n`);
  const child = spawn(
    process.execPath,
    [
      options.entry ?? ENTRY,
      'serve',
      '--store',
      dir,
      '--soul',
      soul,
      '--no-ingest',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--timeout',
      String(TIMEOUT_SECONDS),
      '--idle-exit',
      String(IDLE_EXIT_SECONDS),
      '--started-by',
      `weave ${options.command}`,
    ],
    { detached: true, stdio: ['ignore', log.fd, log.fd], cwd: dir },
  );
  let gone = false;
  child.once('exit', () => (gone = true));
  child.once('error', () => (gone = true));
  child.unref();
  await log.close();
  return { pid: child.pid, gone: () => gone };
}

/**
 * Waits for a server being started to have the store open, looking every 100 ms while
 * `stillStarting` says one is coming: so a server that cannot open the store (it stops) is never
 * asked. Past START_PATIENCE_MS a server still loading is taken: its answers wait for the load.
 */
async function waitForServer(dir: string, stillStarting: () => Promise<boolean>): Promise<FoundServer | undefined> {
  for (const until = Date.now() + START_PATIENCE_MS; Date.now() < until; ) {
    const open = await findServer(dir, { timeoutMs: 2000, open: true });
    if (open) return open;
    // The start is over: ours failed (its server stopped), or another's server is the one.
    if (!(await stillStarting())) return findServer(dir, { timeoutMs: 2000 });
    await new Promise((done) => setTimeout(done, 100));
  }
  return findServer(dir, { timeoutMs: 2000 });
}
