// The federation's errors, apart from its engine and sources: a command that only tells them from
// others (src/cli/query.ts) does not load rdf-ext and Comunica to do it.

/** A federated query the allow-list refuses, or that Comunica could not answer. */
export class FederationError extends Error {}

/** An allowed endpoint or source that could not be reached: the query was fine, the other server was not (502 at the endpoint). */
export class UnreachableSource extends FederationError {}

/** A federated query still running when its time (`--timeout`) was up: stopped, its answer unknown (504 at the endpoint). */
export class QueryTimedOut extends FederationError {}

/** An RDF file given as a source that cannot be read. */
export class SourceFileError extends Error {}
