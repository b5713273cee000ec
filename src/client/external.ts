import { readRemoteConfig, type RemoteConfig, withoutCredentials } from '../store/remote/config.ts';
import { CUT_HEADER, cutAnswer, cutAt, standardJson } from '../store/remote/results.ts';
import { httpRequest } from './http.ts';

/**
 * An external store asked straight from the light entry (client/fast.ts), when no resident server
 * can be had for its directory (one with no manifest: a machine that never wrote to the store):
 * no TypeScript loader, no Oxigraph. The query is sent as store/remote/client.ts sends it
 * (store/remote/query-text.ts), so the answer is the one the full CLI gets.
 */

/** The store's answer was a refusal: its status and the first line of its text. */
export class ExternalAnswerError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The external store a store directory stands for; undefined for a store held here, or a remote.json the full CLI must explain. */
export async function externalStore(dir: string): Promise<RemoteConfig | undefined> {
  return readRemoteConfig(dir).catch(() => undefined);
}

/**
 * A SPARQL query's answer as text in `mediaType` (SPARQL 1.1 JSON results as the Recommendation
 * writes them). One the store says it cut short is refused (507), as RemoteStore refuses it; one
 * the store is silent on for `timeoutMs` fails with a TimeoutError.
 */
export async function askExternal(remote: RemoteConfig, query: string, mediaType: string, timeoutMs?: number): Promise<string> {
  // Loaded only here: its SPARQL parser is most of what the light entry would load otherwise.
  const { externalQueryText } = await import('../store/remote/query-text.ts');
  const { url, authorization } = withoutCredentials(remote.endpoint);
  const res = await httpRequest(url.href, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: mediaType,
      ...(authorization && { authorization }),
    },
    body: new URLSearchParams({ query: externalQueryText(query, { tripleTerms: remote.tripleTerms }) }).toString(),
    ...(timeoutMs && { timeoutMs }),
  });
  if (res.status < 200 || res.status >= 300) {
    // As RemoteStore words it: the store's first line, which may quote the query, never data we log.
    const first = res.text.trim().split('\n')[0].slice(0, 300);
    throw new ExternalAnswerError(res.status, `the external store answered the query with ${res.status}${first ? `: ${first}` : ''}`);
  }
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]
    .trim();
  const cut = cutAt(res.headers[CUT_HEADER]);
  if (cut !== undefined) throw new ExternalAnswerError(507, cutAnswer(cut));
  return type === 'application/sparql-results+json' ? new TextDecoder().decode(standardJson(new TextEncoder().encode(res.text))) : res.text;
}
