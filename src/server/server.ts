import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { RemoteStore, tellOfCut } from '../store/remote/client.ts';
import { isCutsNote } from '../store/remote/results.ts';
import { readRemoteConfig } from '../store/remote/config.ts';
import { buildOf, changedSince, watchBuild } from './build.ts';
import { findServer, readRunFile, removeRunFile, stopResident, writeRunFile } from '../store/running.ts';
import { StoreFollower } from './follow.ts';
import { IdleWatch } from './idle.ts';
import type { StoreBackend } from './backend.ts';
import { RemoteBackend } from './remote-backend.ts';
import { isLoopback, type ServerConfig } from './config.ts';
import { buildApp } from './http/app.ts';
import type { ServerContext } from './http/context.ts';
import { Metrics } from './http/metrics.ts';
import { StatsCache } from './http/stats-cache.ts';
import { StoreSummary } from './http/store-summary.ts';
import type { DatasetStats } from './messages.ts';
import { Ingester } from './workers/ingester.ts';
import { Mutex } from './workers/mutex.ts';
import { QueryPool, type PoolEvent } from './workers/pool.ts';
import type { StoreLock } from '../store/lock.ts';
import { lockStore } from '../store/writer.ts';

/**
 * Starts `weave serve` (on the main thread): listens at once, opens the store in a query worker,
 * writes the run file that commands find it by (`store/running.ts`), and (when sources are given) ingests them in the background, each session visible as
 * soon as it lands. Here the two halves meet: http/ answers requests, workers/ runs the threads.
 */

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  ctx: ServerContext;
  /** Resolves when a copy of the store is open, with how long that took from the start. */
  ready: Promise<{ quads: number; seconds: number }>;
  close(): Promise<void>;
}

export async function startServer(config: ServerConfig): Promise<RunningServer> {
  if (!isLoopback(config.host) && !config.token)
    throw new Error(
      `listening on ${config.host} exposes every transcript to the network; give a token (--token or WEAVE_TOKEN) or bind 127.0.0.1`,
    );
  if (config.allowUpdate && !config.token)
    throw new Error('--allow-update needs a token (--token or WEAVE_TOKEN): writes are only accepted with it');
  // Federation joins sources with a store held here (federation/engine.ts): an external store
  // would answer without them, not a word said, as weave query refuses to.
  const external = config.serviceAllow?.length ? await readRemoteConfig(config.storeDir) : undefined;
  if (external)
    throw new Error(
      `--service-allow needs a store held here: federated queries join it in Weave's engine, and this store lives in the external store ${external.endpoint}`,
    );
  let running = await findServer(config.storeDir);
  // A resident server a command started gives way to one started on purpose.
  if (running?.startedBy && !config.startedBy) {
    config.log(`stopping the resident server a command started for this store (pid ${running.pid}), to take the store over`);
    if (await stopResident(running.pid)) running = undefined;
  }
  if (running)
    throw new Error(
      `a server for the store ${config.storeDir} already runs at ${running.url} (pid ${running.pid}); stop it or use another --store`,
    );
  // Commands that find this server through its run file send this token; on loopback reads need none.
  const token = (config.token ??= randomBytes(24).toString('base64url'));

  // A server that writes the store (ingest, or writes over HTTP) holds its lock while it runs.
  const storeLock =
    config.ingest || config.allowUpdate ? await lockStore(config.storeDir, { onNote: (note) => config.log(note) }) : undefined;
  try {
    return await start({ ...config, token }, storeLock);
  } catch (e) {
    await storeLock?.release();
    throw e;
  }
}

