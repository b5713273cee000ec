/**
 * The session's title as `weave conversation` heads it: the weave:title of its main transcript
 * (a sub-agent's transcript has a title of its own), the first one the store answers with.
 */
export const sessionTitleQuery = (graph: string) =>
  `SELECT ?title WHERE { GRAPH <${graph}> { ?t weave:title ?title FILTER NOT EXISTS { ?t weave:parentTranscript ?p } } }`;
