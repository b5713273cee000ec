/** Told how many graphs the external store now holds anew (`bulk`: loaded by its bulk loader). */
export type OnSent = (graphs: number, bulk: boolean) => void;

/**
 * A second home for the graphs: an external SPARQL store that queries are sent to (store/remote/).
 * A graph is put there after its file is in place and before the manifest names it, so the
 * manifest names only graphs the external store holds; a failed put leaves the session to be read
 * again by the next ingest.
 */
export interface GraphMirror {
  /** `read`: the graph whole, its N-Quads as stored (its files stay until the manifest stops naming them, so it may be read later). */
  put(graph: string, read: () => Promise<Buffer>): Promise<void>;
  remove(graph: string): Promise<void>;
  /** Sends what was gathered (a mirror that gathers puts for a bulk load); called before each manifest write. */
  settle?(): Promise<void>;
  /** How many graphs wait for `settle`. */
  gathered?(): number;
  /** The graphs gathered worth a manifest write (and the load before it): a bulk load's batch. */
  batch?: number;
}
