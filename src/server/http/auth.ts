import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isLoopback, type ServerConfig } from '../config.ts';
import { HttpError } from '../errors.ts';

/**
 * Who may do what. Reads are open on a loopback bind; beyond loopback every request but
 * /healthz needs the token (header, or the cookie a `/?token=` visit sets, for browsers).
 * Writes need `--allow-update` and the token in an Authorization header: a cookie alone never
 * authorises a write, so another site cannot forge one through the browser.
 */

export const TOKEN_COOKIE = 'weave_token';

export function sameToken(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}

function bearerToken(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}

function cookieToken(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === TOKEN_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * The token in the path of the endpoint's capability URL, `/t/<token>/sparql`: for federators
 * (Virtuoso's SERVICE, Comunica, Jena) that cannot send a header or a cookie, and cannot keep a
 * query string of their own either (they append `?query=`). It authorises reads only, like the
 * cookie. It is a secret in a URL: give it only to services you trust with the transcripts.
 */
const TOKEN_PATH = /^\/t\/([^/]+)\/sparql$/;

function pathToken(path: string): string | undefined {
  const token = TOKEN_PATH.exec(path)?.[1];
  return token === undefined ? undefined : decodeURIComponent(token);
}

export function authorizeWrite(config: ServerConfig, request: FastifyRequest): void {
  if (!config.allowUpdate || !config.token)
    throw new HttpError(
      403,
      'writes are off on this server; start it with --allow-update (and a token) to accept SPARQL Update and Graph Store writes',
    );
  if (!sameToken(config.token, bearerToken(request)))
    throw new HttpError(401, 'writes need the server token in an "Authorization: Bearer <token>" header', {
      'www-authenticate': 'Bearer realm="weave"',
    });
}

/** Whether a read must show the token: only when the server listens beyond loopback. */
function readNeedsToken(config: ServerConfig): boolean {
  return !isLoopback(config.host);
}

export function authorizeRead(config: ServerConfig, request: FastifyRequest, path?: string): void {
  const inPath = path === undefined ? undefined : pathToken(path);
  if (inPath !== undefined) {
    if (config.token && sameToken(config.token, inPath)) return;
    throw new HttpError(401, 'the token in this URL is not the server token');
  }
  if (!readNeedsToken(config) || !config.token) return;
  if (sameToken(config.token, bearerToken(request)) || sameToken(config.token, cookieToken(request))) return;
  throw new HttpError(
    401,
    'this server needs its token: an "Authorization: Bearer <token>" header, or open /?token=<token> once in a browser',
    {
      'www-authenticate': 'Bearer realm="weave"',
    },
  );
}

/**
 * DNS rebinding defence for a loopback bind: a page on another site whose name resolves to
 * 127.0.0.1 reaches the server with its own name in Host. Only loopback names are answered.
 */
export function checkHost(config: ServerConfig, request: FastifyRequest): void {
  if (!isLoopback(config.host)) return;
  // Node keeps the first of two Host headers; a proxy or a cache may honour the last: every one must pass.
  const hosts = request.raw.rawHeaders.filter((_, i, raw) => i % 2 === 0 && raw[i].toLowerCase() === 'host').length;
  if (hosts > 1) throw new HttpError(400, `a request names one Host, not ${hosts}`);
  const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  if (!isLoopback(host))
    throw new HttpError(403, `this server answers only to loopback names (localhost, 127.0.0.1, [::1]), not "${host}"`);
}
