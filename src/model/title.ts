/**
 * The session's title as `weave conversation` heads it: the weave:title of its main transcript
 * (a sub-agent's transcript has a title of its own), the first one the store answers with.
 */
export const sessionTitleQuery = (graph: string) =>
  `SELECT ?title WHERE { GRAPH <${graph}> { ?t weave:title ?title FILTER NOT EXISTS { ?t weave:parentTranscript ?p } } }`;

/** A session id as ingest writes them (a UUID, maybe `~` and a hash): nothing else reaches a query. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$/;

/**
 * The sessions whose id begins `given` in a whole store (several machines may have written it),
 * each with its graph and title. `given` must pass SESSION_ID: it is written inside a literal.
 */
export const sessionsNamedQuery = (given: string) => `SELECT ?id ?g (SAMPLE(?name) AS ?title) WHERE {
  GRAPH ?g { ?s a weave:Session ; dcterms:identifier ?id FILTER(STRSTARTS(?id, "${given}"))
    OPTIONAL { ?t weave:sessionId ?id ; weave:title ?name FILTER NOT EXISTS { ?t weave:parentTranscript ?p } } }
} GROUP BY ?id ?g ORDER BY ?id LIMIT 50`;
