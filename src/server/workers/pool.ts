import { Worker } from 'node:worker_threads';
import { HttpError } from '../errors.ts';
import { RecentRunaways } from './runaways.ts';
import { AwakeLoop, SHORT_JOB_MS } from './awake.ts';
import { asNamedIn } from './unrecorded.ts';
import { readManifest } from '../../store/manifest.ts';
import { isWrite, type ChangedGraph, type FromWorker, type Job, type JobResult, type ToWorker, type WorkerInit } from '../messages.ts';

/**
 * Runs on the main thread: the query workers (query-worker.ts, each in its own thread) and the
 * queue in front of them. One copy of the store is kept open; memory holds one copy at rest,
 * whatever `size` is, unless `spare` keeps a second (then the standby below is that copy, open).
 *
 * Oxigraph's WebAssembly build cannot be interrupted, so a job past its deadline is stopped by
 * ending its worker (504). For that not to leave everyone waiting while a replacement opens the
 * store, a standby thread is kept booted (tsx and Oxigraph loaded, no store: a few tens of MB):
 * it opens the store only when needed: as soon as a job has run `standbyAfterMs`, whether or not
 * others wait yet. A job that long may be a runaway, and opening a copy takes as long as the store
 * takes to load (tens of seconds for a large one): started at half the timeout, as it once was, a
 * store that loads slower than that left no copy answering from the cut until it opened, and
 * every request in between got 503. So a second copy exists only while one job holds the first
 * for long; once the queue is empty and no job runs long, extra copies are retired after
 * `retireAfterMs` idle and a copy still opening is abandoned (a merely slow query costs part of a
 * load, never a copy at rest).
 *
 * At its deadline a runaway's worker is ended even when no other copy answers yet: it could not
 * answer anyway, and the thread it frees speeds up the copy that is opening.
 * `size` caps the copies open at once (1: no standby; a runaway's replacement opens from disk).
 *
 * While jobs are short (the one running began under PIPELINE_MS ago, and the mean is under it),
 * the next read waiting is sent to the busy worker at once, to start when the running one ends:
 * a message's round trip between jobs was most of a point query's time. A job so sent is put back
 * in line if its worker is ended before it begins. While a short job runs, the event loop here and
 * the worker after its answer stay awake rather than sleep (awake.ts): a wake-up was a third of a
 * point query's time at one connection.
 *
 * Every job has a deadline counted from its arrival: past it a queued job is refused (503) and a
 * running one is stopped (504). While no copy is open yet (the server has just started), jobs wait
 * for the store; one that cannot be answered before its deadline gets 503 with Retry-After at once.
 */

interface PoolOptions {
  /** The most copies of the store open at once. */
  size: number;
  storeDir: string;
  soul: string;
  timeoutMs: number;
  /** Jobs that may wait for a worker; one more is refused with 503 and Retry-After. */
  queueLimit: number;
  /** Each worker's JavaScript heap (results are built there); past it the worker ends cleanly (507). */
  heapMb: number;
  /**
   * Keep a second copy open at rest (with `size` ≥ 2): a job that runs long, a runaway even, never
   * leaves the others waiting for a copy to open, at the cost of one more copy's memory.
   */
  spare?: boolean;
  /** A job running this long opens the standby (default 500 ms). */
  standbyAfterMs?: number;
  /** An extra copy idle this long, with nothing waiting, is closed (default 2 s). */
  retireAfterMs?: number;
  /** A query stopped at its deadline is refused at once for this long after (default 2 min): runaways.ts. */
  refuseRepeatMs?: number;
  /** Jobs shorter than this (each, and on average) are sent to a busy worker to wait there (default PIPELINE_MS). */
  pipelineMs?: number;
  onEvent?: (event: PoolEvent) => void;
}

export type PoolEvent =
  | { kind: 'finished'; op: Job['op']; status: number; seconds: number }
  | { kind: 'timeout'; op: Job['op']; where: 'queue' | 'running' }
  | { kind: 'rejected'; op: Job['op'] }
  | { kind: 'restart'; reason: string }
  /** A worker could not open the store (a graph file that does not load, say): why, by file and line. */
  | { kind: 'open-failed'; message: string }
  /** A copy could not load a graph it was told of: why, by file and line (said once per cause). */
  | { kind: 'reload-failed'; message: string }
  | { kind: 'store'; quads: number }
  | { kind: 'ready'; quads: number; seconds: number };

