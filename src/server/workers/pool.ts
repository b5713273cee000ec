import { Worker } from 'node:worker_threads';
import { HttpError } from '../errors.ts';
import { isWrite, type ChangedGraph, type FromWorker, type Job, type JobResult, type ToWorker, type WorkerInit } from '../messages.ts';

/**
 * Runs on the main thread: the query workers (query-worker.ts, each in its own thread, each
 * owning a copy of the store) and the queue in front of them. Every job has a deadline counted
 * from its arrival: past it a queued job is refused (503) and a running one is stopped by ending
 * its worker (504), which is replaced by a fresh one loaded from disk. Oxigraph's WebAssembly
 * build cannot be interrupted any other way.
 */

export interface PoolOptions {
  size: number;
  storeDir: string;
  soul: string;
  timeoutMs: number;
  /** Jobs that may wait for a worker; one more is refused with 503 and Retry-After. */
  queueLimit: number;
  /** Each worker's JavaScript heap (results are built there); past it the worker ends cleanly (507). */
  heapMb: number;
  onEvent?: (event: PoolEvent) => void;
}

export type PoolEvent =
  | { kind: 'finished'; op: Job['op']; status: number; seconds: number }
  | { kind: 'timeout'; op: Job['op']; where: 'queue' | 'running' }
  | { kind: 'rejected'; op: Job['op'] }
  | { kind: 'restart'; reason: string }
  /** A worker could not open the store (a graph file that does not load, say): why, by file and line. */
  | { kind: 'open-failed'; message: string }
  | { kind: 'store'; quads: number };

interface Pending {
  id: number;
  job: Job;
  arrived: number;
  started?: number;
  timer: NodeJS.Timeout;
  resolve(result: JobResult): void;
  reject(error: HttpError): void;
}

interface Slot {
  worker: Worker;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  pending?: Pending;
  /** A write is saving to disk: ending the worker now could leave a half-written store. */
  persisting: boolean;
  failures: number;
}

const WORKER_BOOT = new URL('./boot.mjs', import.meta.url);
const WORKER_ENTRY = new URL('./query-worker.ts', import.meta.url).href;

