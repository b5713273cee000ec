import oxigraph from 'oxigraph';
import { timedOut } from '../federation/query-time.ts';
import { QueryError, runQuery } from '../query/run.ts';
import { RemoteStore, RemoteStoreError } from './remote/client.ts';
import { readRemoteConfig } from './remote/config.ts';
import { rowsOf } from './remote/results.ts';
import { openStore } from './store.ts';

/**
 * Queries on a store, for a command with no server to ask: the store opened in this process, or,
 * for a store whose graphs live in an external SPARQL store, that store over HTTP. Either way
 * the union of all graphs is the default graph and Weave's prefixes are predeclared; a query the
 * store rejects is a QueryError with its message.
 */
export interface StoreQueries {
  /**
   * The result serialised as `mediaType`. `timeoutMs` cuts a query sent to an external store (one
   * run here by Oxigraph runs to its end: its WebAssembly cannot be interrupted in this process).
   */
  query(query: string, mediaType: string, options?: { timeoutMs?: number }): Promise<string>;
  /** The Oxigraph store when it is opened here (not an external store), for what needs it whole: federation, RDF 1.2 result modes. */
  store?: oxigraph.Store;
}

export async function openQueries(dir: string): Promise<StoreQueries> {
  const remote = await readRemoteConfig(dir);
  return remote ? externalQueries(new RemoteStore(remote)) : openedHere(dir);
}

async function openedHere(dir: string): Promise<StoreQueries> {
  const { store } = await openStore(dir);
  return { store, query: async (query, mediaType) => runQuery(store, query, { results_format: mediaType }, oxigraph) as string };
}

/** Queries on an external store, through its client. */
export function externalQueries(remote: RemoteStore): StoreQueries {
  return {
    async query(query, mediaType, { timeoutMs } = {}) {
      try {
        const signal = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;
        return new TextDecoder().decode((await remote.query(query, [mediaType], { signal })).body);
      } catch (e) {
        // A query the store refused, or an answer it cut short: the asker's to hear, in the store's words.
        if (e instanceof RemoteStoreError && (e.status === 400 || e.status === 507)) throw new QueryError(e.message);
        if (timeoutMs && (e as Error).name === 'TimeoutError') throw new QueryError(timedOut(timeoutMs));
        throw e;
      }
    },
  };
}

/** A SELECT's solutions as rows of plain values (unbound variables absent, and triple terms, which have no one value). */
export async function selectRows(queries: StoreQueries, query: string): Promise<Record<string, string>[]> {
  return rowsOf(await queries.query(query, 'application/sparql-results+json'));
}
