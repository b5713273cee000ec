import { isAbsolute, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Dialect } from '../../dialect/dialect.ts';
import type { ContentPolicy } from '../../emit/content.ts';
import type { IngestProgress } from '../../ingest.ts';
import type { ChangedGraph, FromIngest, IngestWorkerInit, ToIngest } from '../messages.ts';
import type { Mutex } from './mutex.ts';
import { watchSources, type SourceWatcher } from '../../acquire/watch.ts';
import { allOwn } from '../../dialect/index.ts';

/**
 * Runs on the main thread; the reading itself is done by the ingest thread (ingest-worker.ts).
 * Keeps the store current with the transcripts: a first ingest at start; then, with `watch`, a
 * run as soon as the file events say a source changed (grown sessions are carried on: only their
 * new lines are read), the readers once the sources have been quiet for `quietMs`; and a run every
 * `refreshMs` whatever the events say (a run over unchanged files only stats them). Where that
 * finds changes no event told of, the watcher polls instead. Each session graph it rewrites is
 * handed to `onGraphs` at once, so queries see a session as soon as it lands.
 */

interface IngestStatus {
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
  /** How changes are seen: file events, polling, or only the refresh every `refreshMs`. */
  watching: 'events' | 'polling' | 'off';
  /** When the watcher last saw a source change. */
  changeSeenAt?: string;
}

interface IngesterOptions {
  paths: string[];
  note?: string;
  content?: ContentPolicy;
  /** Run the readers after each run, as `weave ingest` does. */
  detect: boolean;
  /** Keep a copy of what is read in the store's archive (default true). */
  archive?: boolean;
  /** The dialects reading the sources (default src/dialect/index.ts); the thread loads them by module URL. */
  dialects?: readonly Dialect[];
  storeDir: string;
  soul: string;
  lock: Mutex;
  refreshMs: number;
  /** Watch the sources and read what changes at once. */
  watch?: boolean;
  /** How long the sources must be quiet before the readers run on what changed (default 3 s). */
  quietMs?: number;
  /** Graphs a run wrote, as it writes them: its manifest names them only at its next batch or at its end. */
  onGraphs: (graphs: ChangedGraph[]) => void;
  /**
   * A run ended (or its thread did): the manifest names every graph it is to name; one that
   * `failed` perhaps not all it told of. The store stays locked until what this returns settles.
   */
  onRunEnd?: (run: { failed: boolean }) => void | Promise<void>;
  /** Told when the watcher falls back to polling. */
  onNote?: (note: string) => void;
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
  private current?: { resolve(): void; byTimer: boolean };
  private watcher?: SourceWatcher;
  /** A run asked for that has not started yet: more changes join it. */
  private queued?: Promise<void>;
  private quiet?: NodeJS.Timeout;
  /** Watcher events since the last run began. */
  private eventsSinceRun = 0;
  /** The first run's end, for callers that want the whole store before they go on. */
  readonly firstRun: Promise<void>;
  private firstRunDone!: () => void;

  constructor(private readonly options: IngesterOptions) {
    this.status = { state: 'waiting', note: options.note, paths: options.paths, runs: 0, refreshing: false, problems: 0, watching: 'off' };
    this.firstRun = new Promise((resolve) => (this.firstRunDone = resolve));
  }

  start(): void {
    const { paths, storeDir, soul, content, detect, dialects, archive } = this.options;
    const init: IngestWorkerInit = {
      entry: ENTRY,
      paths,
      storeDir,
      soul,
      content,
      detect,
      archive,
      dialects: dialects?.map((d) => d.module),
    };
    init.typescript = !allOwn(init.dialects ?? []);
    this.worker = new Worker(BOOT, { workerData: init, execArgv: [] });
    this.worker.on('message', (m: FromIngest) => this.onMessage(m));
    this.worker.on('error', (e) => this.fail(`the ingest thread crashed (${e.name})`));
    this.worker.unref();
    void this.run();
    if (this.options.watch) void this.firstRun.then(() => this.watch());
  }

