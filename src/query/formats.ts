/** Result formats: names people type, and the media types Oxigraph serialises. */

export const SOLUTION_FORMATS: Record<string, string> = {
  json: 'application/sparql-results+json',
  xml: 'application/sparql-results+xml',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
};

export const GRAPH_FORMATS: Record<string, string> = {
  turtle: 'text/turtle',
  ntriples: 'application/n-triples',
  nquads: 'application/n-quads',
  trig: 'application/trig',
  jsonld: 'application/ld+json',
  rdfxml: 'application/rdf+xml',
};

/** Formats that carry named graphs; the others flatten the dataset into one graph. */
export const DATASET_FORMATS = new Set(['application/n-quads', 'application/trig', 'application/ld+json']);
