import type { FastifyReply, FastifyRequest } from 'fastify';
import { GRAPH_FORMATS } from '../../../query/formats.ts';
import { returnsGraph } from '../../../query/run.ts';
import { HttpError } from '../../errors.ts';
import { authorizeWrite } from '../auth.ts';
import { routePlugin, type ServerContext } from '../context.ts';
import { serviceDescription } from '../descriptions.ts';
import { acceptedTypes, contentType, GRAPH_TYPES } from '../media.ts';
import { negotiate } from '../negotiate.ts';
import { parseProtocolRequest, TRIPLE_TERMS_PARAM, type SparqlOperation } from '../protocol.ts';
import { convertTurtle, notAcceptable, sendResult } from '../reply.ts';
import { runJob } from '../run-job.ts';
import { requestUrl } from '../url.ts';

/**
 * The SPARQL 1.1 Protocol endpoint, at /sparql and /query: queries by GET, form POST or direct
 * POST; updates by POST when writes are on; the service description on a bare GET.
 */

export const ENDPOINT_PATHS = ['/sparql', '/query'];

/** RDF syntaxes for documents about the service, plus HTML (a browser is sent to the page). */
const DESCRIPTION_OFFERS = [...GRAPH_TYPES.filter((t) => t !== GRAPH_FORMATS.nquads && t !== GRAPH_FORMATS.trig), 'text/html'];

export default routePlugin('weave-routes-sparql', async (app) => {
  const ctx = app.weave;
  for (const path of ENDPOINT_PATHS) app.all(path, (request, reply) => handle(ctx, request, reply, path));
});

async function handle(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> {
  const { operation, params } = parseProtocolRequest({
    method: request.method,
    contentType: request.headers['content-type'],
    search: request.searchParams,
    body: request.body as Buffer | undefined,
  });
  const endpoint = requestUrl(request, path);
  switch (operation.kind) {
    case 'description':
      return describeService(ctx, request, reply, endpoint);
    case 'query':
      return query(ctx, request, reply, operation, params, endpoint);
    case 'update':
      authorizeWrite(ctx.config, request);
      await runJob(
        ctx,
        { op: 'update', update: operation.update, usingGraphs: operation.usingGraphs, usingNamedGraphs: operation.usingNamedGraphs, baseIri: endpoint },
        request,
      );
      return reply.code(204).send();
  }
}

async function query(
  ctx: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  op: Extract<SparqlOperation, { kind: 'query' }>,
  params: URLSearchParams,
  endpoint: string,
): Promise<FastifyReply> {
  const graphResult = returnsGraph(op.query);
  const kind = graphResult ? 'graph' : 'solutions';
  const accept = acceptedTypes(kind, request.headers.accept, params.get('format') ?? undefined);
  if (!accept.length) throw notAcceptable(kind, request.headers.accept, params.get('format'));
  const result = await runJob(
    ctx,
    {
      op: 'query',
      query: op.query,
      graphResult,
      defaultGraphs: op.defaultGraphs,
      namedGraphs: op.namedGraphs,
      accept,
      baseIri: endpoint,
      tripleTermsAsText: params.get(TRIPLE_TERMS_PARAM) === 'literal',
      maxResultBytes: ctx.config.maxResultBytes,
    },
    request,
  );
  return sendResult(reply, result);
}

async function describeService(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, endpoint: string): Promise<FastifyReply> {
  const format = negotiate(request.headers.accept, DESCRIPTION_OFFERS);
  if (!format) throw new HttpError(406, `the service description can be sent as ${DESCRIPTION_OFFERS.join(', ')}`);
  if (format === 'text/html') return reply.code(303).header('location', '/').header('vary', 'Accept').send();
  // A description without counts is still a description: do not wait long for the workers.
  const stats = await Promise.race([ctx.stats.get().catch(() => undefined), new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000).unref())]);
  const voidUrl = `${requestUrl(request, '/void')}`;
  const turtle = serviceDescription({ endpoint, voidUrl, allowUpdate: ctx.config.allowUpdate && !!ctx.config.token, stats });
  return reply.header('content-type', contentType(format)).header('vary', 'Accept').send(convertTurtle(turtle, endpoint, format));
}
