import type { FastifyReply, FastifyRequest } from 'fastify';
import { allowed, checkServices, needsFederation } from '../../../federation/allow.ts';
import { FederationError } from '../../../federation/errors.ts';
import { returnsGraph } from '../../../query/run.ts';
import type { QueryJob } from '../../messages.ts';
import { HttpError } from '../../errors.ts';
import { authorizeWrite } from '../auth.ts';
import { routePlugin, type ServerContext } from '../context.ts';
import { serviceDescription } from '../descriptions.ts';
import { acceptedTypes, contentType, oneGraphTypes } from '../media.ts';
import { negotiate } from '../negotiate.ts';
import { parseProtocolRequest, SOURCE_PARAM, type SparqlOperation, tripleTermsAsked } from '../protocol.ts';
import { checkQueryDepth } from '../query-depth.ts';
import { convertTurtle, notAcceptable, sendResult } from '../reply.ts';
import { runJob } from '../run-job.ts';
import { requestUrl, splitUrl } from '../url.ts';
import { vary } from '../vary.ts';

/**
 * The SPARQL 1.1 Protocol endpoint, at /sparql and /query: queries by GET, form POST or direct
 * POST; updates by POST when writes are on; the service description on a bare GET.
 */

const ENDPOINT_PATHS = ['/sparql', '/query'];
/** The endpoint's capability URL, for federators that cannot send the token in a header (http/auth.ts). */
const TOKEN_ENDPOINT_PATH = '/t/:token/sparql';

/** RDF syntaxes for documents about the service, plus HTML (a browser is sent to the page). */
const descriptionOffers = () => [...oneGraphTypes(), 'text/html'];

export default routePlugin('weave-routes-sparql', async (app) => {
  const ctx = app.weave;
  for (const path of ENDPOINT_PATHS) app.all(path, (request, reply) => handle(ctx, request, reply, path));
  app.all(TOKEN_ENDPOINT_PATH, (request, reply) => handle(ctx, request, reply, splitUrl(request.url).path));
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
      checkQueryDepth(operation.update, 'update');
      await runJob(
        ctx,
        {
          op: 'update',
          update: operation.update,
          usingGraphs: operation.usingGraphs,
          usingNamedGraphs: operation.usingNamedGraphs,
          baseIri: endpoint,
        },
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
  checkQueryDepth(op.query, 'query');
  const graphResult = returnsGraph(op.query);
  const kind = graphResult ? 'graph' : 'solutions';
  const accept = acceptedTypes(kind, request.headers.accept, [...params.getAll('format'), ...params.getAll('output')]);
  if (!accept.length) throw notAcceptable(kind, request.headers.accept);
  const federation = federationOf(ctx, op.query, params, endpoint);
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
      tripleTerms: tripleTermsAsked(params, ctx.config.rdfMode),
      maxResultBytes: ctx.config.maxResultBytes,
      ...(federation ? { federation } : {}),
    },
    request,
  );
  return sendResult(reply, result);
}

/**
 * Whether the query runs federated (it names SERVICE endpoints, or the request names `source=`
 * URLs), checked here against the allow-list before any worker is asked: a refused endpoint is
 * never contacted.
 */
function federationOf(ctx: ServerContext, query: string, params: URLSearchParams, endpoint: string): QueryJob['federation'] {
  const sources = params.getAll(SOURCE_PARAM);
  if (!needsFederation(query, sources)) return undefined;
  const allow = ctx.config.serviceAllow ?? [];
  try {
    checkServices(query, allow, endpoint);
  } catch (e) {
    if (e instanceof FederationError) throw new HttpError(400, e.message);
    throw e;
  }
  const refused = sources.filter((s) => !allowed(s, allow));
  if (refused.length)
    throw new HttpError(
      400,
      `${SOURCE_PARAM}= ${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not on the allow-list${allow.length ? '' : ' (federation is off: start the server with --service-allow URL)'}`,
    );
  return { sources, allow };
}

async function describeService(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, endpoint: string): Promise<FastifyReply> {
  const offers = descriptionOffers();
  const format = negotiate(request.headers.accept, offers);
  if (!format) throw new HttpError(406, `the service description can be sent as ${offers.join(', ')}`);
  if (format === 'text/html') return vary(reply.code(303).header('location', '/'), 'Accept').send();
  // A description without counts is still a description: do not wait long for the workers.
  const stats = await Promise.race([
    ctx.stats.get().catch(() => undefined),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000).unref()),
  ]);
  const voidUrl = `${requestUrl(request, '/void')}`;
  const turtle = serviceDescription({
    endpoint,
    voidUrl,
    allowUpdate: ctx.config.allowUpdate && !!ctx.config.token,
    federated: !!ctx.config.serviceAllow?.length,
    stats,
  });
  return vary(reply.header('content-type', contentType(format)), 'Accept').send(convertTurtle(turtle, endpoint, format));
}
