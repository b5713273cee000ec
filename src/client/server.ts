import type { FoundServer } from '../store/running.ts';
import { httpRequest } from './http.ts';

/**
 * Talking to a running `weave serve` found through its run file (store/running.ts): requests
 * carry its token, and a server still opening its store is waited for, as its Retry-After says,
 * since it will be open sooner than this process could open the store itself.
 */

/** An answer the server refused: its status and its one-line message (`400 Bad Request: …`). */
export class ServerError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether a request failed because the server is gone, not because of the request: it stopped
 * (refused), died while answering (reset), or is stopping as it is asked (for idleness that very
 * moment, its pool then answers 503). Asked again of a server found or started anew, it answers.
 */
export function serverGone(e: unknown): boolean {
  if (e instanceof ServerError) return e.status === 503 && /shutting down/.test(e.message);
  return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes((e as NodeJS.ErrnoException).code ?? '');
}

interface ServerAnswer {
  mediaType: string;
  text: string;
}

/** The longest this process waits in all for a server that is still loading its store. */
const LOADING_PATIENCE_MS = 10 * 60_000;

export async function askServer(
  server: FoundServer,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<ServerAnswer> {
  const started = performance.now();
  for (;;) {
    const res = await httpRequest(new URL(path, server.url).href, {
      ...init,
      headers: { ...init.headers, authorization: `Bearer ${server.token}` },
    });
    const { status, text } = res;
    if (status >= 200 && status < 300)
      return {
        mediaType: String(res.headers['content-type'] ?? '')
          .split(';')[0]
          .trim(),
        text,
      };
    const retryAfter = Number(res.headers['retry-after']);
    const loading = status === 503 && /the store is still loading/.test(text);
    if (!loading || !(retryAfter > 0) || performance.now() - started > LOADING_PATIENCE_MS) throw new ServerError(status, text.trim());
    await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfter, 5) * 1000));
  }
}

/**
 * A SPARQL query by POST, answered in `mediaType`, triple terms written as `rdf` says (the
 * server's `--rdf` if absent), joined with `sources` (endpoints or documents by URL) when given,
 * cut at `timeoutMs` or the server's own timeout, whichever is shorter.
 */
export function queryServer(
  server: FoundServer,
  query: string,
  mediaType: string,
  rdf?: string,
  sources: string[] = [],
  timeoutMs?: number,
): Promise<ServerAnswer> {
  const params = new URLSearchParams();
  if (rdf) params.set('rdf', rdf);
  if (timeoutMs) params.set('timeout', String(timeoutMs / 1000));
  for (const source of sources) params.append('source', source);
  return askServer(server, params.size ? `sparql?${params}` : 'sparql', {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept: mediaType },
    body: query,
  });
}

/** Solutions of a SELECT as rows of plain values (unbound variables absent). */
export async function selectRows(server: FoundServer, query: string): Promise<Record<string, string>[]> {
  const { text } = await queryServer(server, query, 'application/sparql-results+json');
  const json = JSON.parse(text) as { results?: { bindings: Record<string, { value: string }>[] } };
  return (json.results?.bindings ?? []).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v.value)])));
}
