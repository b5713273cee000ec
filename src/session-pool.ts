import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Output } from './derive/derivation.ts';
import type { DeriveReport, ToldGraph } from './derive/loop.ts';
import type { FoundSession } from './dialect/dialect.ts';
import type { ContentPolicy } from './emit/content.ts';
import type { LineProblem, SessionRead, SessionToRead, WrittenBy } from './session-read.ts';
import { SECRET_KEY_FILE } from './readers/secret/key.ts';
import type { FileEntry, Manifest } from './store/manifest.ts';
import type { Recorded } from './store/writer.ts';
import { allOwn } from './dialect/index.ts';

/**
 * Sessions read side by side, in worker threads (session-worker.ts): each reads one session into
 * its graph files and runs its session derivations, as ingest does in its own thread, through a
 * writer that puts files in place but never writes the manifest (store/writer.ts sessionWriter).
 * What it recorded comes back here, and the run's own writer, under the store's lock, adopts it in
 * the order of the plan: the manifest, the external store and every hook see the sessions as one
 * thread reading them in turn would have shown them.
 */

/** What every worker of a run is told once. */
export interface PoolInit {
  storeDir: string;
  soul: string;
  content?: ContentPolicy;
  /** Keep the search documents (the search derivations are in the run). */
  search: boolean;
  /** The readers in the run, by name, in its order. */
  readers: string[];
  largeSession: number;
  writtenBy?: WrittenBy;
  /** The dialects by module URL: objects do not cross threads. */
  dialects: string[];
}

/** One session for a worker: what to read (its dialect by id), and the manifest's entries for it and its outputs. */
export interface SessionJob {
  target: Omit<SessionToRead, 'session'> & { session: FoundSession; dialect: string };
  view: Manifest;
}

/** An error as it crosses threads: what the run reports of it (its kind, code and frames, never more than the thread had). */
export interface CarriedError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

/** What a worker did with one session. */
export interface PooledRead {
  read?: SessionRead;
  /** The session could not be read (SessionFailure): where, and why. */
  failure?: { path: string; lineNo: number; cause: CarriedError };
  /** The store failed (StoreFailure): that ends the run. */
  storeFailure?: CarriedError;
  recorded: Recorded;
  tally: { files: number; records: number; bytes: number; archived: number };
  problems: LineProblem[];
  notes: string[];
  derived: DeriveReport;
  told: ToldGraph[];
}

/** The job for a session: the session without its dialect, and the manifest's entries for it, its derivations' `outputs` and the secret key. */
export function jobOf(target: SessionToRead, manifest: Readonly<Manifest>, outputs: readonly Output[]): SessionJob {
  const { session, ...rest } = target;
  const { dialect, ...found } = session;
  const view: Manifest = { ...manifest, graphs: {}, files: {} };
  const files: Record<string, FileEntry> = {};
  if (target.previous) view.graphs[target.graph] = target.previous;
  for (const output of outputs)
    if ('graph' in output) {
      if (manifest.graphs[output.graph]) view.graphs[output.graph] = manifest.graphs[output.graph];
    } else if (manifest.files?.[output.file]) files[output.file] = manifest.files[output.file];
  if (manifest.files?.[SECRET_KEY_FILE]) files[SECRET_KEY_FILE] = manifest.files[SECRET_KEY_FILE];
  view.files = files;
  return { target: { ...rest, session: found, dialect: dialect.id }, view };
}

/** An error as it crosses to the run's thread: its kind, message, code and frames. */
export function carried(e: unknown): CarriedError {
  const error = e instanceof Error ? e : new Error(String(e));
  const code = (error as NodeJS.ErrnoException).code;
  return { name: error.name, message: error.message, stack: error.stack, ...(typeof code === 'string' ? { code } : {}) };
}

/** An error as a reading thread carried it, made an Error again. */
export function revived(error: CarriedError): Error {
  const made = new Error(error.message);
  made.name = error.name;
  if (error.stack) made.stack = error.stack;
  if (error.code) (made as NodeJS.ErrnoException).code = error.code;
  return made;
}

/** The workers a run may use: one per core, at most 8 (reading is CPU; the disk and one writer are shared). */
export function defaultJobs(): number {
  return Math.min(8, availableParallelism());
}

const BOOT = new URL('./server/workers/boot.mjs', import.meta.url);
const ENTRY = new URL('./session-worker.ts', import.meta.url).href;

interface Waiting {
  job: SessionJob;
  resolve: (read: PooledRead) => void;
  reject: (e: Error) => void;
}

export class SessionPool {
  private readonly queue: Waiting[] = [];
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Waiting>();
  /** Workers that have read a session. */
  private readonly started = new WeakSet<Worker>();
  private closed = false;
  /** A worker died before it read a session (it could not start): no other is started, and what is asked is refused. */
  broken = false;
  /** Told when a busy worker is done, for `close`. */
  private settled?: () => void;

  constructor(
    readonly size: number,
    private readonly init: PoolInit,
  ) {
    for (let i = 0; i < size; i++) this.idle.push(this.start());
  }

  /** Reads one session in the next free worker. */
  read(job: SessionJob): Promise<PooledRead> {
    return new Promise((resolve, reject) => {
      if (this.closed || this.broken) return reject(new Error('the session pool is closed'));
      this.queue.push({ job, resolve, reject });
      this.next();
    });
  }

  /**
   * Drops the sessions not yet begun (their promises reject), lets those being read finish (so
   * that no write of theirs is still under way; what they wrote no manifest names) and stops every worker.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.queue.splice(0)) waiting.reject(new Error('the session pool is closed'));
    while (this.busy.size) await new Promise<void>((resolve) => (this.settled = resolve));
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  private start(): Worker {
    const workerData = { entry: ENTRY, init: this.init, typescript: !allOwn(this.init.dialects) };
    const worker = new Worker(BOOT, { workerData, execArgv: [] });
    worker.once('message', () => this.started.add(worker));
    worker.on('message', (result: PooledRead) => {
      const waiting = this.busy.get(worker);
      this.busy.delete(worker);
      this.idle.push(worker);
      waiting?.resolve(result);
      this.next();
      this.settled?.();
    });
    // A worker that dies (out of memory, a fault in the thread) fails its session; another takes its place.
    worker.on('error', (e) => this.lost(worker, e));
    worker.on('exit', (code) => this.lost(worker, new Error(`a reading thread stopped (exit code ${code})`)));
    return worker;
  }

  private lost(worker: Worker, e: Error): void {
    const waiting = this.busy.get(worker);
    this.busy.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    waiting?.reject(e);
    this.settled?.();
    if (this.closed || this.broken || (!waiting && at < 0)) return;
    if (!this.started.has(worker)) {
      // It could not start: nor will the next one. What waits is refused (the run reads it itself).
      this.broken = true;
      for (const queued of this.queue.splice(0)) queued.reject(e);
      return;
    }
    this.idle.push(this.start());
    this.next();
  }

  private next(): void {
    while (this.idle.length && this.queue.length) {
      const worker = this.idle.pop()!;
      const waiting = this.queue.shift()!;
      this.busy.set(worker, waiting);
      worker.postMessage(waiting.job);
    }
  }
}
