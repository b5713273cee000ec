import oxigraph from 'oxigraph';
import { formatOf, mediaTypeNamed } from '../../../query/formats.ts';
import type { OxStore } from '../../../store/store.ts';
import { HttpError } from '../../errors.ts';
import type { GraphReadJob, GraphWriteJob, JobResult } from '../../messages.ts';
import { answer } from '../../answer.ts';
import { graphExists, graphTerm } from './persist.ts';
import { graphAnswer } from './query.ts';
import { isTrap } from '../../../query/traps.ts';

/** The Graph Store Protocol's operations on one graph of a query worker's copy of the store. */

/**
 * A graph in the first of the client's formats that can hold it, by the format table's rules, as
 * a CONSTRUCT's (src/query/graph-results.ts). Oxigraph writes a graph straight into a syntax that
 * takes triple terms as stored and any text; any other (RDF/XML, JSON-LD, or triple terms in
 * another form than RDF 1.2) is written from the graph's N-Triples, so RDF/XML is refused for a
 * triple term or a character XML 1.0 cannot carry, as the query endpoint refuses it: Oxigraph
 * wrote both into it, an RDF/XML no RDF 1.1 parser reads and an ill-formed one.
 */
export function readGraphJob(store: OxStore, job: GraphReadJob): JobResult {
  if (!graphExists(store, job.graph)) throw new HttpError(404, `there is no graph <${job.graph}>`);
  const fromGraph = graphTerm(job.graph);
  const [first] = job.accept;
  if (job.tripleTerms === '1.2' && first && writtenAsStored(first))
    return answer(store.dump({ format: first, from_graph_name: fromGraph }), first, job.maxResultBytes);
  return graphAnswer(store.dump({ format: mediaTypeNamed('ntriples'), from_graph_name: fromGraph }), job);
}

/** A syntax that takes RDF 1.2 triple terms and any text as they are. */
function writtenAsStored(mediaType: string): boolean {
  const format = formatOf(mediaType);
  return !!format && !format.xml && format.tripleTerms['1.2'] === '1.2';
}

/**
 * PUT replaces a graph, POST adds to it, DELETE drops it. The payload is parsed on the side
 * first, so a syntax error leaves the graph as it was.
 */
export function writeGraphJob(store: OxStore, job: GraphWriteJob): JobResult {
  const target = graphTerm(job.graph);
  const existed = graphExists(store, job.graph);
  if (job.method === 'DELETE') {
    if (!existed) throw new HttpError(404, `there is no graph <${job.graph}>`);
    store.update(job.graph === null ? 'CLEAR DEFAULT' : `DROP GRAPH <${job.graph}>`);
    return { status: 204 };
  }
  const parsed = new oxigraph.Store();
  for (const part of job.parts) {
    try {
      parsed.load(part.text, { format: part.format, base_iri: job.graph ?? job.baseIri, to_graph_name: target });
    } catch (e) {
      if (isTrap(e)) throw e;
      throw new HttpError(400, `the ${part.format} payload does not parse: ${(e as Error).message}`);
    }
  }
  // Only a dataset syntax among the accepted ones (JSON-LD) can name graphs of its own.
  if (
    job.parts.some((p) => formatOf(p.format)?.carries === 'dataset') &&
    parsed.match(null, null, null, null).some((q) => !q.graph.equals(target))
  )
    throw new HttpError(400, 'the payload names graphs of its own; send the triples of one graph');
  if (job.method === 'PUT') store.update(job.graph === null ? 'CLEAR DEFAULT' : `DROP SILENT GRAPH <${job.graph}>`);
  if (job.graph !== null) store.update(`CREATE SILENT GRAPH <${job.graph}>`);
  for (const part of job.parts) store.load(part.text, { format: part.format, base_iri: job.graph ?? job.baseIri, to_graph_name: target });
  return { status: existed ? 204 : 201 };
}
