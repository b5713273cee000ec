import type { FastifyReply } from 'fastify';

/**
 * Names a request header the answer depends on in its Vary, beside those named already: CORS
 * names Origin before the route runs, and a route that negotiates names Accept after; setting
 * the header replaced the other, so a cache could give one origin's answer to another.
 */
export function vary(reply: FastifyReply, field: string): FastifyReply {
  const named = String(reply.getHeader('vary') ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (named.some((f) => f === '*' || f.toLowerCase() === field.toLowerCase())) return reply;
  return reply.header('vary', [...named, field].join(', '));
}
