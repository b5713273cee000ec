import type { Job, JobResult } from '../../src/server/messages.ts';
import type { QueryPool } from '../../src/server/workers/pool.ts';

/** A SELECT as the server hands it to a query worker, answered as SPARQL JSON results. */
export const queryJob = (text: string): Job => ({
  op: 'query',
  query: text,
  graphResult: false,
  baseIri: 'urn:soul:local:Weave/',
  accept: ['application/sparql-results+json'],
  defaultGraphs: [],
  namedGraphs: [],
  tripleTerms: '1.2',
  maxResultBytes: 1e6,
});

/** A job's answer as text. */
export const bodyText = (r: JobResult) => new TextDecoder().decode(r.body);

/** The quads a copy of the pool holds in `graph` (whichever copy takes the job). */
export const countIn = async (pool: QueryPool, graph: string) =>
  Number(
    JSON.parse(bodyText(await pool.run(queryJob(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${graph}> { ?s ?p ?o } }`)))).results.bindings[0].n
      .value,
  );
