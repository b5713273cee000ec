import { Worker } from 'node:worker_threads';
import type { Dialect } from '../../dialect/dialect.ts';
import type { ContentPolicy } from '../../emit/content.ts';
import type { IngestProgress } from '../../ingest.ts';
import type { ChangedGraph, FromIngest, IngestWorkerInit, ToIngest } from '../messages.ts';
import type { Mutex } from './mutex.ts';

/**
 * Runs on the main thread; the reading itself is done by the ingest thread (ingest-worker.ts).
 * Keeps the store current with the transcripts: a first ingest at start, then again every
 * `refreshMs` (a run over unchanged files only stats them). Each session graph it rewrites is
 * handed to `onGraphs` at once, so queries see a session as soon as it lands.
 */

export interface IngestStatus {
  state: 'waiting' | 'ingesting' | 'ready' | 'failed';
  /** Why these sources (the bundled fixtures, when there are no transcripts). */
  note?: string;
  paths: string[];
  runs: number;
  /** A later run is checking the sources for new or grown sessions. */
  refreshing: boolean;
  progress?: IngestProgress;
  startedAt?: string;
  finishedAt?: string;
  last?: Extract<FromIngest, { type: 'done' }>['report'];
  problems: number;
  error?: string;
}

export interface IngesterOptions {
  paths: string[];
  note?: string;
  content?: ContentPolicy;
  /** Run the readers after each run, as `weave ingest` does. */
  detect: boolean;
  /** The dialects reading the sources (default src/dialect/index.ts); the thread loads them by module URL. */
  dialects?: readonly Dialect[];
  storeDir: string;
  soul: string;
  lock: Mutex;
  refreshMs: number;
  onGraphs: (graphs: ChangedGraph[]) => void;
  /** Where a line could not be read (never what it said). */
  onProblem?: (where: string) => void;
}

const BOOT = new URL('./boot.mjs', import.meta.url);
const ENTRY = new URL('./ingest-worker.ts', import.meta.url).href;

export class Ingester {
  readonly status: IngestStatus;
  private worker?: Worker;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private current?: { resolve(): void };
  /** The first run's end, for callers that want the whole store before they go on. */
  readonly firstRun: Promise<void>;
  private firstRunDone!: () => void;

  constructor(private readonly options: IngesterOptions) {
    this.status = { state: 'waiting', note: options.note, paths: options.paths, runs: 0, refreshing: false, problems: 0 };
    this.firstRun = new Promise((resolve) => (this.firstRunDone = resolve));
  }

  start(): void {
    const { paths, storeDir, soul, content, detect, dialects } = this.options;
    const init: IngestWorkerInit = { entry: ENTRY, paths, storeDir, soul, content, detect, dialects: dialects?.map((d) => d.module) };
    this.worker = new Worker(BOOT, { workerData: init, execArgv: [] });
    this.worker.on('message', (m: FromIngest) => this.onMessage(m));
    this.worker.on('error', (e) => this.fail(`the ingest thread crashed (${e.name})`));
    this.worker.unref();
    void this.run();
  }

  /** One ingest run, holding the store lock so no HTTP write rewrites the manifest meanwhile. */
  run(): Promise<void> {
    return this.options.lock.run(
      () =>
        new Promise<void>((resolve) => {
          if (this.closed || !this.worker) return resolve();
          this.current = { resolve };
          if (this.status.runs === 0) this.status.state = 'ingesting';
          this.status.refreshing = this.status.runs > 0;
          this.status.startedAt = new Date().toISOString();
          this.status.progress = undefined;
          this.worker.postMessage({ type: 'run' } satisfies ToIngest);
        }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.current?.resolve();
    await this.worker?.terminate();
  }

  private onMessage(m: FromIngest): void {
    switch (m.type) {
      case 'progress':
        this.status.progress = m.progress;
        return;
      case 'session':
        this.options.onGraphs([{ graph: m.graph, file: m.file }]);
        return;
      case 'problem':
        this.status.problems++;
        this.options.onProblem?.(`${m.path}${m.lineNo ? `:${m.lineNo}` : ''}: ${m.kind}`);
        return;
      case 'reader-problem':
        this.status.problems++;
        this.options.onProblem?.(`session ${m.sessionId}: the reader ${m.reader ?? '(all)'} failed; its last findings stay`);
        return;
      case 'done':
        this.status.last = m.report;
        this.status.error = undefined;
        this.finish('ready');
        return;
      case 'error':
        this.status.error = m.message;
        this.finish('failed');
    }
  }

  private fail(message: string): void {
    this.status.error = message;
    this.worker = undefined;
    this.finish('failed');
  }

  private finish(state: IngestStatus['state']): void {
    this.status.state = state;
    this.status.refreshing = false;
    this.status.runs++;
    this.status.finishedAt = new Date().toISOString();
    this.current?.resolve();
    this.current = undefined;
    this.firstRunDone();
    if (!this.closed && this.worker && this.options.refreshMs > 0) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.run(), this.options.refreshMs);
      this.timer.unref();
    }
  }
}
