import { sparqlPrefixes } from '../../../rdf/vocab.ts';
import { mediaTypeNamed } from '../../../query/formats.ts';
import { runQuery } from '../../../query/run.ts';
import type { JsonResults, JsonTerm } from '../../../query/table.ts';
import type { OxStore } from '../../../store/store.ts';

/**
 * A SELECT the server itself runs on a worker's store, as rows of SPARQL JSON terms: over the
 * union of graphs read as their merge, as every user query is (src/query/merge.ts), so a node
 * that several sessions hold is described once; `union = false` reads the store's own default
 * graph (queries that name their graphs).
 */
export function rows(store: OxStore, query: string, union = true): Record<string, JsonTerm>[] {
  const text = union
    ? runQuery(store, query, { results_format: mediaTypeNamed('json') })
    : store.query(sparqlPrefixes() + query, { results_format: mediaTypeNamed('json') });
  return (JSON.parse(text as string) as JsonResults).results?.bindings ?? [];
}

/** A SELECT as rows of SPARQL JSON terms, from a worker's store or an external one (`union`: the union of graphs is the default graph). */
export type Select = (query: string, union?: boolean) => Promise<Record<string, JsonTerm>[]>;

/** `rows` on a worker's copy of the store, as a Select. */
export function storeSelect(store: OxStore): Select {
  return async (query, union = true) => rows(store, query, union);
}

export const num = (t: JsonTerm | undefined) => Number(t?.value ?? 0);
export const str = (t: JsonTerm | undefined) => String(t?.value ?? '');
