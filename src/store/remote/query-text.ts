import { mergeDefaultGraph } from '../../query/merge.ts';
import { sparqlPrefixes } from '../../rdf/vocab.ts';

/**
 * The text an external store is sent for a query, by the server in front of it, the full CLI and
 * the light entry alike: Weave's prefixes predeclared; for a store without RDF 1.2, the triple
 * terms Weave's queries name written in the RDF 1.1 form the store holds (rdf11.ts); and the
 * union of graphs read as the merge (query/merge.ts), since an external store's union is a bag
 * too, unless the request names its graphs.
 */
export function externalQueryText(query: string, options: { tripleTerms: boolean; graphsNamed?: boolean }): string {
  const text = sparqlPrefixes() + (options.tripleTerms ? query : reified(query));
  return (!options.graphsNamed && mergeDefaultGraph(text, { optionalsAsSubselects: true })) || text;
}

/**
 * A query's RDF 1.2 triple-term patterns in the RDF 1.1 form on the same reifier, in the two
 * shapes Weave's own queries (and its docs' examples) write them:
 * - `S P O ~ R {| A |}`, an asserted triple and its reifier R with annotations A, becomes
 *   `S P O . R rdf:subject S ; rdf:predicate P ; rdf:object O ; A`;
 * - `R rdf:reifies <<( S P O )>>` becomes `R rdf:subject S ; rdf:predicate P ; rdf:object O`,
 *   and `rdf:reifies ?term` becomes `a rdf:Statement` (the term is no node in RDF 1.1).
 * Other RDF 1.2 syntax is sent as written, and the store says what it cannot read.
 */
export function reified(query: string): string {
  return query
    .replace(
      /(\?\w+)\s+(\S+)\s+(\?\w+)\s+~\s+(\?\w+)\s+\{\|\s*([^|]*?)\s*\|\}/g,
      '$1 $2 $3 . $4 rdf:subject $1 ; rdf:predicate $2 ; rdf:object $3 ; $5',
    )
    .replace(/rdf:reifies\s*<<\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)>>/g, 'rdf:subject $1 ; rdf:predicate $2 ; rdf:object $3')
    .replace(/rdf:reifies\s+\?\w+/g, 'a rdf:Statement');
}