interface Pending {
  id: number;
  job: Job;
  arrived: number;
  timeoutMs: number;
  /** No copy was open when it came: its wait is the store loading, not other jobs. */
  arrivedWhileLoading: boolean;
  started?: number;
  timer: NodeJS.Timeout;
  resolve(result: JobResult): void;
  reject(error: HttpError): void;
  /** Answered already (refused at its deadline while it waited in a worker): its result is dropped. */
  settled?: boolean;
}

type SlotState = 'booting' | 'standby' | 'opening' | 'idle' | 'busy' | 'dead';

interface Slot {
  worker: Worker;
  state: SlotState;
  /** When it entered its state. */
  since: number;
  pending?: Pending;
  /**
   * A short read sent to the worker while `pending` runs, so it starts the moment that one ends
   * instead of a message's round trip later (point queries at 8 connections: most of the time).
   */
  next?: Pending;
  /** A write is saving to disk: ending the worker now could leave a half-written store. */
  persisting: boolean;
  /** While opening: quads loaded of the manifest's total. */
  progress?: { quads: number; of: number };
  /** Opened as a standby, it has not set shared triples aside yet (query-worker.ts). */
  asideDue?: boolean;
  /** Reloads sent to it that it has not answered yet: its count is of an older store until none is left. */
  behind: number;
}

/** How far the store has loaded while no copy is open yet. */
export interface LoadProgress {
  quads: number;
  of: number;
  seconds: number;
  /** Estimated seconds until the copy is open. */
  remainingSeconds: number;
}

const WORKER_BOOT = new URL('./boot.mjs', import.meta.url);
const WORKER_ENTRY = new URL('./query-worker.ts', import.meta.url).href;
const OPEN: SlotState[] = ['opening', 'idle', 'busy'];
/** Jobs shorter than this (each, and on average) are sent to a busy worker to wait there. */
const PIPELINE_MS = SHORT_JOB_MS;

export class QueryPool {
  private slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Mean job time, for Retry-After. */
  private meanMs = 50;
  /** Workers that failed to boot or open in a row: respawns wait longer each time. */
  private failures = 0;
  private readonly balancer: NodeJS.Timeout;
  private readonly started = performance.now();
  private everReady = false;
  restarts = 0;
  /**
   * The store's quads as the endpoint answers now: counted by a copy that has applied every change
   * it was sent. A worker applies changes in the order sent, each before its next job, so any query
   * asked now is answered from that store; a copy still behind (busy with a long job while changes
   * came) counts an older one, and its count, the last to arrive, said the store shrank back.
   */
  quads = 0;
  /** Jobs sent to a worker busy with another (`sendNext`). */
  sentBehind = 0;
  /**
   * Changes an ingest run told of that its manifest may not name yet: a copy that opens reads the
   * manifest as it is, then loads those it does not name (unrecorded.ts). Dropped at the run's end.
   */
  private unrecorded: ChangedGraph[] = [];
  /** Why the last worker that tried could not open the store; cleared once one does. */
  private openError?: string;
  /** Graphs a copy could not load (left out of it), with why; each cleared once a later version loads. */
  private readonly notLoaded = new Map<string | null, string>();
  private readonly runaways: RecentRunaways;
  /** The event loop kept turning while a short job runs (awake.ts): a wake-up costs a point query a third of its time. */
  private readonly awake = new AwakeLoop(() => {
    const now = performance.now();
    return this.slots.some((s) => s.pending?.started !== undefined && now - s.pending.started < SHORT_JOB_MS);
  });

  constructor(private readonly options: PoolOptions) {
    this.runaways = new RecentRunaways(options.refuseRepeatMs ?? 120_000);
    this.spawn(true);
    if (options.size > 1) this.spawn(false);
    // Deadlines of running jobs and idle extras are checked on a tick, not only on messages.
    this.balancer = setInterval(() => this.balance(), 100);
    this.balancer.unref();
  }

