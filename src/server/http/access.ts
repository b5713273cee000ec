import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.ts';
import { authorizeRead, checkHost } from './auth.ts';
import { checkCrossSite } from './cross-site.ts';
import { CONTEXT_PLUGIN } from './context.ts';
import fp from 'fastify-plugin';
import { REQUEST_URL_PLUGIN, splitUrl } from './url.ts';
import { vary } from './vary.ts';

/**
 * What every request passes before a route sees it: CORS for the configured origins, the Host
 * check, preflights, the refusal of what other sites' pages send (cross-site.ts), and read authorisation (writes are checked again by the routes that write).
 * Every answer says `nosniff`: a browser takes its Content-Type as given, so no text/plain error
 * or N-Triples answer holding transcript text is ever run as a script or a page.
 */
export const accessPlugin = fp(
  async (app) => {
    const { config } = app.weave;
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-content-type-options', 'nosniff');
      cors(config, request, reply);
      checkHost(config, request);
      if (request.method === 'OPTIONS' && request.headers.origin && request.headers['access-control-request-method']) {
        return reply
          .code(204)
          .header('access-control-allow-methods', 'GET, HEAD, POST')
          .header('access-control-allow-headers', 'Content-Type, Accept, Authorization')
          .header('access-control-max-age', '600')
          .send();
      }
      checkCrossSite(config, request);
      const path = splitUrl(request.url).path;
      const signingIn = path === '/' && request.searchParams.has('token');
      if (path !== '/healthz' && !signingIn) authorizeRead(config, request, path);
    });
  },
  { name: 'weave-access', dependencies: [CONTEXT_PLUGIN, REQUEST_URL_PLUGIN] },
);

/**
 * CORS for the configured origins: simple requests get Access-Control-Allow-Origin. With a list
 * of origins, whether an answer carries it depends on the request's Origin, so every answer
 * says `Vary: Origin` (one without it, cached, would be given to a listed origin's page too).
 */
function cors(config: ServerConfig, request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  const allowed = config.corsOrigins;
  if (!allowed.length) return;
  const anyOrigin = allowed.includes('*');
  if (!anyOrigin) vary(reply, 'Origin');
  if (!origin) return;
  if (anyOrigin) reply.header('access-control-allow-origin', '*');
  else if (allowed.includes(origin)) reply.header('access-control-allow-origin', origin);
  else return;
  reply.header('access-control-expose-headers', 'Content-Type, Retry-After, Location');
}
