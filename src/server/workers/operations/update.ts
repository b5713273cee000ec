import oxigraph from 'oxigraph';
import { userPosition } from '../../../query/run.ts';
import { sparqlPrefixes } from '../../../rdf/vocab.ts';
import type { OxStore } from '../../../store/store.ts';
import { HttpError } from '../../errors.ts';
import type { UpdateJob } from '../../messages.ts';
import { isTrap } from '../../../query/traps.ts';
import { applyUsingGraphs } from './update-dataset.ts';

/**
 * A SPARQL Update on a query worker's copy of the store (the worker saves what changed after).
 * A syntax error names its line and column in the text the client sent.
 */
export function runUpdateJob(store: OxStore, job: UpdateJob): void {
  const text = applyUsingGraphs(job.update, job.usingGraphs, job.usingNamedGraphs);
  try {
    store.update(sparqlPrefixes() + text, { base_iri: job.baseIri });
  } catch (e) {
    if (isTrap(e)) throw e;
    let message = userPosition((e as Error).message);
    if (text !== job.update) {
      // Positions must point into what the client sent, not into the text with USING written in:
      // a parse of the original on an empty store reports them (and changes nothing that matters).
      try {
        new oxigraph.Store().update(sparqlPrefixes() + job.update, { base_iri: job.baseIri });
      } catch (original) {
        message = userPosition((original as Error).message);
      }
    }
    throw new HttpError(400, message);
  }
}