  get stats() {
    const count = (...states: SlotState[]) => this.slots.filter((s) => states.includes(s.state)).length;
    return {
      /** The most copies open at once (`--workers`). */
      workers: this.options.size,
      /** Whether a second copy is kept open at rest (`--spare`). */
      spare: !!this.options.spare && this.options.size >= 2,
      /** Copies of the store open (answering) or opening now. */
      copies: count(...OPEN),
      ready: count('idle', 'busy'),
      busy: count('busy'),
      standby: count('standby') > 0,
      /** Set while no copy is open because the store cannot be opened. */
      openError: this.openError,
      /** Graphs left out of the copies because their files did not load: the store needs attention. */
      notLoaded: this.notLoaded.size ? [...this.notLoaded].map(([graph, problem]) => ({ graph, problem })) : undefined,
      queued: this.queue.length,
      queueLimit: this.options.queueLimit,
      restarts: this.restarts,
    };
  }

  /** While no copy is open: how far the first one has loaded; undefined once one answers. */
  get loading(): LoadProgress | undefined {
    if (this.slots.some((s) => s.state === 'idle' || s.state === 'busy')) return undefined;
    const slot = this.slots.find((s) => s.state === 'opening');
    const now = performance.now();
    const seconds = (now - (slot?.since ?? this.started)) / 1000;
    const { quads, of } = slot?.progress ?? { quads: 0, of: 0 };
    // Until a first graph is in, guess from nothing: a second.
    const remainingSeconds = quads > 0 && of > 0 ? (seconds * Math.max(0, of - quads)) / quads : Math.max(1, seconds);
    return { quads, of, seconds, remainingSeconds };
  }

  /** Resolves once a copy of the store is open. */
  whenReady(): Promise<void> {
    return new Promise((resolve) => {
      const check = () =>
        this.closed || this.slots.some((s) => s.state === 'idle' || s.state === 'busy') ? resolve() : setTimeout(check, 20);
      check();
    });
  }

  run(job: Job, timeoutMs = this.options.timeoutMs): Promise<JobResult> {
    if (this.closed) return Promise.reject(new HttpError(503, 'the server is shutting down'));
    const cut = this.runaways.lastCut(job, timeoutMs);
    if (cut) {
      this.options.onEvent?.({ kind: 'rejected', op: job.op });
      const wait = Math.max(1, Math.ceil(((this.options.refuseRepeatMs ?? 120_000) - cut.agoMs) / 1000));
      return Promise.reject(
        new HttpError(
          504,
          `this query ran longer than the timeout of ${secondsOf(cut.timeoutMs)} s ${Math.round(cut.agoMs / 1000)} s ago and was stopped; it is not run again for ${wait} s (stopping it closes a copy of the store)`,
        ),
      );
    }
    return new Promise<JobResult>((resolve, reject) => {
      const loading = this.loading;
      const pending: Pending = {
        id: this.nextId++,
        job,
        arrived: performance.now(),
        timeoutMs,
        arrivedWhileLoading: loading !== undefined,
        resolve,
        reject,
        timer: undefined as unknown as NodeJS.Timeout,
      };
      const slot = this.slots.find((s) => s.state === 'idle');
      if (slot) {
        pending.timer = setTimeout(() => this.deadline(pending), timeoutMs);
        return this.start(slot, pending);
      }
      // No copy answers and the store cannot be opened (at start, or after a cut, the file having
      // changed meanwhile): no worker will take the job before its deadline, so say so now.
      if (this.openError !== undefined && loading) {
        this.options.onEvent?.({ kind: 'rejected', op: job.op });
        return reject(this.cannotOpenError());
      }
      if (this.queue.length >= this.options.queueLimit) {
        this.options.onEvent?.({ kind: 'rejected', op: job.op });
        return reject(
          new HttpError(503, `the server is busy (${this.queue.length} requests waiting); try again shortly`, {
            'retry-after': this.retryAfter(),
          }),
        );
      }
      // The store cannot be open in time: say so now rather than at the deadline.
      if (loading && loading.remainingSeconds * 1000 > timeoutMs && loading.quads > 0) {
        this.options.onEvent?.({ kind: 'rejected', op: job.op });
        return reject(loadingError(loading));
      }
      pending.timer = setTimeout(() => this.deadline(pending), timeoutMs);
      this.queue.push(pending);
      for (const busy of this.slots) if (busy.state === 'busy') this.sendNext(busy);
      this.balance();
    });
  }

