import oxigraph from 'oxigraph';
import type { OxStore } from './store.ts';

type Quad = oxigraph.Quad;

/**
 * A triple several graphs state, held once. Oxigraph 0.5 reads its union default graph as a bag
 * (oxigraph#1919): a triple two session graphs state (a resumed, forked or copied session holds
 * the records it carries over) is counted twice, and a join over it repeats. Rewriting every
 * pattern of every query to read it once cost the endpoint most of its speed, so a query worker's
 * copy of the store holds each triple once instead: of the graphs that state it, the first by IRI
 * holds it, and the others' copies are set aside here (3,134 quads of the corpus's 579,164).
 *
 * Over the union a query is then a set as it stands. A job that reads graphs by name (a GRAPH
 * clause, the Graph Store Protocol, the dataset's counts) has the copies of those graphs put
 * back for its length (`withRestored`), and is read as it was before, the union through the
 * rewrite (src/query/merge.ts), so every graph still answers whole. A graph reloaded is made whole
 * first (`release`) and its shared triples looked up again after (`settle`), a lookup per quad of
 * that graph alone.
 */
export class Restatements {
  /** Each shared triple (by its N-Triples text): the triple and the graphs that state it, sorted; the first holds it. */
  private readonly shared = new Map<string, { triple: Quad; graphs: string[] }>();
  /** Per graph, the shared triples it states but does not hold. */
  private readonly aside = new Map<string, Set<string>>();

  /**
   * Finds every triple that more than one named graph of `store` states, and takes it out of all
   * of them but the first. One grouping over the store: about 1.5 s on the corpus.
   */
  static setAsideIn(store: OxStore): Restatements {
    const found = new Restatements();
    const rows = store.query('SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?s ?p ?o HAVING (COUNT(?g) > 1)') as Map<
      string,
      oxigraph.Term
    >[];
    for (const row of rows) {
      const triple = oxigraph.quad(row.get('s') as Quad['subject'], row.get('p') as Quad['predicate'], row.get('o') as Quad['object']);
      found.hold(store, triple, store.match(triple.subject, triple.predicate, triple.object, null).map(graphOf));
    }
    return found;
  }

  /** How many copies are set aside. */
  get size(): number {
    let n = 0;
    for (const keys of this.aside.values()) n += keys.size;
    return n;
  }

  /**
   * Runs `job` with the copies of `graphs` (or of every graph) back in the store, and sets them
   * aside again after, whatever `job` does. Nothing is put back for a graph that has none.
   */
  withRestored<T>(store: OxStore, graphs: Iterable<string> | 'all', job: () => T): T {
    const back = this.copiesOf(graphs);
    for (const quad of back) store.add(quad);
    try {
      return job();
    } finally {
      for (const quad of back) store.delete(quad);
    }
  }

  /** `withRestored` for a job that answers later (a federated query): the copies stay back until it has. */
  async withRestoredWhile<T>(store: OxStore, graphs: Iterable<string> | 'all', job: () => Promise<T>): Promise<T> {
    const back = this.copiesOf(graphs);
    for (const quad of back) store.add(quad);
    try {
      return await job();
    } finally {
      for (const quad of back) store.delete(quad);
    }
  }

  /** Puts every copy back for good and forgets them: the store is whole again (before a write, say). */
  restoreAll(store: OxStore): void {
    for (const quad of this.copiesOf('all')) store.add(quad);
    this.shared.clear();
    this.aside.clear();
  }

  /**
   * Before `graph` is reloaded or dropped: its copies go back into it, so it is whole, and it is
   * taken out of what it shares. Where it held a triple another graph states, the next graph
   * holds it now.
   */
  release(store: OxStore, graph: string): void {
    for (const [key, entry] of this.shared) {
      const at = entry.graphs.indexOf(graph);
      if (at === -1) continue;
      if (at > 0) {
        store.add(withGraph(entry.triple, graph));
        this.aside.get(graph)?.delete(key);
      } else {
        // The next graph takes the triple back in.
        store.add(withGraph(entry.triple, entry.graphs[1]));
        this.aside.get(entry.graphs[1])?.delete(key);
      }
      entry.graphs.splice(at, 1);
      if (entry.graphs.length < 2) this.shared.delete(key);
    }
  }

  /** After `graph` was loaded (whole): the triples it shares with another graph are held once again. */
  settle(store: OxStore, graph: string): void {
    const g = `<${graph}>`;
    const rows = store.query(`SELECT ?s ?p ?o ?h WHERE { GRAPH ${g} { ?s ?p ?o } GRAPH ?h { ?s ?p ?o } FILTER(?h != ${g}) }`) as Map<
      string,
      oxigraph.Term
    >[];
    for (const row of rows) {
      const triple = oxigraph.quad(row.get('s') as Quad['subject'], row.get('p') as Quad['predicate'], row.get('o') as Quad['object']);
      const known = this.shared.get(triple.toString())?.graphs ?? [];
      this.hold(store, triple, [...known, graph, (row.get('h') as oxigraph.NamedNode).value]);
    }
  }

  /** Keeps `triple` in the first of `graphs` alone, the rest set aside. */
  private hold(store: OxStore, triple: Quad, graphs: string[]): void {
    const sorted = [...new Set(graphs)].sort();
    const key = triple.toString();
    this.shared.set(key, { triple, graphs: sorted });
    for (const graph of sorted.slice(1)) {
      store.delete(withGraph(triple, graph));
      let keys = this.aside.get(graph);
      if (!keys) this.aside.set(graph, (keys = new Set()));
      keys.add(key);
    }
  }

  private copiesOf(graphs: Iterable<string> | 'all'): Quad[] {
    const quads: Quad[] = [];
    for (const graph of graphs === 'all' ? this.aside.keys() : graphs)
      for (const key of this.aside.get(graph) ?? []) quads.push(withGraph(this.shared.get(key)!.triple, graph));
    return quads;
  }
}

function graphOf(quad: Quad): string {
  return quad.graph.termType === 'DefaultGraph' ? '' : quad.graph.value;
}

function withGraph(triple: Quad, graph: string): Quad {
  return oxigraph.quad(triple.subject, triple.predicate, triple.object, graph ? oxigraph.namedNode(graph) : oxigraph.defaultGraph());
}
