import type { FastifyReply } from 'fastify';
import oxigraph from 'oxigraph';
import { dump } from '../../query/graph-results.ts';
import { HttpError } from '../errors.ts';
import type { JobResult } from '../messages.ts';
import { acceptedTypes, contentType } from './media.ts';
import { vary } from './vary.ts';

/** How a route answers with what a worker made, or with a document it wrote itself. */

/** Sends a worker's answer with its Content-Type (and Vary: Accept, since it was negotiated). */
export function sendResult(reply: FastifyReply, result: JobResult): FastifyReply {
  vary(reply.code(result.status), 'Accept');
  for (const [k, v] of Object.entries(result.headers ?? {})) reply.header(k, v);
  if (!result.body || result.status === 204) return reply.send();
  const bytes = Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
  // A short answer goes as text: Node then writes the head and the body as one piece, where bytes
  // go as two (a point query at one connection answered 8% more often).
  return reply.header('content-type', contentType(result.mediaType!)).send(bytes.length < 16384 ? bytes.toString('utf8') : bytes);
}

/**
 * Turtle converted, in this thread, to the RDF syntax the client chose (small documents only).
 * The triples are in the default graph, which graph syntaxes (N-Triples, RDF/XML) are written from.
 */
export function convertTurtle(turtle: string, baseIri: string, format: string): string {
  if (format === 'text/turtle') return turtle;
  const store = new oxigraph.Store();
  store.load(turtle, { format: 'text/turtle', base_iri: baseIri });
  return dump(store, format);
}

/** 406, naming what the server could have sent instead. */
export function notAcceptable(kind: 'graph' | 'solutions', accept: string | undefined, format?: string | null): HttpError {
  const offers = acceptedTypes(kind, undefined).join(', ');
  const asked = format ? `format=${format}` : `Accept: ${accept ?? ''}`;
  return new HttpError(406, `${kind === 'graph' ? 'a graph result' : 'a SELECT or ASK result'} can be sent as ${offers}, not as ${asked}`);
}