async function start(config: ServerConfig & { token: string }, storeLock: StoreLock | undefined): Promise<RunningServer> {
  const metrics = new Metrics();
  const lock = new Mutex();
  let opened!: (ready: { quads: number; seconds: number }) => void;
  const ready = new Promise<{ quads: number; seconds: number }>((resolve) => (opened = resolve));
  const onEvent = (e: PoolEvent) => {
    if (e.kind === 'finished') {
      metrics.operations.inc({ op: e.op, status: e.status });
      metrics.durations.observe({ op: e.op }, e.seconds);
    } else if (e.kind === 'timeout') metrics.timeouts.inc({ op: e.op, where: e.where });
    else if (e.kind === 'rejected') metrics.rejected.inc({ op: e.op });
    else if (e.kind === 'restart') metrics.restarts.inc({ reason: e.reason });
    else if (e.kind === 'ready') opened({ quads: e.quads, seconds: e.seconds });
    else if (e.kind === 'reload-failed')
      config.log(`a graph did not load and is left out until its next version (weave verify --self checks the store): ${e.message}`);
    else if (e.kind === 'open-failed') {
      config.log(`a query worker cannot open the store: ${e.message}`);
      // A resident server that cannot open its store is no use: the command opens it and says why.
      if (config.startedBy) config.onIdle?.('the store cannot be opened');
    }
  };
  // The one place that decides where jobs run: this server's copy of the store, or an external store.
  const remote = await readRemoteConfig(config.storeDir);
  // Nothing here writes the store: another process may, and each request sees what it wrote.
  // The manifest is seen before the workers open the store, so nothing written meanwhile is missed.
  const follower =
    !remote && !config.ingest && !config.allowUpdate
      ? new StoreFollower(config.storeDir, (graphs) => {
          pool.reload(graphs);
          stats.invalidate();
        })
      : undefined;
  await follower?.start();
  const external = remote && new RemoteStore(remote);
  // Heard at start, not first from a page that fails.
  // The server and the ingest it runs (in a thread of its own) each ask the store: said once.
  const saidOfCut = new Set<string>();
  const noteOfCut = (note: string) => {
    if (saidOfCut.has(note)) return;
    saidOfCut.add(note);
    config.log(note);
  };
  if (external) void tellOfCut(external, noteOfCut);
  const pool: StoreBackend = external
    ? new RemoteBackend(external, { timeoutMs: config.timeoutMs, onEvent })
    : new QueryPool({
        size: config.workers,
        spare: config.spare,
        storeDir: config.storeDir,
        soul: config.soul,
        timeoutMs: config.timeoutMs,
        queueLimit: config.queueLimit,
        // Room for a result at the limit, its UTF-8 copy and the JSON work around it.
        heapMb: Math.max(1024, Math.ceil((config.maxResultBytes / 1e6) * 4)),
        onEvent,
      });
  const stats = new StatsCache(async () => (await pool.run({ op: 'stats' })).data as DatasetStats);
  const ingester = config.ingest
    ? new Ingester({
        ...config.ingest,
        detect: config.ingest.detect ?? true,
        storeDir: config.storeDir,
        soul: config.soul,
        lock,
        onGraphs: (graphs) => {
          pool.reload(graphs, { recorded: false });
          stats.invalidate();
        },
        onRunEnd: ({ failed }) => pool.recorded({ failed }),
        onProblem: (where) => config.log(`ingest: ${where}`),
        onNote: (note) => (isCutsNote(note) ? noteOfCut(note) : config.log(note)),
      })
    : undefined;
  const idle = config.idleExitSeconds
    ? new IdleWatch(
        config.idleExitSeconds * 1000,
        (reason) => config.onIdle?.(reason),
        config.startedBy ? async () => (await readRunFile(config.storeDir))?.pid === process.pid : undefined,
      )
    : undefined;
  const ctx: ServerContext = {
    config,
    pool,
    lock,
    metrics,
    stats,
    summary: new StoreSummary(config.storeDir),
    ingester,
    follower,
    idle,
  };
  registerGauges(ctx);

  const app = buildApp(ctx);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    idle?.close();
    await pool.close();
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new Error(`port ${config.port} on ${config.host} is in use; choose another with --port`);
    throw e;
  }
  // Ingest starts once workers have loaded the store, so a session landing meanwhile is not read twice.
  if (ingester) void pool.whenReady().then(() => ingester.start());

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}/`;
  try {
    await writeRunFile(config.storeDir, {
      pid: process.pid,
      url,
      token: config.token,
      startedAt: new Date().toISOString(),
      ...(config.startedBy && { startedBy: config.startedBy }),
      ...(config.idleExitSeconds && { idleExitSeconds: config.idleExitSeconds }),
      // Commands ask it their federated queries when it allows what they name (client/query.ts).
      ...(config.serviceAllow?.length && { serviceAllow: config.serviceAllow }),
      build: await buildOf(),
    });
  } catch (e) {
    // Commands then open the store themselves; the server still serves.
    config.log(`cannot write the run file: ${(e as Error).message}`);
  }
  idle?.start();
  // A resident server gives way to one of Weave as it now is, started by the next command.
  const changed = (file: string) =>
    idle?.stopNow(`Weave's own files changed since it started (${file}); the next command starts a server of them`);
  const unwatch =
    config.startedBy && idle
      ? watchBuild(changed, (why) => config.log(`Weave's own files cannot be watched (${why}): an upgrade takes once this server stops`))
      : undefined;
  // A file written after this process started and before the watch did (while it loaded its code,
  // opened the store, began to listen) would go unseen until the next change: looked for once.
  if (unwatch)
    void changedSince().then(
      (file) => file && changed(file),
      () => undefined,
    );
  return {
    url,
    app,
    ctx,
    ready,
    async close() {
      idle?.close();
      unwatch?.();
      await removeRunFile(config.storeDir).catch(() => undefined);
      await ingester?.close();
      // Together: a request waiting for a copy of the store (one still loading, or one that cannot
      // open) is answered 503 at once, rather than holding the app's close until its deadline.
      await Promise.all([app.close(), pool.close()]);
      await storeLock?.release();
    },
  };
}

function registerGauges(ctx: ServerContext): void {
  const { metrics, pool, ingester, summary } = ctx;
  metrics.gauge({
    name: 'weave_workers',
    help: 'Query workers, by state.',
    read: () => [
      { labels: { state: 'ready' }, value: pool.stats.ready },
      { labels: { state: 'busy' }, value: pool.stats.busy },
      { labels: { state: 'configured' }, value: pool.stats.workers },
    ],
  });
  metrics.gauge({ name: 'weave_store_copies', help: 'Copies of the store open or opening (one at rest).', read: () => pool.stats.copies });
  metrics.gauge({ name: 'weave_queue_length', help: 'Jobs waiting for a free worker.', read: () => pool.stats.queued });
  metrics.gauge({ name: 'weave_store_quads', help: 'Quads in the store (all graphs, the ontology included).', read: () => pool.quads });
  metrics.gauge({
    name: 'weave_store_graphs',
    help: 'Named graphs a query sees, empty ones and the ontology graph included (as /void counts them).',
    read: () => summary.peek().graphs,
  });
  metrics.gauge({ name: 'weave_store_sessions', help: 'Sessions saved in the store directory.', read: () => summary.peek().sessions });
  if (ingester) {
    metrics.gauge({
      name: 'weave_ingest_sessions',
      help: 'Sessions of the current or last ingest run, by progress.',
      read: () => [
        { labels: { progress: 'done' }, value: ingester.status.progress?.sessionsDone ?? 0 },
        { labels: { progress: 'total' }, value: ingester.status.progress?.sessionsTotal ?? 0 },
      ],
    });
    metrics.gauge({
      name: 'weave_ingest_running',
      help: '1 while an ingest run is reading sources.',
      read: () => (ingester.status.state === 'ingesting' || ingester.status.refreshing ? 1 : 0),
    });
  }
}
