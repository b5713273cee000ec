import { basename } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/**
 * Watching the folders transcripts are read from, for `weave serve` and `weave ingest --watch`:
 * the platform's file events (through chokidar), gathered for a moment so that a burst of
 * appends is one read, and polling (a stat of every file each `pollMs`) where events do not
 * arrive: when the watcher fails (too many folders for inotify, say), or when the caller finds
 * changes no event told of (`poll()`).
 */

interface WatchOptions {
  /** Called with what changed, at most once each `settleMs`. */
  onChange(paths: string[]): void;
  /** How long to gather events before telling (default 100 ms). */
  settleMs?: number;
  /** Poll from the start. */
  poll?: boolean;
  pollMs?: number;
  /** Told when the watcher falls back to polling, and why. */
  onNote?(note: string): void;
}

export interface SourceWatcher {
  /** Resolves once the folders are watched (the first walk is done). */
  readonly ready: Promise<void>;
  readonly polling: boolean;
  /** Events do not arrive here: watch by polling from now on. */
  poll(why: string): Promise<void>;
  close(): Promise<void>;
}

/** Folders that hold no transcripts and can be huge. */
const SKIPPED = new Set(['node_modules', '.git', 'tool-results']);

export function watchSources(roots: string[], options: WatchOptions): SourceWatcher {
  const settleMs = options.settleMs ?? 100;
  let changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  let polling = !!options.poll;
  let closed = false;
  let ready!: Promise<void>;

  const tell = () => {
    timer = undefined;
    const paths = [...changed];
    changed = new Set();
    if (paths.length && !closed) options.onChange(paths);
  };
  const seen = (path: string) => {
    changed.add(path);
    timer ??= setTimeout(tell, settleMs);
  };
  const start = () => {
    watcher = watch(roots, {
      ignoreInitial: true,
      usePolling: polling,
      interval: options.pollMs ?? 1000,
      binaryInterval: options.pollMs ?? 1000,
      // Claude Code appends in place; nothing waits for a write to finish (a half-written last line is read as pending).
      awaitWriteFinish: false,
      ignored: (path, stats) => SKIPPED.has(basename(path)) || (!!stats?.isFile() && !/\.jsonl?$/.test(path)),
    });
    for (const event of ['add', 'change', 'unlink'] as const) watcher.on(event, seen);
    watcher.on('error', (e) => {
      if (polling || closed) return;
      void self.poll(`file events failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    });
    ready = new Promise((resolve) => watcher.once('ready', () => resolve()));
  };

  const self: SourceWatcher = {
    get ready() {
      return ready;
    },
    get polling() {
      return polling;
    },
    async poll(why) {
      if (polling || closed) return;
      polling = true;
      options.onNote?.(`${why}: watching by polling every ${((options.pollMs ?? 1000) / 1000).toFixed(1)} s`);
      await watcher.close();
      start();
      await ready;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
    },
  };
  start();
  return self;
}
