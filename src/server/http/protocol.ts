import type { GraphForm } from '../../query/formats.ts';
import { isRdfMode, type RdfMode } from '../../rdf/rdf-mode.ts';
import { HttpError } from '../errors.ts';
import { utf8Params } from './percent.ts';

/**
 * The SPARQL 1.1 Protocol's request shapes (§2.1, §2.2), read from a plain description of the
 * HTTP request so the rules are tested without a server: which operation, its text, and the
 * dataset the request names.
 */

export interface ProtocolRequest {
  method: string;
  /** The raw Content-Type header. */
  contentType?: string;
  /** The URL's query string. */
  search: URLSearchParams;
  body?: Buffer;
}

export type SparqlOperation =
  | { kind: 'query'; query: string; defaultGraphs: string[]; namedGraphs: string[] }
  | { kind: 'update'; update: string; usingGraphs: string[]; usingNamedGraphs: string[] }
  /** A GET with no operation: the client wants the service description. */
  | { kind: 'description' };

interface ParsedRequest {
  operation: SparqlOperation;
  /** Every parameter of the request, from the URL and a form body, for the options beside the operation. */
  params: URLSearchParams;
}

/**
 * `triple-terms=literal`: write RDF 1.2 triple terms as N-Triples text literals in this answer,
 * for clients that predate them (the bundled page sends it; src/query/solutions.ts and graph-results.ts).
 */
export const TRIPLE_TERMS_PARAM = 'triple-terms';

/** `rdf=1.2|1.1|star`: how triple terms are written in this answer (src/rdf/rdf-mode.ts); the server's `--rdf` otherwise. */
export const RDF_PARAM = 'rdf';

/** `triple-terms=literal` (the page), else `rdf=1.2|1.1|star`, else `fallback`: the server's `--rdf`. */
export function tripleTermsAsked(params: URLSearchParams, fallback: RdfMode = '1.2'): GraphForm {
  if (params.get(TRIPLE_TERMS_PARAM) === 'literal') return 'literal';
  const asked = params.get(RDF_PARAM);
  if (asked === null) return fallback;
  if (!isRdfMode(asked)) throw new HttpError(400, `${RDF_PARAM} is 1.2, 1.1 or star, not "${asked.slice(0, 40)}"`);
  return asked;
}

/** `source=URL` (repeatable): federate the query with this allow-listed endpoint or document. */
export const SOURCE_PARAM = 'source';

const FORM = 'application/x-www-form-urlencoded';
const SPARQL_QUERY = 'application/sparql-query';
const SPARQL_UPDATE = 'application/sparql-update';

/** The media type and charset of a Content-Type header, lower-cased. */
export function mediaTypeOf(header: string | undefined): { type: string; charset?: string } | undefined {
  if (!header) return undefined;
  const [type, ...params] = header.split(';').map((s) => s.trim());
  const charset = params.map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1]).find(Boolean);
  return { type: type.toLowerCase(), charset: charset?.toLowerCase() };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Request text must be UTF-8 (SPARQL Protocol §2.1.2, §2.2.2). */
export function decodeUtf8(body: Buffer | undefined, what: string): string {
  if (!body?.length) return '';
  try {
    return UTF8.decode(body).replace(/^\uFEFF/, '');
  } catch {
    throw new HttpError(400, `the ${what} is not valid UTF-8`);
  }
}

export function requireUtf8Charset(charset: string | undefined, type: string): void {
  if (charset && charset !== 'utf-8' && charset !== 'utf8') throw new HttpError(415, `${type} must be sent as UTF-8, not ${charset}`);
}

export function parseProtocolRequest(req: ProtocolRequest): ParsedRequest {
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST')
    throw new HttpError(405, `the SPARQL endpoint takes GET and POST, not ${req.method}`, { allow: 'GET, HEAD, POST' });

  const params = new URLSearchParams(req.search);
  if (req.method !== 'POST') {
    if (params.has('update')) throw new HttpError(400, 'a SPARQL Update must be sent with POST, not GET');
    const queries = params.getAll('query');
    if (!queries.length) return { operation: { kind: 'description' }, params };
    return { operation: queryOperation(queries, params), params };
  }

  const media = mediaTypeOf(req.contentType);
  if (!media) throw new HttpError(415, `a POST needs a Content-Type: ${FORM}, ${SPARQL_QUERY} or ${SPARQL_UPDATE}`);
  requireUtf8Charset(media.charset, media.type);
  switch (media.type) {
    case FORM: {
      const form = utf8Params(decodeUtf8(req.body, 'form body'), 'form body');
      for (const [k, v] of form) params.append(k, v);
      const queries = form.getAll('query');
      const updates = form.getAll('update');
      if (queries.length && updates.length) throw new HttpError(400, 'a request carries either query or update, not both');
      if (updates.length) return { operation: updateOperation(updates, params), params };
      if (!queries.length) throw new HttpError(400, 'the form has no query or update parameter');
      return { operation: queryOperation(queries, params), params };
    }
    case SPARQL_QUERY:
      if (params.has('query')) throw new HttpError(400, 'the query is in the body; the URL must not carry another');
      return { operation: queryOperation([decodeUtf8(req.body, 'query')], params), params };
    case SPARQL_UPDATE:
      if (params.has('update')) throw new HttpError(400, 'the update is in the body; the URL must not carry another');
      return { operation: updateOperation([decodeUtf8(req.body, 'update')], params), params };
    default:
      throw new HttpError(415, `the SPARQL endpoint does not take ${media.type}; send ${FORM}, ${SPARQL_QUERY} or ${SPARQL_UPDATE}`);
  }
}

function queryOperation(queries: string[], params: URLSearchParams): SparqlOperation {
  if (queries.length > 1) throw new HttpError(400, `a request carries one query, not ${queries.length}`);
  if (!queries[0].trim()) throw new HttpError(400, 'the query is empty');
  return {
    kind: 'query',
    query: queries[0],
    defaultGraphs: graphParams(params, 'default-graph-uri'),
    namedGraphs: graphParams(params, 'named-graph-uri'),
  };
}

function updateOperation(updates: string[], params: URLSearchParams): SparqlOperation {
  if (updates.length > 1) throw new HttpError(400, `a request carries one update, not ${updates.length}`);
  if (!updates[0].trim()) throw new HttpError(400, 'the update is empty');
  return {
    kind: 'update',
    update: updates[0],
    usingGraphs: graphParams(params, 'using-graph-uri'),
    usingNamedGraphs: graphParams(params, 'using-named-graph-uri'),
  };
}

/** Absolute IRIs only: a graph name is never resolved against anything. */
const ABSOLUTE_IRI = /^[a-z][a-z0-9+.-]*:[^\s<>"{}|\\^`]*$/i;

function graphParams(params: URLSearchParams, name: string): string[] {
  const values = params.getAll(name);
  for (const v of values) if (!ABSOLUTE_IRI.test(v)) throw new HttpError(400, `${name} must be an absolute IRI, not "${v}"`);
  return [...new Set(values)];
}

export function isAbsoluteIri(value: string): boolean {
  return ABSOLUTE_IRI.test(value);
}
