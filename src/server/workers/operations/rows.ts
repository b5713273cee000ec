import { sparqlPrefixes } from '../../../rdf/vocab.ts';
import { mediaTypeNamed } from '../../../query/formats.ts';
import { runQuery } from '../../../query/run.ts';
import type { JsonResults, JsonTerm } from '../../../query/table.ts';
import type { OxStore } from '../../../store/store.ts';
import type { Select } from '../../select.ts';

/**
 * A SELECT the server itself runs on a worker's store, as rows of SPARQL JSON terms: over the
 * union of graphs read as their merge, as every user query is (src/query/merge.ts), so a node
 * that several sessions hold is described once; `union = false` reads the store's own default
 * graph (queries that name their graphs).
 */
function rows(store: OxStore, query: string, union = true): Record<string, JsonTerm>[] {
  const text = union
    ? runQuery(store, query, { results_format: mediaTypeNamed('json') })
    : store.query(sparqlPrefixes() + query, { results_format: mediaTypeNamed('json') });
  return (JSON.parse(text as string) as JsonResults).results?.bindings ?? [];
}

/** `rows` on a worker's copy of the store, as a Select. */
export function storeSelect(store: OxStore): Select {
  return async (query, union = true) => rows(store, query, union);
}
