import oxigraph from 'oxigraph';
import { formatOf, mediaTypeNamed } from '../query/formats.ts';
import { QueryError, runQuery } from '../query/run.ts';
import { type RemoteStore, RemoteStoreError } from '../store/remote/client.ts';
import type { JsonResults, JsonTerm } from '../query/table.ts';
import type { StoreBackend } from './backend.ts';
import { datasetStats } from './dataset-stats.ts';
import { describeData, describeQueryJob } from './description.ts';
import { HttpError } from './errors.ts';
import { isWrite, type Job, type JobResult } from './messages.ts';
import type { Select } from './select.ts';
import type { PoolEvent } from './workers/pool.ts';
import { bounded, solutionsAnswer } from './answer.ts';

/**
 * A query's syntax checked as an embedded store checks it, on an empty Oxigraph store: a mistake
 * is told in Weave's words (the line and column of the user's text), not the external store's.
 */
function checkSyntax(query: string, graphResult: boolean): void {
  try {
    runQuery(new oxigraph.Store(), query, { results_format: mediaTypeNamed(graphResult ? 'nquads' : 'json') }, oxigraph);
  } catch (e) {
    if (e instanceof QueryError && e.message.startsWith('error at line')) throw new HttpError(400, e.message);
    // Anything else (SERVICE, a function Oxigraph lacks) is the external store's to answer.
  }
}

/**
 * The server in front of an external SPARQL store: the same routes, page, describe pages, access
 * rules and timeouts, with each job sent over HTTP instead of to a query worker (no copy of the
 * store is held here). A job past its deadline has its request aborted (504). Writes are not
 * forwarded: the external store takes them from `weave ingest` and `weave detect`, whose
 * manifest then stays true.
 */
export class RemoteBackend implements StoreBackend {
  quads = 0;
  private running = 0;
  private readonly counting: Promise<void>;

  constructor(
    private readonly remote: RemoteStore,
    private readonly options: { timeoutMs: number; onEvent?: (event: PoolEvent) => void },
  ) {
    const started = performance.now();
    this.counting = this.count().then(() =>
      options.onEvent?.({ kind: 'ready', quads: this.quads, seconds: (performance.now() - started) / 1000 }),
    );
  }

  get stats() {
    return { workers: 0, copies: 0, ready: 1, busy: this.running, standby: false, spare: false, queued: 0, queueLimit: 0, restarts: 0 };
  }

  get loading() {
    return undefined;
  }

  whenReady(): Promise<void> {
    return this.counting;
  }

  reload(): void {
    void this.count();
  }

  /** The external store holds each graph as it is sent: nothing waits for the manifest. */
  recorded(): void {}

  async close(): Promise<void> {}

  async run(job: Job, timeoutMs = this.options.timeoutMs): Promise<JobResult> {
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    this.running++;
    let outcome: JobResult | HttpError;
    try {
      outcome = await this.perform(job, signal);
    } catch (e) {
      outcome = this.failure(job, e, timeoutMs);
    } finally {
      this.running--;
    }
    this.options.onEvent?.({ kind: 'finished', op: job.op, status: outcome.status, seconds: (performance.now() - started) / 1000 });
    if (outcome instanceof HttpError) throw outcome;
    return outcome;
  }

  private async perform(job: Job, signal: AbortSignal): Promise<JobResult> {
    if (isWrite(job))
      throw new HttpError(
        403,
        `this server stands in front of the external store ${this.remote.config.endpoint}; weave ingest and weave detect write to it`,
      );
    switch (job.op) {
      case 'query': {
        checkSyntax(job.query, job.graphResult);
        const graphs = { defaultGraphs: job.defaultGraphs, namedGraphs: job.namedGraphs, signal };
        if (job.graphResult || formatOf(job.accept[0])?.name === 'json') {
          const answer = await this.remote.query(job.query, job.accept, graphs);
          return bounded(answer.body, answer.mediaType || job.accept[0], job.maxResultBytes);
        }
        // Solutions in CSV, TSV or XML are written here from the store's JSON, as the query workers write them.
        const { body } = await this.remote.query(job.query, [mediaTypeNamed('json')], graphs);
        bounded(body, mediaTypeNamed('json'), job.maxResultBytes);
        return solutionsAnswer(JSON.parse(new TextDecoder().decode(body)) as JsonResults, job);
      }
      case 'graph-read': {
        try {
          const { body } = await this.remote.getGraph(job.graph, job.accept[0], signal);
          return bounded(body, job.accept[0], job.maxResultBytes);
        } catch (e) {
          if (e instanceof RemoteStoreError && e.status === 404) throw new HttpError(404, `there is no graph <${job.graph}>`);
          throw e;
        }
      }
      case 'stats':
        return { status: 200, data: await datasetStats(this.select(signal), this.quads) };
      case 'describe': {
        if (!job.accept.length) return { status: 200, data: await describeData(this.select(signal), job.iri) };
        const query = describeQueryJob(job);
        const answer = await this.remote.query(query.query, query.accept, { signal });
        return bounded(answer.body, answer.mediaType || query.accept[0], job.maxResultBytes);
      }
    }
  }

  /** SELECTs for the describe page and VoID. */
  private select(signal: AbortSignal): Select {
    return async (query) => {
      const { body } = await this.remote.query(query, ['application/sparql-results+json'], { signal });
      return (JSON.parse(new TextDecoder().decode(body)) as { results?: { bindings: Record<string, JsonTerm>[] } }).results?.bindings ?? [];
    };
  }

  private failure(job: Job, e: unknown, timeoutMs: number): HttpError {
    if (e instanceof HttpError) return e;
    if ((e as Error).name === 'TimeoutError' || (e as Error).name === 'AbortError') {
      this.options.onEvent?.({ kind: 'timeout', op: job.op, where: 'running' });
      const seconds = (timeoutMs / 1000).toFixed(timeoutMs % 1000 ? 1 : 0);
      return new HttpError(504, `the query ran longer than the timeout of ${seconds} s and was stopped`);
    }
    // A query the store refused is the asker's (400); an answer it cut is not served as whole (507).
    if (e instanceof RemoteStoreError) return new HttpError(e.status === 400 || e.status === 507 ? e.status : 502, e.message);
    return new HttpError(502, `the external store failed (${(e as Error).name})`);
  }

  private async count(): Promise<void> {
    try {
      const rows = await this.select(AbortSignal.timeout(this.options.timeoutMs))(
        'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }',
      );
      this.quads = Number(rows[0]?.n?.value ?? 0);
      this.options.onEvent?.({ kind: 'store', quads: this.quads });
    } catch {
      // The count is for /status only; queries say what is wrong with the store.
    }
  }
}
