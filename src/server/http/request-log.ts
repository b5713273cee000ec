import { CONTEXT_PLUGIN } from './context.ts';
import fp from 'fastify-plugin';

/**
 * Every answered request counted by route, method and status for /metrics, and with --verbose
 * one log line: method, route, status, time. Never the URL: its query string may hold a query.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when the request arrived. */
    receivedAt: number;
  }
}

export const requestLogPlugin = fp(
  async (app) => {
    const { config, metrics } = app.weave;
    app.decorateRequest('receivedAt', 0);
    app.addHook('onRequest', async (request) => {
      request.receivedAt = performance.now();
    });
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requests.inc({ route, method: request.method, status: reply.statusCode });
      if (config.verbose)
        config.log(`${request.method} ${route} ${reply.statusCode} ${(performance.now() - request.receivedAt).toFixed(1)} ms`);
    });
  },
  { name: 'weave-request-log', dependencies: [CONTEXT_PLUGIN] },
);
