import { Writer } from 'n3';
import oxigraph from 'oxigraph';
import { formatOf, mediaTypeNamed } from '../../../query/formats.ts';
import { NoTripleTermsError, NotXmlGraphError, writeGraph } from '../../../query/graph-results.ts';
import { runQuery } from '../../../query/run.ts';
import { solutionForm } from '../../../query/solutions.ts';
import type { JsonResults } from '../../../query/table.ts';
import type { OxStore } from '../../../store/store.ts';
import { HttpError } from '../../errors.ts';
import type { JobResult, QueryJob } from '../../messages.ts';
import { answer, solutionsAnswer } from '../../answer.ts';
import { isTrap } from '../../../query/traps.ts';

/**
 * A SPARQL query on a query worker's copy of the store, written in the first format the client
 * accepts that can hold the result: triple terms in the form the request asks for (`?rdf=`,
 * `triple-terms=literal`, or the server's `--rdf`), and never XML that XML 1.0 cannot carry.
 * Queries with SERVICE or sources run federated (`runFederatedJob`: Comunica, loaded in this worker
 * on first use), so the server's timeout ends them as it ends any other. A plain function over a store, tested
 * without threads; every failure is an HttpError with the client's status.
 */

/** The results syntaxes Oxigraph writes as SPARQL 1.2 does, triple terms included. */
const OXIGRAPH_WRITES = new Set(['json', 'tsv']);

/**
 * `union`: what the worker knows of its store's union, `set` when each triple sits in one graph
 * (src/store/restated.ts), else whether its own default graph is empty.
 */
export function runQueryJob(store: OxStore, job: QueryJob, union: { set?: boolean; defaultGraphEmpty?: boolean } = {}): JobResult {
  const run = (format: string) => {
    try {
      return runQuery(
        store,
        job.query,
        {
          results_format: format,
          default_graph: job.defaultGraphs,
          named_graphs: job.namedGraphs,
          base_iri: job.baseIri,
          defaultGraphEmpty: union.defaultGraphEmpty,
          unionIsSet: union.set,
        },
        oxigraph,
      ) as string;
    } catch (e) {
      if (isTrap(e)) throw e;
      throw new HttpError(400, (e as Error).message);
    }
  };
  if (job.graphResult) return graphAnswer(run(mediaTypeNamed('nquads')), job);
  const format = job.accept[0];
  // Oxigraph's own JSON and TSV when nothing is to change; everything else from its JSON: XML,
  // which must never be ill-formed, and CSV, where Oxigraph writes a triple term as `s p o`.
  if (OXIGRAPH_WRITES.has(formatOf(format)?.name ?? '') && solutionForm(format, job.tripleTerms) === '1.2')
    return answer(run(format), format, job.maxResultBytes);
  return solutionsAnswer(JSON.parse(run(mediaTypeNamed('json'))) as JsonResults, job);
}

/** A graph (N-Quads text) in the first accepted format that can hold it, triple terms as the job asks. */
export function graphAnswer(nquads: string, job: Pick<QueryJob, 'accept' | 'tripleTerms' | 'maxResultBytes'>): JobResult {
  const reasons = new Set<string>();
  for (const format of job.accept) {
    try {
      return answer(writeGraph(nquads, format, job.tripleTerms), format, job.maxResultBytes);
    } catch (e) {
      if (!(e instanceof NoTripleTermsError || e instanceof NotXmlGraphError)) throw e;
      reasons.add(
        e instanceof NoTripleTermsError ? 'it holds RDF 1.2 triple terms (ask for rdf=1.1)' : e.message.replace(/^the result /, 'it '),
      );
    }
  }
  throw new HttpError(
    406,
    `the result cannot be sent as ${job.accept.join(', ')}: ${[...reasons].join('; ')}; accept text/turtle, application/n-triples or application/n-quads`,
  );
}

export async function runFederatedJob(store: OxStore, job: QueryJob): Promise<JobResult> {
  const { runFederated } = await import('../../../federation/engine.ts');
  const { FederationError, QueryTimedOut, UnreachableSource } = await import('../../../federation/errors.ts');
  let result: Awaited<ReturnType<typeof runFederated>>;
  try {
    result = await runFederated(store, job.query, { ...job.federation!, baseIri: job.baseIri, files: false });
  } catch (e) {
    if (e instanceof UnreachableSource) throw new HttpError(502, e.message);
    if (e instanceof QueryTimedOut) throw new HttpError(504, e.message);
    if (e instanceof FederationError) throw new HttpError(400, e.message);
    throw e;
  }
  if (result.kind === 'solutions') return solutionsAnswer(result.results, job);
  const writer = new Writer({ format: 'N-Quads' });
  writer.addQuads(result.quads);
  let nquads = '';
  writer.end((_e, text) => (nquads = text));
  return graphAnswer(nquads, job);
}
