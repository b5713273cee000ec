import { serviceTargets } from '../query/lexer.ts';
import { PREFIXES } from '../rdf/vocab.ts';
import { FederationError, UnreachableSource } from './errors.ts';
import { WholeAnswer } from './whole-answer.ts';

/**
 * Which remote endpoints a federated query may contact. Bound values travel to a SERVICE
 * endpoint (and can carry transcript content), so only endpoints on the allow-list are ever
 * asked: a query naming another is refused before anything runs, and every HTTP request the
 * engine makes passes the same check (`guardedFetch`).
 */

/** Whether a query or request needs Comunica: it names sources, or a SERVICE clause (checked by the lexer). */
export function needsFederation(query: string, sources: readonly string[]): boolean {
  if (sources.length) return true;
  if (!/\bSERVICE\b/i.test(query)) return false;
  const targets = serviceTargets(query, PREFIXES);
  return targets.iris.length > 0 || targets.variable;
}

/** The endpoints a query's SERVICE clauses name, checked against `allow`. */
export function checkServices(query: string, allow: readonly string[], base?: string): string[] {
  const targets = serviceTargets(query, PREFIXES, base);
  if (targets.variable)
    throw new FederationError('SERVICE with a variable endpoint is refused: name the endpoint, which must be on the allow-list');
  const refused = targets.iris.filter((iri) => !allowed(iri, allow));
  if (refused.length)
    throw new FederationError(
      `SERVICE ${refused.map((i) => `<${i}>`).join(', ')} ${refused.length === 1 ? 'is' : 'are'} not on the allow-list${allow.length ? ` (${allow.join(', ')})` : ' (empty: start the server, or run the query, with --service-allow URL)'}`,
    );
  return targets.iris;
}

/** Whether `url` is an allowed endpoint, or a request to one (its query string or fragment aside). */
export function allowed(url: string, allow: readonly string[]): boolean {
  const bare = url.replace(/[?#].*$/s, '');
  return allow.some((a) => a === url || a.replace(/[?#].*$/s, '') === bare);
}

/**
 * `fetch` that refuses any URL off the allow-list, so nothing else can be contacted however the
 * engine decides to dereference. A request that reaches no server says which endpoint and why:
 * fetch's own error, passed on by Comunica, said only "fetch failed".
 */
export function guardedFetch(
  allow: readonly string[],
  base: typeof fetch = fetch,
  /** Told of each endpoint whose SPARQL results ended before they were whole. */
  onPartial: (endpoint: string) => void = () => {},
): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const endpoint = url.replace(/[?#].*$/s, '');
    if (!allowed(url, allow)) return Promise.reject(new FederationError(`refused to contact ${endpoint}: it is not on the allow-list`));
    return base(input, init).then(
      (response) => checkedAnswer(response, endpoint, init?.signal, onPartial),
      (e: unknown) => {
        if (init?.signal?.aborted) throw e;
        const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
        throw new UnreachableSource(`could not reach ${endpoint}: ${cause}`);
      },
    );
  };
}

/**
 * The response, its body failing with which endpoint and why when the connection is cut
 * mid-answer (fetch's own error said only "terminated": a 400 at the server, as if the query
 * were wrong). SPARQL results that end before they are whole (whole-answer.ts), which Comunica
 * took as all there are, are told to `onPartial` rather than failed here: Comunica's parser may
 * have failed on them already, and an error after that is one nobody handles.
 * Status, headers and URL (a document's base) stay as they were.
 */
function checkedAnswer(
  response: Response,
  endpoint: string,
  signal: AbortSignal | null | undefined,
  onPartial: (endpoint: string) => void,
): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const whole = new WholeAnswer(response.headers.get('content-type'));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) {
          whole.feed(value);
          controller.enqueue(value);
          return;
        }
        if (!whole.whole) onPartial(endpoint);
        controller.close();
      } catch (e) {
        if (signal?.aborted) controller.error(e);
        else controller.error(new UnreachableSource(`the answer from ${endpoint} was cut off: ${(e as Error)?.message ?? e}`));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const checked = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperties(checked, { url: { value: response.url }, redirected: { value: response.redirected } });
  return checked;
}
