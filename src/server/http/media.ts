import { GRAPH_FORMATS, SOLUTION_FORMATS } from '../../query/formats.ts';
import { acceptable } from './negotiate.ts';

/**
 * The media types the endpoint serves, in its order of preference, and the names clients use
 * for them. SPARQL JSON and Turtle come first: they are what a client gets when it says nothing.
 */

export const SOLUTION_TYPES = [SOLUTION_FORMATS.json, SOLUTION_FORMATS.xml, SOLUTION_FORMATS.csv, SOLUTION_FORMATS.tsv];

export const GRAPH_TYPES = [
  GRAPH_FORMATS.turtle,
  GRAPH_FORMATS.ntriples,
  GRAPH_FORMATS.nquads,
  GRAPH_FORMATS.trig,
  GRAPH_FORMATS.jsonld,
  GRAPH_FORMATS.rdfxml,
];

/** Older or looser names for the same formats, which many clients still send. */
const SOLUTION_ALIASES: Record<string, string> = { 'application/json': SOLUTION_FORMATS.json };
const GRAPH_ALIASES: Record<string, string> = {
  'application/x-turtle': GRAPH_FORMATS.turtle,
  'application/json': GRAPH_FORMATS.jsonld,
};

export type ResultKind = 'solutions' | 'graph';

/**
 * The formats a request accepts for a result kind, best first: the `format` parameter (a short
 * name such as `csv`, or a media type) wins over Accept. Empty means 406.
 */
export function acceptedTypes(kind: ResultKind, accept: string | undefined, format?: string): string[] {
  const types = kind === 'graph' ? GRAPH_TYPES : SOLUTION_TYPES;
  const aliases = kind === 'graph' ? GRAPH_ALIASES : SOLUTION_ALIASES;
  if (format) {
    const named = (kind === 'graph' ? GRAPH_FORMATS : SOLUTION_FORMATS)[format.toLowerCase()];
    const type = named ?? aliases[format.toLowerCase()] ?? format.toLowerCase();
    return types.includes(type) ? [type] : [];
  }
  const offers = [...types, ...Object.keys(aliases)];
  const chosen = acceptable(accept, offers).map((t) => aliases[t] ?? t);
  return [...new Set(chosen)];
}

/** The Content-Type header for a media type we serve: every one is UTF-8 text. */
export function contentType(mediaType: string): string {
  return `${mediaType}; charset=utf-8`;
}

/** RDF syntaxes a Graph Store Protocol write may carry, by media type. */
export const RDF_INPUT_TYPES: Record<string, string> = {
  'text/turtle': GRAPH_FORMATS.turtle,
  'application/x-turtle': GRAPH_FORMATS.turtle,
  'application/n-triples': GRAPH_FORMATS.ntriples,
  'text/plain': GRAPH_FORMATS.ntriples,
  'application/n-quads': GRAPH_FORMATS.nquads,
  'application/trig': GRAPH_FORMATS.trig,
  'application/rdf+xml': GRAPH_FORMATS.rdfxml,
  'application/ld+json': GRAPH_FORMATS.jsonld,
};
