import { residentServer } from '../client/daemon.ts';
import { queryServer, ServerError, serverGone } from '../client/server.ts';
import { returnsGraph } from '../query/run.ts';
import type { JsonResults, JsonTerm } from '../query/table.ts';
import { HttpError } from '../server/errors.ts';
import { QueryPool } from '../server/workers/pool.ts';
import { findServer, type FoundServer } from '../store/running.ts';
import { ManifestFollower } from './follow.ts';

/**
 * Where `weave mcp` sends its SPARQL: the `weave serve` running for the store, when there is one
 * (its store is open already), else a query worker opened here: the endpoint's own pool
 * (src/server/workers/pool.ts), so a query past the timeout is stopped by ending its thread,
 * results past the size limit are refused, and the server stays free to answer the next call.
 */

export interface GraphOptions {
  storeDir: string;
  soul: string;
  /** Longest a query may run, waiting for the store to open not included. */
  timeoutMs: number;
  /** Largest serialised result a query may produce (the tools then cut it to fit a model's context). */
  maxResultBytes: number;
  /** Answer here, never from a resident server started for the store (`--no-daemon`, WEAVE_NO_DAEMON). */
  noDaemon?: boolean;
}

/** A failure a tool reports to the agent as its error, in one line. */
export class GraphError extends Error {}

export class Graph {
  private pool?: QueryPool;
  private readonly follower: ManifestFollower;
  /** The resident server being started for the store, which the first query waits for. */
  private starting?: Promise<FoundServer | undefined>;

  private constructor(
    private readonly options: GraphOptions,
    private server: FoundServer | undefined,
  ) {
    this.follower = new ManifestFollower(options.storeDir);
  }

  /**
   * The running server for the store; else the store's resident server, started now in the
   * background as other commands start it (src/client/daemon.ts), which the first query waits
   * for; else (`noDaemon`, an external store, a start that failed) a worker that starts opening
   * the store here now, so the first query finds it open.
   */
  static async open(options: GraphOptions): Promise<Graph> {
    const graph = new Graph(options, await findServer(options.storeDir));
    if (!graph.server && !options.noDaemon) graph.starting = graph.resident();
    else if (!graph.server) await graph.openHere();
    return graph;
  }

  /** Who answers: the server's URL, a resident server starting, or "here". */
  get answeredBy(): string {
    return this.server ? this.server.url : this.starting ? 'the resident server it starts' : 'here';
  }

  /** The query's result in `mediaType`, over the union of the store's graphs, Weave's prefixes predeclared. */
  async ask(query: string, mediaType: string, retried = false): Promise<string> {
    if (this.starting) {
      this.server = await this.starting;
      this.starting = undefined;
      if (!this.server) await this.openHere();
    }
    if (this.server) {
      try {
        return (await queryServer(this.server, query, mediaType, '1.2')).text;
      } catch (e) {
        // The server stopped, or is stopping as it is asked (the agent outlives it, or it stopped idle): started again, else the store is opened here.
        if (!serverGone(e)) {
          if (e instanceof ServerError) throw new GraphError(e.message.replace(/^\d{3} [A-Za-z ]+: /, ''));
          throw e;
        }
        this.server = this.options.noDaemon || retried ? undefined : await this.resident();
        if (this.server) return this.ask(query, mediaType, true);
        await this.openHere();
      }
    }
    const pool = this.workers();
    // Sessions ingested since (a server keeps its own copy current): loaded before this query runs.
    const changed = await this.follower.changes();
    if (changed.length) pool.reload(changed);
    await this.opened(pool);
    try {
      const result = await pool.run({
        op: 'query',
        query,
        graphResult: returnsGraph(query),
        defaultGraphs: [],
        namedGraphs: [],
        accept: [mediaType],
        baseIri: `urn:soul:${this.options.soul}:Weave/`,
        tripleTerms: '1.2',
        maxResultBytes: this.options.maxResultBytes,
      });
      return new TextDecoder().decode(result.body);
    } catch (e) {
      if (e instanceof HttpError) throw new GraphError(e.message);
      throw e;
    }
  }

  /** A SELECT's solutions, as SPARQL JSON terms. */
  async select(query: string): Promise<Record<string, JsonTerm>[]> {
    const json = JSON.parse(await this.ask(query, 'application/sparql-results+json')) as JsonResults;
    return json.results?.bindings ?? [];
  }

  /** A SELECT's solutions as plain values (a variable left unbound is absent). */
  async rows(query: string): Promise<Record<string, string>[]> {
    return (await this.select(query)).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v.value)])));
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private resident(): Promise<FoundServer | undefined> {
    return residentServer(this.options.storeDir, { command: 'mcp' }).catch(() => undefined);
  }

  /** A query worker here, opening the store now, as the manifest is. */
  private async openHere(): Promise<void> {
    await this.follower.changes();
    this.workers();
  }

  private workers(): QueryPool {
    this.pool ??= new QueryPool({
      // One copy of the store: a query stopped at its deadline is replaced from disk.
      size: 1,
      storeDir: this.options.storeDir,
      soul: this.options.soul,
      timeoutMs: this.options.timeoutMs,
      queueLimit: 16,
      heapMb: Math.max(1024, Math.ceil((this.options.maxResultBytes / 1e6) * 4)),
    });
    return this.pool;
  }

  /** Waits while the store opens (an agent's call waits rather than fails); says why when it cannot open. */
  private async opened(pool: QueryPool): Promise<void> {
    while (pool.loading) {
      const why = pool.stats.openError;
      if (why) throw new GraphError(`the store cannot be opened: ${why}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
