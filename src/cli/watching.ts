import { watchSources } from '../acquire/watch.ts';

/**
 * `weave ingest --watch`: after the first run, a run as soon as the file events say a source
 * changed (grown sessions are carried on: only their new lines are read), one at a time, and the
 * readers once the sources have been quiet for `quietMs`, until SIGINT or SIGTERM.
 */
export async function keepReading(
  paths: string[],
  run: (readers: boolean) => Promise<void>,
  { quietMs = 3000, log }: { quietMs?: number; log: (line: string) => void },
): Promise<void> {
  let chain = Promise.resolve();
  let queued = false;
  let quiet: NodeJS.Timeout | undefined;
  const enqueue = (readers: boolean) => {
    if (!readers && queued) return;
    if (!readers) queued = true;
    chain = chain
      .then(() => {
        if (!readers) queued = false;
        return run(readers);
      })
      .catch((e) => log(`a run failed: ${(e as Error).message}`));
  };
  const watcher = watchSources(paths, {
    onChange: () => {
      enqueue(false);
      clearTimeout(quiet);
      quiet = setTimeout(() => enqueue(true), quietMs);
    },
    onNote: log,
  });
  await watcher.ready;
  log(`watching ${paths.join(', ')} (${watcher.polling ? 'polling' : 'file events'}); Ctrl-C ends it`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  clearTimeout(quiet);
  await watcher.close();
  await chain;
}
