import type { FastifyInstance } from 'fastify';
import { GRAPH_FORMATS } from '../../query/formats.ts';
import { runJob, sendResult, type ServerContext } from '../context.ts';
import type { Description } from '../dataset.ts';
import { renderDescribePage } from '../describe-page.ts';
import { HttpError } from '../errors.ts';
import { acceptedTypes, GRAPH_TYPES } from '../media.ts';
import { negotiate } from '../negotiate.ts';
import { isAbsoluteIri } from '../protocol.ts';
import { notAcceptable } from './sparql.ts';

/**
 * /describe?iri=…: every resource IRI (the `urn:soul:…` instances cannot be fetched anywhere
 * else) as an HTML page for a browser, or as RDF by Accept or `format=turtle|jsonld|ntriples|…`.
 */
export function describeRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/describe', async (request, reply) => {
    const params = new URLSearchParams(request.url.split('?')[1] ?? '');
    const iri = params.get('iri') ?? '';
    if (!isAbsoluteIri(iri)) throw new HttpError(400, 'give the resource as ?iri=<absolute IRI>');
    const format = params.get('format') ?? undefined;
    const html = !format && negotiate(request.headers.accept, ['text/html', ...GRAPH_TYPES]) === 'text/html';
    if (html) {
      const result = await runJob(ctx, { op: 'describe', iri, accept: [], maxResultBytes: ctx.config.maxResultBytes }, request);
      const page = renderDescribePage(result.data as Description, ctx.config.soul);
      return reply.header('content-type', 'text/html; charset=utf-8').header('vary', 'Accept').send(page);
    }
    const accept = acceptedTypes('graph', request.headers.accept, format === 'html' ? GRAPH_FORMATS.turtle : format);
    if (!accept.length) throw notAcceptable('graph', request.headers.accept, format);
    return sendResult(reply, await runJob(ctx, { op: 'describe', iri, accept, maxResultBytes: ctx.config.maxResultBytes }, request));
  });
}
