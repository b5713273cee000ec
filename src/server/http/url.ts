import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { utf8Params } from './percent.ts';

/**
 * The one place a request URL is split into its path and its query string. The query string is
 * everything after the FIRST `?`: a SPARQL query sent by GET may hold more (`?s`), unencoded, as
 * Jena sends it, and RFC 3986 allows `?` inside a query.
 */

export function splitUrl(url: string): { path: string; query: string } {
  const at = url.indexOf('?');
  return at < 0 ? { path: url, query: '' } : { path: url.slice(0, at), query: url.slice(at + 1) };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The parameters of the URL's query string, parsed once, on first use. */
    readonly searchParams: URLSearchParams;
  }
}

const PARSED = Symbol('searchParams');

export const REQUEST_URL_PLUGIN = 'weave-request-url';

/** Decorates every request with `searchParams`. */
export const requestUrlPlugin = fp(
  async (app) => {
    app.decorateRequest('searchParams', {
      getter(this: FastifyRequest & { [PARSED]?: URLSearchParams }) {
        return (this[PARSED] ??= utf8Params(splitUrl(this.url).query, 'query string'));
      },
    });
  },
  { name: REQUEST_URL_PLUGIN },
);

/** The URL a request reached, without its query string: the endpoint IRI the client knows. */
export function requestUrl(request: FastifyRequest, path = splitUrl(request.url).path): string {
  const host = request.headers.host ?? `${request.hostname}`;
  return `${request.protocol}://${host}${path}`;
}