export class QueryPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Mean job time, for Retry-After. */
  private meanMs = 50;
  restarts = 0;
  quads = 0;
  /** Why the last worker that tried could not open the store; cleared once one does. */
  private openError?: string;

  constructor(private readonly options: PoolOptions) {
    for (let i = 0; i < options.size; i++) this.slots.push(this.spawn(0));
  }

  get stats() {
    return {
      workers: this.slots.length,
      ready: this.slots.filter((s) => s.state === 'idle' || s.state === 'busy').length,
      busy: this.slots.filter((s) => s.state === 'busy').length,
      /** Set while no worker is ready because the store cannot be opened. */
      openError: this.openError,
      queued: this.queue.length,
      queueLimit: this.options.queueLimit,
      restarts: this.restarts,
    };
  }

  /** Resolves once at least one worker has loaded the store. */
  whenReady(): Promise<void> {
    return new Promise((resolve) => {
      const check = () =>
        this.closed || this.slots.some((s) => s.state === 'idle' || s.state === 'busy') ? resolve() : setTimeout(check, 20);
      check();
    });
  }

  run(job: Job, timeoutMs = this.options.timeoutMs): Promise<JobResult> {
    if (this.closed) return Promise.reject(new HttpError(503, 'the server is shutting down'));
    return new Promise<JobResult>((resolve, reject) => {
      const pending: Pending = {
        id: this.nextId++,
        job,
        arrived: performance.now(),
        resolve,
        reject,
        timer: undefined as unknown as NodeJS.Timeout,
      };
      pending.timer = setTimeout(() => this.deadline(pending, timeoutMs), timeoutMs);
      const slot = this.slots.find((s) => s.state === 'idle');
      if (slot) return this.start(slot, pending);
      if (this.queue.length >= this.options.queueLimit) {
        clearTimeout(pending.timer);
        this.options.onEvent?.({ kind: 'rejected', op: job.op });
        return reject(
          new HttpError(503, `the server is busy (${this.queue.length} requests waiting); try again shortly`, {
            'retry-after': this.retryAfter(),
          }),
        );
      }
      this.queue.push(pending);
    });
  }

  /** Tells every worker but `except` to reload graphs that changed on disk. */
  reload(graphs: ChangedGraph[], except?: Worker): void {
    if (!graphs.length) return;
    const message: ToWorker = { type: 'reload', graphs };
    for (const slot of this.slots) if (slot.worker !== except && slot.state !== 'dead') slot.worker.postMessage(message);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) this.settle(p, new HttpError(503, 'the server is shutting down'));
    await Promise.all(
      this.slots.map((s) => {
        if (s.pending) this.settle(s.pending, new HttpError(503, 'the server is shutting down'));
        s.state = 'dead';
        return s.worker.terminate();
      }),
    );
  }

  private retryAfter(): string {
    const ready = Math.max(1, this.stats.ready);
    return String(Math.max(1, Math.ceil(((this.queue.length + 1) * this.meanMs) / ready / 1000)));
  }

  private spawn(failures: number): Slot {
    const init: WorkerInit = { entry: WORKER_ENTRY, storeDir: this.options.storeDir, soul: this.options.soul };
    // Without a heap limit a worker that runs out of memory thrashes instead of failing.
    const worker = new Worker(WORKER_BOOT, {
      workerData: init,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    const slot: Slot = { worker, state: 'starting', persisting: false, failures };
    worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    worker.on('error', (e: Error & { code?: string }) =>
      this.onDeath(slot, e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out of memory' : `crashed (${e.name})`),
    );
    worker.on('exit', () => this.onDeath(slot, 'exited'));
    return slot;
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    switch (m.type) {
      case 'ready':
        slot.state = 'idle';
        slot.failures = 0;
        this.openError = undefined;
        this.noteQuads(m.quads);
        this.pump(slot);
        return;
      case 'reloaded':
        this.noteQuads(m.quads);
        return;
      case 'init-failed':
        // Said once per cause; the exit that follows replaces the worker, after a pause.
        if (this.openError !== m.message) this.options.onEvent?.({ kind: 'open-failed', message: m.message });
        this.openError = m.message;
        return;
      case 'persisting':
        if (slot.pending?.id === m.id) slot.persisting = true;
        return;
      case 'done':
      case 'failed': {
        const pending = slot.pending;
        if (!pending || pending.id !== m.id) return;
        slot.pending = undefined;
        slot.persisting = false;
        slot.state = 'idle';
        if (m.type === 'done') {
          // Other workers hear of a write before they can take another job, so no later read misses it.
          if (m.result.changed?.length) this.reload(m.result.changed, slot.worker);
          this.settle(pending, m.result);
        } else this.settle(pending, new HttpError(m.status, m.message, m.headers));
        if (m.type === 'failed' && m.fatal) this.replace(slot, 'the store failed inside a job');
        else this.pump(slot);
      }
    }
  }

  private noteQuads(quads: number): void {
    this.quads = quads;
    this.options.onEvent?.({ kind: 'store', quads });
  }

  private onDeath(slot: Slot, reason: string): void {
    if (slot.state === 'dead' || this.closed) return;
    if (slot.pending) {
      const status = reason === 'out of memory' ? 507 : 500;
      this.settle(
        slot.pending,
        new HttpError(
          status,
          status === 507 ? 'the query needed more memory than a worker has; narrow it or add LIMIT' : `the query worker ${reason}`,
        ),
      );
      slot.pending = undefined;
    }
    this.replace(slot, reason);
  }

  /** Ends a worker and puts a fresh one in its place (after a pause if they keep failing to start). */
  private replace(slot: Slot, reason: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0 || this.closed) return;
    const failures = slot.state === 'starting' ? slot.failures + 1 : 0;
    slot.state = 'dead';
    void slot.worker.terminate();
    this.restarts++;
    this.options.onEvent?.({ kind: 'restart', reason });
    const respawn = () => {
      if (this.closed) return;
      this.slots[index] = this.spawn(failures);
    };
    if (failures) setTimeout(respawn, Math.min(30_000, 500 * 2 ** failures)).unref();
    else respawn();
  }

  private pump(slot: Slot): void {
    const next = this.queue.shift();
    if (next) this.start(slot, next);
  }

  private start(slot: Slot, pending: Pending): void {
    slot.state = 'busy';
    slot.pending = pending;
    pending.started = performance.now();
    slot.worker.postMessage({ type: 'job', id: pending.id, job: pending.job } satisfies ToWorker);
  }

  private deadline(pending: Pending, timeoutMs: number): void {
    const seconds = (timeoutMs / 1000).toFixed(timeoutMs % 1000 ? 1 : 0);
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.options.onEvent?.({ kind: 'timeout', op: pending.job.op, where: 'queue' });
      this.settle(
        pending,
        new HttpError(503, `the server was busy for the whole timeout of ${seconds} s; try again shortly`, {
          'retry-after': this.retryAfter(),
        }),
      );
      return;
    }
    const slot = this.slots.find((s) => s.pending === pending);
    if (!slot || slot.persisting) return; // finished meanwhile, or saving a write: let it finish
    slot.pending = undefined;
    this.options.onEvent?.({ kind: 'timeout', op: pending.job.op, where: 'running' });
    const what = isWrite(pending.job) ? 'update' : 'query';
    this.settle(pending, new HttpError(504, `the ${what} ran longer than the timeout of ${seconds} s and was stopped`));
    this.replace(slot, 'timeout');
  }

  private settle(pending: Pending, outcome: JobResult | HttpError): void {
    clearTimeout(pending.timer);
    const ms = performance.now() - pending.arrived;
    this.meanMs = this.meanMs * 0.9 + ms * 0.1;
    this.options.onEvent?.({ kind: 'finished', op: pending.job.op, status: outcome.status, seconds: ms / 1000 });
    if (outcome instanceof HttpError) pending.reject(outcome);
    else pending.resolve(outcome);
  }
}
