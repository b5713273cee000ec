import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './error-reply.ts';

/**
 * The most a request line and headers may take. SPARQLWrapper and rdflib send a query by GET
 * unless told otherwise, and Node's 16 KiB refused one with a VALUES block of a few hundred values.
 */
export const MAX_HEADER_BYTES = 256 * 1024;

/**
 * What Node cannot read as a request (headers over the limit, a request that never finished, bytes
 * that are not HTTP) is answered like every other error: plain text, one line. Fastify's own
 * answer was JSON, unlike all the others.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message]: [number, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `the request line and headers are over ${MAX_HEADER_BYTES / 1024} KiB; send a long query by POST`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : [400, 'the request is not HTTP this server can read'];
  const body = errorBody(status, message);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(error);
}
