import { serviceTargets } from '../query/lexer.ts';
import { PREFIXES } from '../rdf/vocab.ts';
import { FederationError, UnreachableSource } from './errors.ts';
import { endpointsCut, type QueryTime, timeoutText } from './query-time.ts';
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
 * fetch's own error, passed on by Comunica, said only "fetch failed". So does an answer that is an
 * HTTP error, or no SPARQL results to a query (`unusable`). With the query's `time`, every request
 * is cut when the endpoints' share of it is up (query-time.ts), and fails saying so.
 */
export function guardedFetch(allow: readonly string[], time?: QueryTime, base: typeof fetch = fetch): typeof fetch {
  const cut = time && endpointsCut(time);
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const endpoint = url.replace(/[?#].*$/s, '');
    if (!allowed(url, allow)) return Promise.reject(new FederationError(`refused to contact ${endpoint}: it is not on the allow-list`));
    // Once the endpoints' time is up, whatever error the abort raised says so.
    const late = () =>
      cut?.aborted && time
        ? new UnreachableSource(`${endpoint} did not answer within the query's timeout of ${timeoutText(time.timeoutMs)} (--timeout)`)
        : undefined;
    const signal = cut ? (init?.signal ? AbortSignal.any([init.signal, cut]) : cut) : init?.signal;
    return base(input, signal ? { ...init, signal } : init).then(
      (response) => {
        const refusal = unusable(response, url, init);
        if (!refusal) return checkedAnswer(response, endpoint, init?.signal, late);
        // Its body is the endpoint's message, which may quote the query (and the values bound in it).
        response.body?.cancel().catch(() => {});
        throw new UnreachableSource(`${endpoint} answered ${refusal}`);
      },
      (e: unknown) => {
        const timedOut = late();
        if (timedOut) throw timedOut;
        if (init?.signal?.aborted) throw e;
        const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
        throw new UnreachableSource(`could not reach ${endpoint}: ${cause}`);
      },
    );
  };
}

/** Whether a request asks an endpoint a query (the SPARQL Protocol's `?query=`, or a POST), not for a document. */
function asksQuery(url: string, init: RequestInit | undefined): boolean {
  const method = init?.method?.toUpperCase() ?? 'GET';
  return (method !== 'GET' && method !== 'HEAD') || new URL(url).searchParams.has('query');
}

/**
 * What makes an answer no answer, if anything: an HTTP error (to a query or for a document), or,
 * a query asked for SPARQL results, another media type (a proxy's or a login page in HTML).
 * Comunica said "Invalid SPARQL endpoint response", "Could not retrieve" or "Unknown SPARQL
 * results content type", a 400 at the server, as if the query were wrong.
 */
function unusable(response: Response, url: string, init: RequestInit | undefined): string | undefined {
  if (!response.ok) return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const type = response.headers.get('content-type');
  if (
    asksQuery(url, init) &&
    /application\/sparql-results/i.test(new Headers(init?.headers).get('accept') ?? '') &&
    !new WholeAnswer(type).judged
  )
    return `${type?.split(';')[0].trim() || 'with no Content-Type'}, not SPARQL results`;
  return undefined;
}

/**
 * The response, its body failing with which endpoint and why when the connection is cut
 * mid-answer (fetch's own error said only "terminated": a 400 at the server, as if the query
 * were wrong) or when SPARQL results end before they are whole (whole-answer.ts), which
 * Comunica's parsers took as all there are.
 *
 * SPARQL results are held until they are whole and only then passed on, so a failure reaches
 * Comunica before any solution does: under `SERVICE SILENT` Comunica puts one solution with no
 * bindings in place of a source that fails before it yields anything (SPARQL 1.1 Federated
 * Query §4), but keeps what it yielded before a later failure (the solutions of an answer cut
 * off or stopping short). The price: a query that needs only the first solutions of a long
 * answer waits for all of it. Other answers (RDF documents, graphs) stream as they come.
 * Status, headers and URL (a document's base) stay as they were.
 */
function checkedAnswer(
  response: Response,
  endpoint: string,
  signal: AbortSignal | null | undefined,
  late: () => UnreachableSource | undefined,
): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const whole = new WholeAnswer(response.headers.get('content-type'));
  const failure = (e: unknown) =>
    late() ?? (signal?.aborted ? e : new UnreachableSource(`the answer from ${endpoint} was cut off: ${(e as Error)?.message ?? e}`));
  // Comunica may cancel an answer it needs no more of while it is still being held.
  let cancelled = false;
  const cancel = (reason: unknown) => {
    cancelled = true;
    return reader.cancel(reason);
  };
  // Read when first asked (a high-water mark of 0), not at once: an error before its reader listens is one nobody handles.
  const body = whole.judged
    ? new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const held: Uint8Array[] = [];
            try {
              for (let read = await reader.read(); !read.done; read = await reader.read()) {
                whole.feed(read.value);
                held.push(read.value);
              }
            } catch (e) {
              controller.error(failure(e));
              return;
            }
            if (cancelled) return;
            if (!whole.whole) {
              controller.error(new UnreachableSource(`the answer from ${endpoint} ended before its results were whole`));
              return;
            }
            for (const chunk of held) controller.enqueue(chunk);
            controller.close();
          },
          cancel,
        },
        { highWaterMark: 0 },
      )
    : new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          } catch (e) {
            controller.error(failure(e));
          }
        },
        cancel,
      });
  const checked = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperties(checked, { url: { value: response.url }, redirected: { value: response.redirected } });
  return checked;
}
