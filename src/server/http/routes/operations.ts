import { HttpError } from '../../errors.ts';
import { routePlugin } from '../context.ts';
import { voidDescription } from '../descriptions.ts';
import { contentType, oneGraphTypes } from '../media.ts';
import { negotiate } from '../negotiate.ts';
import { convertTurtle } from '../reply.ts';
import { requestUrl } from '../url.ts';
import { cachedStoreStatus } from '../../../status.ts';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE } from '../../../store/layout.ts';
import { vary } from '../vary.ts';
import { CANNOT_OPEN } from '../../workers/pool.ts';

/** What operators and the page watch: health, progress, metrics, and the VoID description. */
export default routePlugin('weave-routes-operations', async (app) => {
  const ctx = app.weave;
  // A look at the sources (for lines not read yet) at most every few seconds; the page asks each second.
  const storeStatus = cachedStoreStatus(ctx.config.storeDir, 5000);
  // Healthy is answering queries: a copy of the store is open. Until then 503, "starting" while
  // the store loads, "failing" if it cannot (the log names the file and line; /healthz answers
  // without the token, so it does not).
  app.get('/healthz', async (_request, reply) => {
    // The pid lets a command tell this server from another that took over its port (store/running.ts).
    const ingest = ctx.ingester?.status.state ?? 'off';
    if (!ctx.pool.loading) return reply.send({ status: 'ok', pid: process.pid, store: 'ready', ingest });
    const failing = ctx.pool.stats.openError !== undefined;
    return reply
      .code(503)
      .header('retry-after', '5')
      .send({
        status: failing ? 'failing' : 'starting',
        pid: process.pid,
        store: failing ? 'failing' : 'loading',
        ingest,
        ...(failing ? { problem: CANNOT_OPEN } : {}),
      });
  });

  app.get('/status', async (request, reply) => {
    const { graphs, sessions } = await ctx.summary.get();
    const loading = ctx.pool.loading;
    const status = await storeStatus();
    const built = await ctx.summary.built();
    return reply.header('cache-control', 'no-store').send({
      endpoint: requestUrl(request, '/sparql'),
      soul: ctx.config.soul,
      store: {
        dir: ctx.config.storeDir,
        state: loading ? 'loading' : 'ready',
        quads: ctx.pool.quads,
        graphs,
        sessions,
        // What `weave status` says: sources, the archive, how current the store is.
        archivedOnly: status.archivedOnly,
        ...(status.heldElsewhere && { heldElsewhere: status.heldElsewhere }),
        // Which Weave built the session graphs, as weave status says, and the line every command says of it.
        builtBy: status.builtBy,
        ...(built && { notice: built }),
        sources: status.sources,
        versions: status.versions,
        lastChange: status.lastChange,
        // When the store last changed, looked at now: the page runs its query again when it moves.
        updated: await stat(join(ctx.config.storeDir, MANIFEST_FILE)).then(
          (s) => s.mtime.toISOString(),
          () => status.updated,
        ),
        pending: status.pending,
        bytes: status.bytes,
        ...(loading && { loading }),
        // Graphs a copy could not load (a file damaged on disk): the log and `weave verify --self` name the file.
        ...(ctx.pool.stats.notLoaded && {
          attention: `${ctx.pool.stats.notLoaded.length} graph(s) did not load and are left out; run weave verify --self`,
        }),
      },
      workers: ctx.pool.stats,
      ingest: ctx.ingester?.status ?? { state: 'off' },
      allowUpdate: ctx.config.allowUpdate,
      timeoutSeconds: ctx.config.timeoutMs / 1000,
    });
  });

  app.get('/metrics', async (_request, reply) => {
    await ctx.summary.get();
    return reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(ctx.metrics.render());
  });

  for (const path of ['/void', '/.well-known/void']) {
    app.get(path, async (request, reply) => {
      const offers = oneGraphTypes();
      const format = negotiate(request.headers.accept, offers);
      if (!format) throw new HttpError(406, `the VoID description can be sent as ${offers.join(', ')}`);
      const voidUrl = requestUrl(request, '/void');
      const turtle = voidDescription({
        voidUrl,
        endpoint: requestUrl(request, '/sparql'),
        soul: ctx.config.soul,
        stats: await ctx.stats.get(),
      });
      return vary(reply.header('content-type', contentType(format)), 'Accept').send(convertTurtle(turtle, voidUrl, format));
    });
  }
});
