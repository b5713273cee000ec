import type { Job, JobResult } from '../../src/server/messages.ts';

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
