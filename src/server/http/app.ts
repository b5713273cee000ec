import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { accessPlugin } from './access.ts';
import { clientErrorHandler, MAX_HEADER_BYTES } from './client-error.ts';
import { contextPlugin, type ServerContext } from './context.ts';
import { errorReplyPlugin } from './error-reply.ts';
import { requestLogPlugin } from './request-log.ts';
import { requestUrlPlugin } from './url.ts';
import { residentPlugin } from './resident.ts';

/**
 * The Fastify application, on the main thread. First the app-wide plugins (the context, decorated
 * once; `request.searchParams`; request counting; CORS, the Host check and authorisation; the
 * error replies), then the routes, one encapsulated plugin each: a new route is a file in
 * routes/ and one line here. Fastify's own logger stays off: its request lines would carry
 * query strings.
 */
export function buildApp(ctx: ServerContext): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: ctx.config.bodyLimitBytes,
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: true },
    genReqId: () => randomUUID(),
  });

  // Every body arrives as bytes; the routes decide what its media type may be (415 otherwise).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.register(contextPlugin, { context: ctx });
  app.register(requestUrlPlugin);
  app.register(requestLogPlugin);
  app.register(residentPlugin);
  app.register(accessPlugin);
  app.register(errorReplyPlugin);

  app.register(import('./routes/sparql.ts'));
  app.register(import('./routes/graph-store.ts'));
  app.register(import('./routes/describe.ts'));
  app.register(import('./routes/operations.ts'));
  app.register(import('./routes/page.ts'));
  app.register(import('./routes/overview.ts'));
  app.register(import('./routes/search.ts'));
  app.register(import('./routes/conversation.ts'));
  app.register(import('./routes/usage.ts'));
  app.register(import('./routes/glossary.ts'));
  return app;
}
