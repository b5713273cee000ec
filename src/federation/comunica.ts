import type * as RDF from '@rdfjs/types';

/**
 * Comunica's engine as Weave runs it: its default engine with two of its optimizers set as
 * SPARQL 1.1 Federated Query reads, reached on its buses (a Comunica that moves them leaves the
 * defaults, and test/federation says so).
 */

/** An algebra operation, as far as the projection is read from it. */
export type Algebra = { type: string; input?: Algebra; variables?: RDF.Variable[] };
export type QueryResult =
  | { resultType: 'bindings'; execute(): Promise<AsyncIterable<Bindings>>; metadata(): Promise<{ variables: RDF.Variable[] }> }
  | { resultType: 'quads'; execute(): Promise<AsyncIterable<RDF.Quad>> }
  | { resultType: 'boolean'; execute(): Promise<boolean> }
  | { resultType: 'void' };
export type Bindings = Iterable<[RDF.Variable, RDF.Term]>;

export type Engine = {
  query(query: string, context: Record<string, unknown>): Promise<QueryResult>;
  /** The query's algebra as parsed, before anything runs. */
  explain(query: string, context: Record<string, unknown>, mode: 'parsed'): Promise<{ data: Algebra }>;
};

/** The context entry of a query that has a SERVICE SILENT: see `silentServicesKeepTheirEdge`. */
export const SILENT_SERVICE = 'weave:silentService';

type Action = { operation: unknown; context: { get(key: { name: string }): unknown } };
type Actor = {
  name?: string;
  serviceForceSparqlEndpoint?: boolean;
  run?(action: Action): Promise<unknown>;
  mediatorOptimizeQueryOperation?: Bus;
};
type Bus = { bus?: { actors?: Actor[] } };

let engine: Promise<Engine> | undefined;

/** Comunica loads once per process, on the first federated query (it takes a second). */
export function comunica(): Promise<Engine> {
  engine ??= import('@comunica/query-sparql').then(({ QueryEngine }) => {
    const queryEngine = new QueryEngine();
    const optimizers = optimizersOf(queryEngine);
    serviceTargetsAreEndpoints(optimizers);
    silentServicesKeepTheirEdge(optimizers);
    return queryEngine as unknown as Engine;
  });
  return engine;
}

/** The actors on the bus that optimizes a query's algebra. */
function optimizersOf(queryEngine: unknown): Actor[] {
  const processors = (queryEngine as { actorInitQuery?: { mediatorQueryProcess?: Bus } }).actorInitQuery?.mediatorQueryProcess?.bus?.actors;
  return [...new Set((processors ?? []).flatMap((actor) => actor.mediatorOptimizeQueryOperation?.bus?.actors ?? []))];
}

/**
 * A SERVICE IRI names a SPARQL endpoint (SPARQL 1.1 Federated Query), and the allow-list lists
 * endpoints. Comunica's default engine fetches the IRI first to tell what it is, unless it ends
 * in /sparql: an endpoint that refuses a GET without a query (`oxigraph serve`'s /query: 400)
 * failed the query ("Could not retrieve …") without being asked it, or under SILENT was taken as
 * an empty document. Its actor that identifies SERVICE targets has a switch for this, which the
 * default engine leaves off.
 */
function serviceTargetsAreEndpoints(optimizers: Actor[]): void {
  for (const actor of optimizers) if ('serviceForceSparqlEndpoint' in actor) actor.serviceForceSparqlEndpoint = true;
}

/** The optimizers that move work into a source's part of the query, across a SERVICE's edge. */
const CROSSING = ['#group-sources', '#filter-pushdown'];

/**
 * A failed SERVICE SILENT is one solution with no bindings, and what stands around it is
 * evaluated over that solution (§4). Comunica puts the one solution in place of whatever the
 * silent source was given, and two of its optimizers give it more than the SERVICE's body: one
 * hoists the operators above a lone SERVICE into the endpoint's part (a COUNT, a BIND, an ASK or a
 * CONSTRUCT), the other pushes outer FILTERs down into it. A failing endpoint then answered COUNT
 * unbound, ASK and CONSTRUCT with an error, a BIND unbound and a FILTER(BOUND) as passed. For a
 * query with a SERVICE SILENT both stand aside: each pattern of the body is asked on its own and
 * joined here, the same answer from a working endpoint (more requests, more rows carried).
 */
function silentServicesKeepTheirEdge(optimizers: Actor[]): void {
  for (const actor of optimizers) {
    const run = actor.run?.bind(actor);
    if (!run || !CROSSING.some((name) => actor.name?.endsWith(name))) continue;
    actor.run = (action) => (action.context.get({ name: SILENT_SERVICE }) ? Promise.resolve(action) : run(action));
  }
}
