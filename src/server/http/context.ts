import type { FastifyPluginAsync } from 'fastify';
import type { ServerConfig } from '../config.ts';
import type { Ingester } from '../workers/ingester.ts';
import type { Mutex } from '../workers/mutex.ts';
import type { StoreBackend } from '../backend.ts';
import type { Metrics } from './metrics.ts';
import fp from 'fastify-plugin';
import type { StatsCache } from './stats-cache.ts';
import type { StoreSummary } from './store-summary.ts';
import type { StoreFollower } from '../follow.ts';
import type { IdleWatch } from '../idle.ts';
import { REQUEST_URL_PLUGIN } from './url.ts';

/** What every route needs: the configuration, the workers, the write lock, the counters. */
export interface ServerContext {
  config: ServerConfig;
  /** The query workers, or the external store this server stands in front of. */
  pool: StoreBackend;
  /** One writer of the store directory at a time: ingest runs and HTTP writes. */
  lock: Mutex;
  metrics: Metrics;
  stats: StatsCache;
  summary: StoreSummary;
  ingester?: Ingester;
  /** A server that does not write its store: brings the workers up to the manifest before each request. */
  follower?: StoreFollower;
  /** A server with an idle timeout: counts the requests in flight. */
  idle?: IdleWatch;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The server context, decorated once on the app; every route plugin reads it from here. */
    readonly weave: ServerContext;
  }
}

export const CONTEXT_PLUGIN = 'weave-context';

/** Decorates the app with the server context, once, for the plugins registered after it. */
export const contextPlugin = fp<{ context: ServerContext }>(
  async (app, { context }) => {
    app.decorate('weave', context);
  },
  { name: CONTEXT_PLUGIN },
);

/**
 * A plugin of routes: encapsulated (its routes, and anything else it adds, stay inside it), and
 * refused by Fastify unless the context and `request.searchParams` are registered before it.
 */
export function routePlugin(name: string, plugin: FastifyPluginAsync): FastifyPluginAsync {
  return fp(plugin, { name, dependencies: [CONTEXT_PLUGIN, REQUEST_URL_PLUGIN], encapsulate: true });
}