  /** Watches the sources (after the first run: it has read what is there). */
  private async watch(): Promise<void> {
    if (this.closed) return;
    this.watcher = watchSources(this.options.paths, {
      onChange: () => this.changed(),
      onNote: (note) => {
        this.status.watching = 'polling';
        this.options.onNote?.(note);
      },
    });
    await this.watcher.ready;
    if (this.closed) await this.watcher.close();
    else this.status.watching = this.watcher.polling ? 'polling' : 'events';
  }

  /** A source changed: read it now (without the readers), and the readers once things are quiet. */
  private changed(): void {
    this.eventsSinceRun++;
    this.status.changeSeenAt = new Date().toISOString();
    void this.run({ detect: false });
    clearTimeout(this.quiet);
    if (this.options.detect) {
      this.quiet = setTimeout(() => void this.run({ detect: true }), this.options.quietMs ?? 3000);
      this.quiet.unref();
    }
  }

  /**
   * One ingest run, holding the store lock so no HTTP write rewrites the manifest meanwhile. A
   * run asked for while another waits to start is that one. `detect` false skips the readers.
   */
  run({ detect, byTimer = false }: { detect?: boolean; byTimer?: boolean } = {}): Promise<void> {
    if (this.queued && detect === false) return this.queued;
    const queued = this.options.lock.run(
      () =>
        new Promise<void>((resolve) => {
          if (this.queued === queued) this.queued = undefined;
          if (this.closed || !this.worker) return resolve();
          this.current = { resolve, byTimer };
          this.eventsSinceRun = 0;
          if (this.status.runs === 0) this.status.state = 'ingesting';
          this.status.refreshing = this.status.runs > 0;
          this.status.startedAt = new Date().toISOString();
          this.status.progress = undefined;
          this.worker.postMessage({ type: 'run', detect } satisfies ToIngest);
        }),
    );
    this.queued = queued;
    return queued;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.quiet);
    this.current?.resolve();
    await this.watcher?.close();
    await this.worker?.terminate();
  }

  private onMessage(m: FromIngest): void {
    switch (m.type) {
      case 'progress':
        this.status.progress = m.progress;
        return;
      case 'session':
        this.options.onGraphs([{ graph: m.graph, files: m.files, delta: m.delta }]);
        return;
      case 'problem':
        this.status.problems++;
        this.options.onProblem?.(`${inSources(m.path, this.options.paths)}${m.lineNo ? `:${m.lineNo}` : ''}: ${m.kind}`);
        return;
      case 'note':
        this.options.onNote?.(m.note);
        return;
      case 'reader-problem':
        this.status.problems++;
        this.options.onProblem?.(`session ${m.sessionId}: the reader ${m.reader ?? '(all)'} failed; its last findings stay`);
        return;
      case 'done':
        this.status.last = m.report;
        this.status.error = undefined;
        // The refresh found changes no file event told of: events do not arrive here.
        if (this.current?.byTimer && m.report.sessions > 0 && this.eventsSinceRun === 0 && this.watcher && !this.watcher.polling)
          void this.watcher.poll('sources changed without a file event');
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
    const current = this.current;
    this.current = undefined;
    // The copies catch up with the manifest before another run (or an HTTP write) may change it.
    void Promise.resolve()
      .then(() => this.options.onRunEnd?.({ failed: state === 'failed' }))
      .catch((e) => this.options.onNote?.(`after an ingest run: ${(e as Error).message}`))
      .finally(() => {
        current?.resolve();
        this.firstRunDone();
      });
    if (!this.closed && this.worker && this.options.refreshMs > 0) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.run({ byTimer: true }), this.options.refreshMs);
      this.timer.unref();
    }
  }
}

/** A file named from the source folder that holds it (the user knows which that is), so a problem line stays short. */
export function inSources(path: string, sources: readonly string[]): string {
  for (const source of sources) {
    const rel = relative(source, path);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
  }
  return path;
}
