import { type Format, formatsFor, oneGraphFormats, type ResultKind } from '../../query/formats.ts';
import { acceptable } from './negotiate.ts';

/**
 * What the endpoint offers, read from the format table (src/query/formats.ts): its formats in
 * the table's order of preference (SPARQL JSON and Turtle first: what a client gets when it
 * says nothing), the short names clients send for them, and the older media types they still
 * ask for them by.
 */

/**
 * The formats a request accepts for a result kind, best first. A format the request names
 * (`format=` or `output=`: a short name such as `csv`, or a media type; SPARQLWrapper sends
 * several) wins over Accept: the first one known for this kind. Names this kind of result
 * cannot take (`csv` for a graph) or does not know are passed over, and Accept decides, as it
 * does when no name is given. Short names are ours (json, xml, csv, tsv; turtle, ntriples,
 * nquads, trig, jsonld, rdfxml) and the table's others: SPARQLWrapper's (xml, json, n3, turtle,
 * rdf, rdf+xml, json-ld, csv, tsv), Fuseki's and Virtuoso's; `xml` and `json` mean the results
 * formats for solutions and RDF/XML and JSON-LD for graphs, as SPARQLWrapper means them.
 * Empty means 406.
 */
export function acceptedTypes(kind: ResultKind, accept: string | undefined, formats: string | string[] = []): string[] {
  if (!formats.length) return byAccept(kind, accept).slice();
  const offers = formatsFor(kind);
  for (const format of (typeof formats === 'string' ? [formats] : formats).flatMap((f) => f.split(','))) {
    const name = format.trim().toLowerCase();
    const named = offers.find((f) => f.name === name || f.names.includes(name)) ?? offers.find((f) => f.accepts.includes(name));
    const type = named?.mediaType ?? name.split(';')[0].trim();
    if (offers.some((f) => f.mediaType === type)) return [type];
  }
  return acceptedFormats(offers, accept);
}

/**
 * What one Accept header takes, remembered: a client sends the same one with every request, and
 * reading it was 4% of the server thread's time on a point query. A few hundred headers at
 * most are kept (a client that sends a new one each time only empties the memory).
 */
const ACCEPTS_KEPT = 256;
const accepts = new Map<string, string[]>();
function byAccept(kind: ResultKind, accept: string | undefined): string[] {
  const key = accept === undefined ? kind : `${kind}\n${accept}`;
  let types = accepts.get(key);
  if (!types) {
    if (accepts.size >= ACCEPTS_KEPT) accepts.clear();
    accepts.set(key, (types = acceptedFormats(formatsFor(kind), accept)));
  }
  return types;
}

/** The media types of `offers` that Accept takes, best first, the older names it may use for them included. */
export function acceptedFormats(offers: Format[], accept: string | undefined): string[] {
  const aliases = new Map(offers.flatMap((f) => f.accepts.map((alias) => [alias, f.mediaType] as const)));
  const chosen = acceptable(accept, [...offers.map((f) => f.mediaType), ...aliases.keys()]).map((t) => aliases.get(t) ?? t);
  return [...new Set(chosen)];
}

/** The media types graph results are offered in. */
export function graphTypes(): string[] {
  return formatsFor('graph').map((f) => f.mediaType);
}

/** The media types one graph is offered in: a document about the service, or a Graph Store read. */
export function oneGraphTypes(): string[] {
  return oneGraphFormats().map((f) => f.mediaType);
}

/** The Content-Type header for a media type we serve: every one is UTF-8 text. */
export function contentType(mediaType: string): string {
  return `${mediaType}; charset=utf-8`;
}

/** The RDF syntaxes a Graph Store Protocol write may carry (one graph), by the media types it may name them by. */
export function rdfInputTypes(): Map<string, string> {
  return new Map(oneGraphFormats().flatMap((f) => [f.mediaType, ...f.reads].map((type) => [type, f.mediaType] as const)));
}
