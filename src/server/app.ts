import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { authorizeRead, checkHost } from './auth.ts';
import type { ServerContext } from './context.ts';
import { errorBody, HttpError } from './errors.ts';
import { describeRoutes } from './routes/describe.ts';
import { graphStoreRoutes } from './routes/graph-store.ts';
import { operationRoutes } from './routes/operations.ts';
import { pageRoutes } from './routes/page.ts';
import { sparqlRoutes } from './routes/sparql.ts';

/**
 * The Fastify application: hooks for the Host check, authorisation, CORS and request counting;
 * one error handler that answers in plain text and never with a stack trace; then the routes.
 * Fastify's own logger stays off: its request lines would carry query strings.
 */
export function buildApp(ctx: ServerContext): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: ctx.config.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
    genReqId: () => randomUUID(),
  });

  // Every body arrives as bytes; the routes decide what its media type may be (415 otherwise).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', async (request, reply) => {
    (request as FastifyRequest & { started: number }).started = performance.now();
    cors(ctx, request, reply);
    checkHost(ctx.config, request);
    if (request.method === 'OPTIONS' && request.headers.origin && request.headers['access-control-request-method']) {
      return reply.code(204).header('access-control-allow-methods', 'GET, HEAD, POST').header('access-control-allow-headers', 'Content-Type, Accept, Authorization').header('access-control-max-age', '600').send();
    }
    const path = request.url.split('?')[0];
    const signingIn = path === '/' && new URLSearchParams(request.url.split('?')[1] ?? '').has('token');
    if (path !== '/healthz' && !signingIn) authorizeRead(ctx.config, request);
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    ctx.metrics.requests.inc({ route, method: request.method, status: reply.statusCode });
    if (ctx.config.verbose) {
      const ms = performance.now() - (request as FastifyRequest & { started: number }).started;
      ctx.config.log(`${request.method} ${route} ${reply.statusCode} ${ms.toFixed(1)} ms`);
    }
  });

  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => sendError(ctx, error, request, reply));
  app.setNotFoundHandler((request, reply) => sendError(ctx, new HttpError(404, `nothing at ${request.url.split('?')[0]}`), request, reply));

  sparqlRoutes(app, ctx);
  graphStoreRoutes(app, ctx);
  describeRoutes(app, ctx);
  operationRoutes(app, ctx);
  pageRoutes(app, ctx);
  return app;
}

/** CORS for the configured origins: simple requests get Access-Control-Allow-Origin. */
function cors(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  const allowed = ctx.config.corsOrigins;
  if (!origin || !allowed.length) return;
  if (allowed.includes('*')) reply.header('access-control-allow-origin', '*');
  else if (allowed.includes(origin)) reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
  else return;
  reply.header('access-control-expose-headers', 'Content-Type, Retry-After, Location');
}

/** Statuses Fastify itself raises (body too large, bad media type, malformed request). */
const FASTIFY_STATUS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'the request body is over the limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'the Content-Type is not one this server reads'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'the Content-Length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'the body is empty'],
};

function sendError(ctx: ServerContext, error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  let status: number;
  let message: string;
  if (error instanceof HttpError) {
    status = error.status;
    message = error.message;
    for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  } else if (error.code && FASTIFY_STATUS[error.code]) {
    [status, message] = FASTIFY_STATUS[error.code];
    if (status === 413) message = `${message} of ${(ctx.config.bodyLimitBytes / 1e6).toFixed(1)} MB`;
  } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    status = error.statusCode;
    message = 'the request could not be read';
  } else {
    // Never the message or the stack to the client; to the log, the kind and where, not the text.
    status = 500;
    message = `an internal error occurred (request ${request.id})`;
    ctx.config.log(`internal error in ${request.method} ${request.routeOptions.url ?? '?'} (request ${request.id}): ${error.name}${error.code ? ` ${error.code}` : ''}\n${(error.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).join('\n')}`);
  }
  return reply.code(status).header('content-type', 'text/plain; charset=utf-8').send(errorBody(status, message));
}