  /**
   * Sends a busy worker the first job waiting, when both are reads and jobs here are short (the
   * running one began under PIPELINE_MS ago, and the mean is under it): a long job never holds
   * another behind it, which a second copy of the store could answer.
   */
  private sendNext(slot: Slot): void {
    const waiting = this.queue[0];
    const running = slot.pending;
    if (slot.next || !waiting || !running || running.started === undefined) return;
    const short = this.options.pipelineMs ?? PIPELINE_MS;
    if (isWrite(waiting.job) || isWrite(running.job) || this.meanMs > short) return;
    if (performance.now() - running.started > short) return;
    this.queue.shift();
    this.sentBehind++;
    slot.next = waiting;
    slot.worker.postMessage({ type: 'job', id: waiting.id, job: waiting.job } satisfies ToWorker);
  }

  /**
   * Tells every open or opening copy but `except`'s to reload graphs that changed on disk. Those
   * not `recorded` (an ingest run's: its manifest names them only at its next batch) are kept
   * until `recorded()`, for a copy that opens meanwhile to load after the manifest it reads.
   */
  reload(graphs: ChangedGraph[], { recorded = true, except }: { recorded?: boolean; except?: Worker } = {}): void {
    if (!graphs.length) return;
    if (!recorded) this.unrecorded.push(...graphs);
    const message: ToWorker = { type: 'reload', graphs };
    for (const slot of this.slots)
      if (slot.worker !== except && OPEN.includes(slot.state)) {
        slot.worker.postMessage(message);
        slot.behind++;
      }
  }

  /**
   * The ingest run ended: its manifest names every graph it told of. One that `failed` may not (its
   * thread ended mid-run, or its manifest write failed and the files it wrote were removed): the
   * graphs it told of are loaded again as the manifest names them, so the copies open now hold what
   * a copy opened later does. The run's lock is held until this resolves: no later run's change
   * can come in between.
   */
  async recorded({ failed = false }: { failed?: boolean } = {}): Promise<void> {
    try {
      if (failed && this.unrecorded.length) this.reload(asNamedIn(await readManifest(this.options.storeDir), this.unrecorded));
    } finally {
      this.unrecorded = [];
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.balancer);
    for (const p of this.queue.splice(0)) this.settle(p, new HttpError(503, 'the server is shutting down'));
    await Promise.all(
      this.slots.map((s) => {
        if (s.pending) this.settle(s.pending, new HttpError(503, 'the server is shutting down'));
        if (s.next) this.settle(s.next, new HttpError(503, 'the server is shutting down'));
        s.state = 'dead';
        return s.worker.terminate();
      }),
    );
  }

  private retryAfter(): string {
    const ready = Math.max(1, this.stats.ready);
    return String(Math.max(1, Math.ceil(((this.queue.length + 1) * this.meanMs) / ready / 1000)));
  }

