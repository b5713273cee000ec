import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mediaTypeNamed, oneGraphFormats } from '../../../query/formats.ts';
import { HttpError } from '../../errors.ts';
import type { RdfPart } from '../../messages.ts';
import { authorizeWrite } from '../auth.ts';
import { routePlugin, type ServerContext } from '../context.ts';
import { acceptedFormats, oneGraphTypes, rdfInputTypes } from '../media.ts';
import { decodeUtf8, isAbsoluteIri, mediaTypeOf, requireUtf8Charset, tripleTermsAsked } from '../protocol.ts';
import { sendResult } from '../reply.ts';
import { runJob } from '../run-job.ts';
import { requestUrl } from '../url.ts';

/**
 * The SPARQL 1.1 Graph Store HTTP Protocol at /store: `?graph=IRI` and `?default` (indirect
 * identification), or the graph whose IRI is the request URL itself, /store/… (direct). Reads
 * always work; PUT, POST and DELETE need writes on and the token. `?default` is the store's own
 * unnamed graph, not the union the query endpoint answers over by default. A read writes triple
 * terms as the query endpoint does: `?rdf=`, `triple-terms=literal`, else the server's `--rdf`.
 */

const STORE_PATH = '/store';

export default routePlugin('weave-routes-graph-store', async (app) => {
  const ctx = app.weave;
  app.all(STORE_PATH, (request, reply) => handle(ctx, request, reply, false));
  app.all(`${STORE_PATH}/*`, (request, reply) => handle(ctx, request, reply, true));
});

type Target = { graph: string | null } | { create: true };

function target(request: FastifyRequest, direct: boolean): Target {
  if (direct) {
    // The request URL is the graph's IRI; a Host header can hold anything, so it is checked too.
    const graph = requestUrl(request);
    if (!isAbsoluteIri(graph)) throw new HttpError(400, 'the request URL is not a usable graph IRI');
    return { graph };
  }
  const params = request.searchParams;
  const graphs = params.getAll('graph');
  const isDefault = params.has('default');
  if (graphs.length + (isDefault ? 1 : 0) > 1) throw new HttpError(400, 'name one graph: ?graph=IRI or ?default');
  if (isDefault) return { graph: null };
  if (graphs.length) {
    if (!isAbsoluteIri(graphs[0])) throw new HttpError(400, `graph must be an absolute IRI, not "${graphs[0]}"`);
    return { graph: graphs[0] };
  }
  if (request.method === 'POST') return { create: true };
  throw new HttpError(400, 'name a graph: ?graph=IRI, or ?default for the default graph');
}

async function handle(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, direct: boolean): Promise<FastifyReply> {
  const method = request.method;
  if (!['GET', 'HEAD', 'PUT', 'POST', 'DELETE'].includes(method))
    throw new HttpError(405, `the graph store takes GET, HEAD, PUT, POST and DELETE, not ${method}`, {
      allow: 'GET, HEAD, PUT, POST, DELETE',
    });
  const where = target(request, direct);

  if (method === 'GET' || method === 'HEAD') {
    // One graph has no place for graph names: the syntaxes of one graph only.
    const accept = acceptedFormats(oneGraphFormats(), request.headers.accept);
    if (!accept.length) throw new HttpError(406, `a graph can be sent as ${oneGraphTypes().join(', ')}`);
    const { graph } = where as { graph: string | null };
    const tripleTerms = tripleTermsAsked(request.searchParams, ctx.config.rdfMode);
    return sendResult(
      reply,
      await runJob(ctx, { op: 'graph-read', graph, accept, tripleTerms, maxResultBytes: ctx.config.maxResultBytes }, request),
    );
  }

  authorizeWrite(ctx.config, request);
  const parts = method === 'DELETE' ? [] : payload(request, method);
  if ('create' in where) {
    // POST to the store itself makes a new graph, named under the store so it can be read directly.
    const graph = `${requestUrl(request, STORE_PATH)}/${randomUUID()}`;
    if (!isAbsoluteIri(graph)) throw new HttpError(400, 'the request URL is not a usable base for a new graph IRI');
    await runJob(ctx, { op: 'graph-write', method: 'PUT', graph, parts, baseIri: graph }, request);
    return reply.code(201).header('location', graph).send();
  }
  const result = await runJob(
    ctx,
    {
      op: 'graph-write',
      method: method as 'PUT' | 'POST' | 'DELETE',
      graph: where.graph,
      parts,
      baseIri: where.graph ?? requestUrl(request),
    },
    request,
  );
  return reply.code(result.status).send();
}

/** The RDF a write carries: one document, or (POST) the files of a multipart/form-data body. */
function payload(request: FastifyRequest, method: string): RdfPart[] {
  const media = mediaTypeOf(request.headers['content-type']);
  const body = request.body as Buffer | undefined;
  const readable = rdfInputTypes();
  if (!media) throw new HttpError(415, `send the graph with a Content-Type: ${[...readable.keys()].join(', ')}`);
  if (media.type === 'multipart/form-data' && method === 'POST')
    return multipartParts(request.headers['content-type']!, body ?? Buffer.alloc(0));
  const format = readable.get(media.type);
  if (!format) throw new HttpError(415, `the graph store reads ${[...readable.keys()].join(', ')}, not ${media.type}`);
  requireUtf8Charset(media.charset, media.type);
  return [{ text: decodeUtf8(body, 'graph'), format }];
}

/** The parts of a multipart/form-data body (RFC 7578), each an RDF document with its own type. */
export function multipartParts(header: string, body: Buffer): RdfPart[] {
  const boundary = /boundary="?([^";]+)"?/i.exec(header)?.[1];
  if (!boundary) throw new HttpError(400, 'multipart/form-data needs a boundary');
  const text = decodeUtf8(body, 'multipart body');
  const readable = rdfInputTypes();
  const parts: RdfPart[] = [];
  for (const chunk of text.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith('--')) break;
    const split = chunk.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const head = chunk.slice(0, split);
    const content = chunk
      .slice(split)
      .replace(/^\r?\n\r?\n/, '')
      .replace(/\r?\n$/, '');
    const media = mediaTypeOf(/^content-type:\s*(.+)$/im.exec(head)?.[1]?.trim());
    // A part that names no type is Turtle.
    const format = media ? readable.get(media.type) : mediaTypeNamed('turtle');
    if (!format) throw new HttpError(415, `a multipart part is ${media!.type}; the graph store reads ${[...readable.keys()].join(', ')}`);
    if (media) requireUtf8Charset(media.charset, media.type);
    parts.push({ text: content, format });
  }
  if (!parts.length) throw new HttpError(400, 'the multipart body has no parts');
  return parts;
}
