import { GRAPH_FORMATS } from '../../../query/formats.ts';
import { HttpError } from '../../errors.ts';
import type { Description } from '../../messages.ts';
import { routePlugin } from '../context.ts';
import { acceptedTypes, GRAPH_TYPES } from '../media.ts';
import { negotiate } from '../negotiate.ts';
import { renderDescribePage } from '../pages/describe.ts';
import { isAbsoluteIri } from '../protocol.ts';
import { notAcceptable, sendResult } from '../reply.ts';
import { runJob } from '../run-job.ts';

/**
 * The describe page is static HTML with the page's stylesheet: no script at all may run in it,
 * whatever a transcript's text holds, and nothing may frame it.
 */
const DESCRIBE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * /describe?iri=…: every resource IRI (the `urn:soul:…` instances cannot be fetched anywhere
 * else) as an HTML page for a browser, or as RDF by Accept or `format=turtle|jsonld|ntriples|…`.
 */
export default routePlugin('weave-routes-describe', async (app) => {
  const ctx = app.weave;
  app.get('/describe', async (request, reply) => {
    const params = request.searchParams;
    const iri = params.get('iri') ?? '';
    if (!isAbsoluteIri(iri)) throw new HttpError(400, 'give the resource as ?iri=<absolute IRI>');
    const format = params.get('format') ?? undefined;
    const html = !format && negotiate(request.headers.accept, ['text/html', ...GRAPH_TYPES]) === 'text/html';
    if (html) {
      const result = await runJob(ctx, { op: 'describe', iri, accept: [], maxResultBytes: ctx.config.maxResultBytes }, request);
      const page = renderDescribePage(result.data as Description, ctx.config.soul);
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', DESCRIBE_CSP)
        .header('vary', 'Accept')
        .send(page);
    }
    const accept = acceptedTypes('graph', request.headers.accept, format === 'html' ? GRAPH_FORMATS.turtle : format);
    if (!accept.length) throw notAcceptable('graph', request.headers.accept, format);
    return sendResult(reply, await runJob(ctx, { op: 'describe', iri, accept, maxResultBytes: ctx.config.maxResultBytes }, request));
  });
});
