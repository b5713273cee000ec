import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';
import { CONTEXT_PLUGIN, type ServerContext } from './context.ts';
import fp from 'fastify-plugin';
import { splitUrl } from './url.ts';

/**
 * One error handler for the whole app: every error is answered in plain text, one line, and
 * never with a stack trace; an internal error gives the client a request id and the log the
 * error's kind and stack frames, never its message.
 */
export const errorReplyPlugin = fp(
  async (app) => {
    const ctx = app.weave;
    app.setErrorHandler((error: FastifyError | HttpError, request, reply) => sendError(ctx, error, request, reply));
    app.setNotFoundHandler((request, reply) =>
      sendError(ctx, new HttpError(404, `nothing at ${splitUrl(request.url).path}`), request, reply),
    );
  },
  { name: 'weave-error-reply', dependencies: [CONTEXT_PLUGIN] },
);

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
    ctx.config.log(
      `internal error in ${request.method} ${request.routeOptions.url ?? '?'} (request ${request.id}): ${error.name}${error.code ? ` ${error.code}` : ''}\n${(
        error.stack ?? ''
      )
        .split('\n')
        .filter((l) => /^\s+at /.test(l))
        .join('\n')}`,
    );
  }
  return reply.code(status).header('content-type', 'text/plain; charset=utf-8').send(errorBody(status, message));
}

/** The body of every error response: plain text, one message, never a stack trace. */
export function errorBody(status: number, message: string): string {
  return `${status} ${reasonPhrase(status)}: ${message}\n`;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}
