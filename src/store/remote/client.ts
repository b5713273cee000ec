import oxigraph from 'oxigraph';
import { type RemoteConfig, withoutCredentials } from './config.ts';
import { queryForm } from '../../query/lexer.ts';
import { externalQueryText } from './query-text.ts';
import { graphPayload } from './rdf11.ts';
import { CUT_HEADER, cutAnswer, cutAt, cutsNote, graphCut, standardJson } from './results.ts';

/**
 * The HTTP side of an external store: graphs by the Graph Store Protocol (a PUT replaces a graph
 * whole, in one request), queries by the SPARQL 1.1 Protocol as query-text.ts writes them.
 * A user and password in the URL are sent as Basic authentication, never logged.
 */

export class RemoteStoreError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The rows the store cut its answer at (507), when it said so. */
    readonly cutAt?: number,
  ) {
    super(message);
  }
}

/** An IRI a SPARQL query can name as it is (IRIREF's characters). */
export const QUERYABLE_IRI = /^[^<>"{}|^`\\\x00-\x20]+$/;

/** The external stores this process has asked whether they cut their answers, by endpoint. */
const toldOfCut = new Set<string>();

/**
 * Tells `tell`, once a process for each store (a server and the ingests it runs ask the same one),
 * that the store cuts every answer at some number of rows, before an answer of the user's is
 * refused for it. A store that cannot be asked now is not told of here: what fails says why.
 */
export async function tellOfCut(remote: RemoteStore, tell: (note: string) => void): Promise<void> {
  if (toldOfCut.has(remote.config.endpoint)) return;
  toldOfCut.add(remote.config.endpoint);
  const rows = await remote.cutsAnswersAt().catch(() => undefined);
  if (rows !== undefined) tell(cutsNote(rows));
}

/** Queries sent to the store at once by one process; the rest wait their turn. */
export const CONCURRENT_QUERIES = 4;

/** The probe for a store that cuts its answers: 20,000 rows, more than a stock Virtuoso answers with. */
const PROBE = `SELECT ?a ?b ?c ?d ?e WHERE { ${['a', 'b', 'c', 'd'].map((v) => `VALUES ?${v} { 0 1 2 3 4 5 6 7 8 9 }`).join(' ')} VALUES ?e { 0 1 } }`;

const NTRIPLES = 'application/n-triples';
const SPARQL_JSON = 'application/sparql-results+json';

/** The triples in N-Triples: its lines but for blank ones and comments. */
export function tripleLines(body: Uint8Array): number {
  let triples = 0;
  let blank = true;
  let comment = false;
  for (const byte of body) {
    if (byte === 10 || byte === 13) {
      if (!blank && !comment) triples++;
      blank = true;
      comment = false;
    } else if (blank && byte !== 32 && byte !== 9) {
      blank = false;
      comment = byte === 35;
    }
  }
  return blank || comment ? triples : triples + 1;
}

/**
 * An answer in N-Triples (counted whole) in the format asked: as it is, or through Oxigraph. The
 * store holds no triple terms (it is sent their RDF 1.1 form); a dataset format gets the triples
 * in its default graph.
 */
function inFormat(answer: RemoteAnswer, mediaType: string): RemoteAnswer {
  if (mediaType === NTRIPLES) return { ...answer, mediaType };
  const graph = new oxigraph.Store();
  // Leniently, as a client that asked for the store's own syntax would have taken it as sent.
  graph.load(new TextDecoder().decode(answer.body), { format: NTRIPLES, lenient: true });
  return {
    status: answer.status,
    mediaType,
    body: new TextEncoder().encode(graph.dump({ format: mediaType, from_graph_name: oxigraph.defaultGraph() })),
  };
}

interface QueryOptions {
  defaultGraphs?: string[];
  namedGraphs?: string[];
  signal?: AbortSignal;
}

interface RemoteAnswer {
  status: number;
  mediaType: string;
  body: Uint8Array;
}

export class RemoteStore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private cutting?: Promise<number | undefined>;

  constructor(readonly config: RemoteConfig) {}

  /** Replaces `graph` (null: the default graph) with the quads of a graph file's bytes, as the mirror reads them. */
  async putGraph(graph: string | null, nquads: Uint8Array): Promise<void> {
    const body = graphPayload(new TextDecoder().decode(nquads), graph, this.config.tripleTerms);
    const res = await this.fetch(this.graphUrl(graph), { method: 'PUT', headers: { 'content-type': 'application/n-triples' }, body });
    if (!res.ok) throw await this.failure(res, `PUT of graph ${graph ?? 'default'}`);
  }

  /** Replaces `graph` with a Turtle document (the ontology), parsed here so relative IRIs resolve against `base`. */
  async putTurtle(graph: string, turtle: string, base: string): Promise<void> {
    const lines = oxigraph.parse(turtle, { format: 'text/turtle', base_iri: base }).map((q) => `${q.subject} ${q.predicate} ${q.object} .`);
    const res = await this.fetch(this.graphUrl(graph), {
      method: 'PUT',
      headers: { 'content-type': 'application/n-triples' },
      body: `${lines.join('\n')}\n`,
    });
    if (!res.ok) throw await this.failure(res, `PUT of graph ${graph}`);
  }

  /** Drops `graph`; one that is not there is already gone. */
  async deleteGraph(graph: string | null): Promise<void> {
    const res = await this.fetch(this.graphUrl(graph), { method: 'DELETE' });
    if (!res.ok && res.status !== 404) throw await this.failure(res, `DELETE of graph ${graph ?? 'default'}`);
  }

  /**
   * A graph (null: the default graph), whole, in `mediaType`. A store may cut a Graph Store GET
   * without a word (Virtuoso at its ResultSetMaxRows, with not even the header it sends beside a
   * cut SELECT), so the triples sent are counted against the store's own count of the graph, and a
   * graph sent short is refused (507) as a cut answer is. A write between the two asks changes the
   * count: they are asked once more before that. The default graph, which no query names alike on
   * every store, and a graph whose IRI no query can name, are sent as the store sends them.
   */
  async getGraph(graph: string | null, mediaType: string, signal?: AbortSignal): Promise<RemoteAnswer> {
    for (let asked = 1; ; asked++) {
      const answer = await this.inTurn(async () =>
        this.answer(await this.fetch(this.graphUrl(graph), { headers: { accept: NTRIPLES }, signal })),
      );
      if (graph === null || !QUERYABLE_IRI.test(graph)) return inFormat(answer, mediaType);
      const sent = tripleLines(answer.body);
      const held = await this.tripleCount(graph, signal);
      if (sent >= held) return inFormat(answer, mediaType);
      if (asked === 2) throw new RemoteStoreError(507, graphCut(sent, held), sent);
    }
  }

  /**
   * A CONSTRUCT's triples, whole, in `mediaType`. A store that cuts every answer at N rows cuts a
   * CONSTRUCT's triples there too, and says nothing (Virtuoso sends N + 1 triples, with none of
   * the header it sends beside a cut SELECT): they are asked as N-Triples, and more than N from
   * such a store are refused (507), as a cut SELECT is.
   */
  private async construct(query: string, mediaType: string, options: QueryOptions): Promise<RemoteAnswer> {
    const [answer, cut] = await Promise.all([this.ask(query, [NTRIPLES], options), this.cutsAnswersAt().catch(() => undefined)]);
    if (cut !== undefined && tripleLines(answer.body) > cut) throw new RemoteStoreError(507, cutAnswer(cut), cut);
    return inFormat(answer, mediaType);
  }

  /** How many triples the store holds in `graph`. */
  private async tripleCount(graph: string, signal?: AbortSignal): Promise<number> {
    const { body } = await this.query(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${graph}> { ?s ?p ?o } }`, [SPARQL_JSON], { signal });
    const json = JSON.parse(new TextDecoder().decode(body)) as { results?: { bindings: { n?: { value: string } }[] } };
    return Number(json.results?.bindings[0]?.n?.value ?? 0);
  }

  /**
   * A query, its result in the first of `accept` the store gives (a CONSTRUCT's, in the first of
   * `accept`, counted whole: `construct`). Errors are the store's status and its first line of
   * text, as it gave them.
   */
  async query(query: string, accept: string[], options: QueryOptions = {}): Promise<RemoteAnswer> {
    return queryForm(query) === 'CONSTRUCT' ? this.construct(query, accept[0], options) : this.ask(query, accept, options);
  }

  private async ask(query: string, accept: string[], options: QueryOptions): Promise<RemoteAnswer> {
    const named = !!(options.defaultGraphs?.length || options.namedGraphs?.length);
    const form = new URLSearchParams({ query: externalQueryText(query, { tripleTerms: this.config.tripleTerms, graphsNamed: named }) });
    for (const g of options.defaultGraphs ?? []) form.append('default-graph-uri', g);
    for (const g of options.namedGraphs ?? []) form.append('named-graph-uri', g);
    return this.inTurn(async () => {
      const res = await this.fetch(this.config.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: accept.map((t, i) => `${t};q=${(1 - i / 100).toFixed(2)}`).join(', '),
        },
        body: form.toString(),
        signal: options.signal,
      });
      return this.answer(res);
    });
  }

  /**
   * The rows the store cuts every answer at, when that is fewer than 20,000 (a stock
   * virtuoso.ini's 10,000 is): asked with a query of that many rows made of nothing but VALUES,
   * so a user hears of it before an answer of theirs is refused. Undefined for a store that
   * answered it whole.
   */
  cutsAnswersAt(): Promise<number | undefined> {
    // Asked once; a store that could not be asked is asked again next time.
    this.cutting ??= this.probeCut().catch((e) => {
      this.cutting = undefined;
      throw e;
    });
    return this.cutting;
  }

  private async probeCut(): Promise<number | undefined> {
    try {
      await this.query(PROBE, ['text/tab-separated-values']);
      return undefined;
    } catch (e) {
      if (e instanceof RemoteStoreError && e.cutAt !== undefined) return e.cutAt;
      throw e;
    }
  }

  /**
   * Runs `request` (sent and read whole) when fewer than CONCURRENT_QUERIES are under way: a page
   * asks its dozen SELECTs at once, and Virtuoso's HTTP server resets the connections past its
   * MaxClientConnections (10 by default).
   */
  private async inTurn<T>(request: () => Promise<T>): Promise<T> {
    while (this.running >= CONCURRENT_QUERIES) await new Promise<void>((go) => this.waiting.push(go));
    this.running++;
    try {
      return await request();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private async answer(res: Response): Promise<RemoteAnswer> {
    if (!res.ok) throw await this.failure(res, 'query');
    // An answer cut short is not an answer: whoever asked (a page, a report, a count) would take
    // it for the whole. 507, as a server here answers a result past its limit.
    const cut = cutAt(res.headers.get(CUT_HEADER));
    if (cut !== undefined) {
      await res.body?.cancel();
      throw new RemoteStoreError(507, cutAnswer(cut), cut);
    }
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const body = new Uint8Array(await res.arrayBuffer());
    return { status: res.status, mediaType, body: mediaType === 'application/sparql-results+json' ? standardJson(body) : body };
  }

  private graphUrl(graph: string | null): string {
    const url = new URL(this.config.graphStore);
    url.username = '';
    url.password = '';
    if (graph === null) url.searchParams.set('default', '');
    else url.searchParams.set('graph', graph);
    return url.href.replace(/default=$/, 'default');
  }

  private fetch(address: string, init: RequestInit): Promise<Response> {
    const { url, authorization } = withoutCredentials(address);
    const headers = { ...(init.headers as Record<string, string>), ...(authorization && { authorization }) };
    return fetch(url, { ...init, headers }).catch((e) => {
      if ((e as Error).name === 'TimeoutError' || (e as Error).name === 'AbortError') throw e;
      throw new RemoteStoreError(
        502,
        `the external store at ${url.origin} cannot be reached (${(e as Error).cause ?? (e as Error).message})`,
      );
    });
  }

  private async failure(res: Response, what: string): Promise<RemoteStoreError> {
    // The store's own message, first line only: it may quote the query, never data we log.
    const text = (await res.text().catch(() => '')).trim().split('\n')[0].slice(0, 300);
    return new RemoteStoreError(res.status, `the external store answered the ${what} with ${res.status}${text ? `: ${text}` : ''}`);
  }
}