  private spawn(open: boolean): Slot {
    const init: WorkerInit = {
      entry: WORKER_ENTRY,
      storeDir: this.options.storeDir,
      soul: this.options.soul,
      open,
      unrecorded: open ? this.unrecorded : [],
      notLoaded: [...this.notLoaded.keys()],
    };
    // Without a heap limit a worker that runs out of memory thrashes instead of failing.
    const worker = new Worker(WORKER_BOOT, {
      workerData: init,
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    const slot: Slot = { worker, state: open ? 'opening' : 'booting', since: performance.now(), persisting: false, behind: 0 };
    worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    worker.on('error', (e: Error & { code?: string }) =>
      this.onDeath(slot, e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out of memory' : `crashed (${e.name})`),
    );
    worker.on('exit', () => this.onDeath(slot, 'exited'));
    this.slots.push(slot);
    return slot;
  }

  private enter(slot: Slot, state: SlotState): void {
    slot.state = state;
    slot.since = performance.now();
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    switch (m.type) {
      case 'booted':
        if (slot.state === 'booting') this.enter(slot, 'standby');
        this.balance();
        return;
      case 'progress':
        slot.progress = { quads: m.quads, of: m.of };
        return;
      case 'ready':
        if (slot.state !== 'opening') return;
        this.enter(slot, 'idle');
        this.failures = 0;
        this.openError = undefined;
        this.noteQuads(slot, m.quads);
        if (!this.everReady) {
          this.everReady = true;
          this.options.onEvent?.({ kind: 'ready', quads: m.quads, seconds: (performance.now() - this.started) / 1000 });
        }
        this.pump(slot);
        this.balance();
        return;
      case 'reloaded':
        slot.behind--;
        this.noteQuads(slot, m.quads);
        return;
      case 'graph-failed':
        // Every copy fails alike: said once.
        if (this.notLoaded.get(m.graph) !== m.problem) this.options.onEvent?.({ kind: 'reload-failed', message: m.problem });
        this.notLoaded.set(m.graph, m.problem);
        return;
      case 'graph-loaded':
        this.notLoaded.delete(m.graph);
        return;
      case 'init-failed':
        // Said once per cause; the exit that follows replaces the worker, after a pause.
        if (this.openError !== m.message) this.options.onEvent?.({ kind: 'open-failed', message: m.message });
        this.openError = m.message;
        // Jobs that came while it opened waited for it: with no copy open they are told now, as a
        // job arriving from here is, not at their deadline that the store was still loading.
        if (this.loading) for (const waiting of this.queue.splice(0)) this.settle(waiting, this.cannotOpenError());
        return;
      case 'persisting':
        if (slot.pending?.id === m.id) slot.persisting = true;
        return;
      case 'done':
      case 'failed': {
        const pending = slot.pending;
        if (!pending || pending.id !== m.id) return;
        this.awake.answered();
        slot.pending = undefined;
        slot.persisting = false;
        const next = slot.next;
        slot.next = undefined;
        if (next && !(m.type === 'failed' && m.fatal)) {
          // The worker went straight on to the job sent behind this one.
          slot.pending = next;
          next.started = performance.now();
          // Refused while it waited, it still runs there: it is stopped if it runs past its time.
          if (next.settled) next.timer = setTimeout(() => this.deadline(next), next.timeoutMs);
        } else {
          if (next) this.requeue(next);
          this.enter(slot, 'idle');
        }
        if (m.type === 'done') {
          if (m.quads !== undefined) this.noteQuads(slot, m.quads);
          // Other copies hear of a write before they can take another job, so no later read misses it.
          if (m.result.changed?.length) this.reload(m.result.changed, { except: slot.worker });
          this.settle(pending, m.result);
        } else this.settle(pending, new HttpError(m.status, m.message, m.headers));
        if (m.type === 'failed' && m.fatal) this.replace(slot, 'the store failed inside a job');
        else if (slot.pending) this.sendNext(slot);
        else this.pump(slot);
        this.balance();
      }
    }
  }

  /** A copy's count, taken as the store's once that copy has applied every change it was sent. */
  private noteQuads(slot: Slot, quads: number): void {
    if (slot.behind > 0) return;
    this.quads = quads;
    this.options.onEvent?.({ kind: 'store', quads });
  }

  private onDeath(slot: Slot, reason: string): void {
    if (slot.state === 'dead' || this.closed) return;
    if (slot.next) this.requeue(slot.next);
    slot.next = undefined;
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
    if (slot.state === 'booting' || slot.state === 'opening') this.failures++;
    this.replace(slot, reason);
  }

  /** Ends a worker; the standby (or a new worker) opens the store if no other copy is open. */
  private replace(slot: Slot, reason: string): void {
    if (this.closed || !this.slots.includes(slot)) return;
    this.drop(slot);
    this.restarts++;
    this.options.onEvent?.({ kind: 'restart', reason });
    if (this.failures) {
      const retry = setTimeout(() => this.balance(), Math.min(30_000, 500 * 2 ** this.failures));
      retry.unref();
    } else this.balance();
  }

  private drop(slot: Slot): void {
    slot.state = 'dead';
    void slot.worker.terminate();
    this.slots = this.slots.filter((s) => s !== slot);
  }

  /**
   * Keeps the copies to what is needed: one open (or opening) always; a second while a job holds
   * the first too long; a booted standby while fewer than `size` are open; nothing idle beyond one.
   */
  private balance(): void {
    if (this.closed) return;
    const now = performance.now();
    const open = this.slots.filter((s) => OPEN.includes(s.state));
    const idle = open.filter((s) => s.state === 'idle');
    const opening = open.filter((s) => s.state === 'opening');
    const waiting = this.queue.length > 0 || this.slots.some((s) => s.next);
    if (waiting) this.busySince = now;
    // Whether or not anything waits yet: the copy must be open before the job's deadline cuts the first.
    const held = (s: Slot) =>
      s.state === 'busy' &&
      s.pending?.started !== undefined &&
      (now - s.pending.started >= (this.options.standbyAfterMs ?? 500) || now - s.pending.arrived >= s.pending.timeoutMs / 2);
    const slow = open.some(held);
    if (slow) this.busySince = now;
    // A respawn after failures waits for its pause; balance runs again then.
    const mayStart = !this.failures || now - this.lastSpawn >= Math.min(30_000, 500 * 2 ** this.failures);

    // The copies kept at rest: one, or two with a spare (once the first is open). A spare is kept
    // free of long jobs: while one holds a copy another opens, so that a runaway sent right after
    // another's cut finds a copy to hold while cheap queries still find one.
    const atRest = this.options.spare && this.options.size >= 2 ? 2 : 1;
    const spareMissing =
      atRest > 1 && this.everReady && !opening.length && open.length < this.options.size && open.filter((s) => !held(s)).length < atRest;
    if (!open.length || spareMissing || (slow && !idle.length && !opening.length && open.length < this.options.size)) {
      const standby = this.slots.find((s) => s.state === 'standby');
      if (standby) this.openStore(standby);
      else if (mayStart && !this.slots.some((s) => s.state === 'booting')) this.spawnNow(true);
    } else if (!waiting && !slow) {
      // Nothing needs more than the copies kept at rest: abandon copies still opening, retire idle extras.
      const answering = open.filter((s) => s.state === 'idle' || s.state === 'busy');
      if (answering.length >= atRest) for (const s of opening) this.drop(s);
      const extras = answering.length - atRest;
      const retirable = idle.filter((s) => now - s.since >= (this.options.retireAfterMs ?? 2000)).slice(0, Math.max(0, extras));
      for (const s of retirable) this.drop(s);
      // A copy kept, opened as a standby, sets shared triples aside once it is idle and nothing has
      // run long or waited for a while: done at the cut, it held up the first query after it (4.5 s
      // on the corpus).
      if (answering.length <= atRest)
        for (const kept of answering) {
          const calm = now - Math.max(this.busySince, kept.since) >= (this.options.retireAfterMs ?? 2000);
          if (kept.state === 'idle' && kept.asideDue && calm) {
            kept.asideDue = false;
            kept.worker.postMessage({ type: 'set-aside' } satisfies ToWorker);
          }
        }
    }
    const openNow = this.slots.filter((s) => OPEN.includes(s.state)).length;
    const warm = this.slots.some((s) => s.state === 'standby' || s.state === 'booting');
    if (!warm && openNow < this.options.size && openNow > 0 && mayStart) this.spawnNow(false);
  }

  private lastSpawn = 0;
  /** When something last waited or ran long (balance saw it): the kept copy sets triples aside only after a calm. */
  private busySince = 0;

  private spawnNow(open: boolean): void {
    this.lastSpawn = performance.now();
    this.spawn(open);
  }

  private openStore(slot: Slot): void {
    this.enter(slot, 'opening');
    slot.asideDue = true;
    slot.worker.postMessage({ type: 'open', unrecorded: this.unrecorded, notLoaded: [...this.notLoaded.keys()] } satisfies ToWorker);
  }

  /** A job sent to a worker that ended (or stopped its job) before beginning it: first in line again. */
  private requeue(pending: Pending): void {
    if (pending.settled) return;
    pending.started = undefined;
    this.queue.unshift(pending);
    for (const slot of this.slots) if (slot.state === 'idle') this.pump(slot);
  }

  private pump(slot: Slot): void {
    const next = this.queue.shift();
    if (next) this.start(slot, next);
  }

  private start(slot: Slot, pending: Pending): void {
    this.awake.started();
    this.enter(slot, 'busy');
    slot.pending = pending;
    pending.started = performance.now();
    slot.worker.postMessage({ type: 'job', id: pending.id, job: pending.job } satisfies ToWorker);
  }

  private deadline(pending: Pending): void {
    const { timeoutMs } = pending;
    const seconds = (timeoutMs / 1000).toFixed(timeoutMs % 1000 ? 1 : 0);
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.options.onEvent?.({ kind: 'timeout', op: pending.job.op, where: 'queue' });
      const loading = this.loading;
      this.settle(
        pending,
        loading && this.openError !== undefined
          ? this.cannotOpenError()
          : pending.arrivedWhileLoading && loading
            ? loadingError(loading)
            : this.busyError(seconds),
      );
      return;
    }
    if (this.slots.some((s) => s.next === pending)) {
      // Sent to a worker but not begun: refused as a queued job is; its result, if it comes, is dropped.
      this.options.onEvent?.({ kind: 'timeout', op: pending.job.op, where: 'queue' });
      this.settle(pending, this.busyError(seconds));
      return;
    }
    const slot = this.slots.find((s) => s.pending === pending);
    if (!slot || slot.persisting) return; // finished meanwhile, or saving a write: let it finish
    if (slot.next) this.requeue(slot.next);
    slot.next = undefined;
    slot.pending = undefined;
    this.options.onEvent?.({ kind: 'timeout', op: pending.job.op, where: 'running' });
    this.runaways.note(pending.job, pending.timeoutMs);
    const what = isWrite(pending.job) ? 'update' : 'query';
    this.settle(pending, new HttpError(504, `the ${what} ran longer than the timeout of ${seconds} s and was stopped`));
    this.replace(slot, 'timeout');
  }

  private cannotOpenError(): HttpError {
    return new HttpError(503, CANNOT_OPEN, { 'retry-after': this.retryAfter() });
  }

  private busyError(seconds: string): HttpError {
    return new HttpError(503, `the server was busy for the whole timeout of ${seconds} s; try again shortly`, {
      'retry-after': this.retryAfter(),
    });
  }

  private settle(pending: Pending, outcome: JobResult | HttpError): void {
    clearTimeout(pending.timer);
    if (pending.settled) return;
    pending.settled = true;
    const ms = performance.now() - pending.arrived;
    this.meanMs = this.meanMs * 0.9 + ms * 0.1;
    this.options.onEvent?.({ kind: 'finished', op: pending.job.op, status: outcome.status, seconds: ms / 1000 });
    if (outcome instanceof HttpError) pending.reject(outcome);
    else pending.resolve(outcome);
  }
}

function secondsOf(ms: number): string {
  return (ms / 1000).toFixed(ms % 1000 ? 1 : 0);
}

/** What a request is told while no copy is open and the last to try could not open the store: why, where, and what to do. */
export const CANNOT_OPEN =
  'the store cannot be opened (the server log says which file and why); weave verify --self checks its files; weave ingest --rebuild, then weave detect, write its graphs again';

/** The one 503 a load in progress gives: how far it is, and when to come back. */
function loadingError(loading: LoadProgress): HttpError {
  const left = Math.max(1, Math.ceil(loading.remainingSeconds));
  const done = loading.of ? ` (${Math.floor((100 * loading.quads) / loading.of)}% of ${loading.of.toLocaleString('en')} quads)` : '';
  return new HttpError(503, `the store is still loading${done}; it should answer in about ${left} s`, { 'retry-after': String(left) });
}
