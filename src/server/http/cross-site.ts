import type { FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.ts';
import { HttpError } from '../errors.ts';

/**
 * Requests a page on another site makes the browser send. CORS keeps such a page from reading an
 * answer, not from sending the request: a form POST is a "simple request" (no preflight), and an
 * `<img>` or a no-cors fetch is a GET; either can make a worker grind a cross join until the
 * timeout. So a request the browser marks as coming from another origin is refused before it
 * reaches a worker, unless `--cors-origin` lets that origin in, or it is the user following a link
 * (a top-level navigation: the query page or a shared query URL opened from elsewhere).
 *
 * Browsers mark requests with `Sec-Fetch-Site` (a page cannot set it) and, on POST and on CORS
 * requests, `Origin`. Command-line clients and federators send neither and are never refused.
 */
export function checkCrossSite(config: ServerConfig, request: FastifyRequest): void {
  const site = header(request, 'sec-fetch-site');
  // `none`: the user typed the URL or opened a bookmark.
  if (site === 'same-origin' || site === 'none') return;
  const origin = header(request, 'origin');
  const foreign = origin !== undefined ? !sameHost(origin, header(request, 'host')) : site === 'cross-site' || site === 'same-site';
  if (!foreign) return;
  if (origin !== undefined && (config.corsOrigins.includes('*') || config.corsOrigins.includes(origin))) return;
  const safe = request.method === 'GET' || request.method === 'HEAD';
  if (safe && header(request, 'sec-fetch-mode') === 'navigate' && header(request, 'sec-fetch-dest') === 'document') return;
  throw new HttpError(
    403,
    'a request a page on another site sent through the browser is refused; to let a site query this server, start it with --cors-origin ORIGIN',
  );
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether an Origin names the host the request reached (the scheme differs behind a TLS proxy). */
function sameHost(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    return false; // `null` (a sandboxed frame, a file) or not a URL: not this server
  }
}
