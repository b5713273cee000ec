import oxigraph from 'oxigraph';
import { DATASET_FORMATS, SOLUTION_FORMATS } from '../../../query/formats.ts';
import { runQuery } from '../../../query/run.ts';
import type { OxStore } from '../../../store/store.ts';
import { HttpError } from '../../errors.ts';
import type { JobResult, QueryJob } from '../../messages.ts';
import { answer, NO_TRIPLE_TERMS, noFormatLeft } from './answer.ts';
import { isTrap } from './traps.ts';
import { flattenJsonResults } from './triple-terms.ts';

/**
 * A SPARQL query on a query worker's copy of the store, serialised in the first format the
 * client accepts that can hold the result. A plain function over a store, so it is tested
 * without threads; every failure is an HttpError with the client's status.
 */

export function runQueryJob(store: OxStore, job: QueryJob): JobResult {
  const run = (format?: string) => {
    try {
      return runQuery(
        store,
        job.query,
        { results_format: format, default_graph: job.defaultGraphs, named_graphs: job.namedGraphs, base_iri: job.baseIri },
        oxigraph,
      );
    } catch (e) {
      if (isTrap(e)) throw e;
      throw new HttpError(400, (e as Error).message);
    }
  };
  if (!job.graphResult) {
    const format = job.accept[0];
    let text = run(format) as string;
    if (job.tripleTermsAsText && format === SOLUTION_FORMATS.json) text = flattenJsonResults(text);
    return answer(text, format, job.maxResultBytes);
  }
  for (const format of job.accept) {
    let text: string;
    try {
      text = run(format) as string;
    } catch (e) {
      if (e instanceof HttpError && NO_TRIPLE_TERMS.test(e.message)) continue;
      throw e;
    }
    if (job.tripleTermsAsText && text.includes('<<(')) text = flattenQuads(run() as oxigraph.Quad[], format);
    return answer(text, format, job.maxResultBytes);
  }
  throw noFormatLeft(job.accept);
}

/** Quads with every triple term turned into a literal of its N-Triples text, serialised. */
export function flattenQuads(quads: oxigraph.Quad[], format: string): string {
  const flat = (t: oxigraph.Term) => (t.termType === 'Quad' ? oxigraph.literal(termToNt(t)) : t);
  const out = quads.map((q) =>
    oxigraph.quad(flat(q.subject) as oxigraph.Quad_Subject, q.predicate, flat(q.object) as oxigraph.Quad_Object, q.graph),
  );
  const store = new oxigraph.Store(out);
  return DATASET_FORMATS.has(format) ? store.dump({ format }) : store.dump({ format, from_graph_name: oxigraph.defaultGraph() });
}

/** A term in N-Triples syntax, triple terms as `<<( s p o )>>`. */
export function termToNt(t: oxigraph.Term): string {
  if (t.termType === 'Quad') {
    const q = t as oxigraph.Quad;
    return `<<( ${termToNt(q.subject)} ${termToNt(q.predicate)} ${termToNt(q.object)} )>>`;
  }
  return t.toString();
}
