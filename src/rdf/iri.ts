import { iri, type Term } from './terms.ts';

const WEAVE_SEGMENT = ':Weave/';

/**
 * Instance IRIs: `urn:soul:<soul>:Weave/<Kind>/<id>`, the federation anchor Pool and Soul graphs
 * stamp too. Each id part comes from the data and is percent-encoded, so a tool name or path
 * with spaces, slashes or `#` stays one well-formed IRI segment.
 */
export function instanceIri(soul: string, kind: string, ...id: (string | number)[]): Term {
  return iri(`${instancePrefix(soul)}${kind}/${id.map(encodePart).join('/')}`);
}

/**
 * One IRI segment from data. A lone surrogate (JSON allows `\ud800`; UTF-8 cannot hold it, and
 * encodeURIComponent throws on it) becomes U+FFFD first, as it does in string literals.
 */
function encodePart(part: string | number): string {
  const text = String(part);
  return encodeURIComponent(text.isWellFormed() ? text : text.toWellFormed());
}

export function instancePrefix(soul: string): string {
  return `urn:soul:${soul}:Weave/`;
}

/** The named graph holding one session: its main stream and its sub-agent streams. */
export function sessionGraphIri(soul: string, sessionId: string): string {
  return `${instancePrefix(soul)}graph/${encodePart(sessionId)}`;
}

/** The soul an IRI of Weave's names (`urn:soul:<soul>:…`), or undefined for any other IRI. */
export function soulOf(iri: string): string | undefined {
  return /^urn:soul:([^:/]+):/.exec(iri)?.[1];
}

/** The soul whose session graph `graph` is (`urn:soul:<soul>:Weave/graph/<id>`), or undefined for any other graph. */
export function soulOfSessionGraph(graph: string, id: string): string | undefined {
  const soul = soulOf(graph);
  return soul !== undefined && graph === sessionGraphIri(soul, id) ? soul : undefined;
}

/** The session id whose session graph `graph` is (`urn:soul:<soul>:Weave/graph/<id>`, any soul), or undefined for any other graph. */
export function sessionOfGraph(graph: string): string | undefined {
  const encoded = /^urn:soul:[^:/]+:Weave\/graph\/([^/]+)$/.exec(graph)?.[1];
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined; // not percent-encoded as Weave encodes: no graph of Weave's
  }
}

/** The named graph holding one reader's output for one session. */
export function readerGraphIri(soul: string, sessionId: string, reader: string): string {
  return `${instancePrefix(soul)}graph/${encodePart(sessionId)}/reader/${reader.split('/').map(encodePart).join('/')}`;
}

/** The `<Kind>/<id…>` of an instance IRI (`urn:soul:<soul>:Weave/<Kind>/<id…>`), else undefined. */
export function instancePath(value: string): string | undefined {
  const match = /^urn:soul:[^:]+:Weave\/(.+)$/.exec(value);
  return match?.[1];
}

/**
 * instancePath in SPARQL: the `<Kind>/<id…>` of the instance IRI bound to `variable`. A session
 * two machines read into one store is held under each one's soul, its nodes named alike but for
 * the soul: a query counting nodes counts these, so each copy of a node counts once.
 */
export function instancePathOf(variable: string): string {
  return `STRAFTER(STR(${variable}), "${WEAVE_SEGMENT}")`;
}

/** `urn:soul:<soul>:Weave/` and the `<Kind>/<id…>` after it, of an instance IRI term. */
function instanceParts(instance: Term): { prefix: string; path: string } {
  const value = instance.slice(1, -1);
  const at = value.indexOf(WEAVE_SEGMENT);
  if (at < 0) throw new Error(`not an instance IRI: ${instance}`);
  return { prefix: value.slice(0, at + WEAVE_SEGMENT.length), path: value.slice(at + WEAVE_SEGMENT.length) };
}

/**
 * The id an instance IRI was minted from, decoded: `u-1` of `Turn/u-1`, `s1/L7` of
 * `Event/s1/L7`. Nodes named after a record (its content blocks, its usage) take it as one id
 * part, so a record without a uuid names them after its stream and line, as its Event is named,
 * and two such records never share a block.
 */
export function instanceKey(instance: Term): string {
  return instanceParts(instance).path.split('/').slice(1).map(decodeURIComponent).join('/');
}

/**
 * A node that belongs to `event`, minted beside it: `…/Weave/<kind>/<event's id>[/<part>…]`
 * (the Compaction of `Event/<uuid>` is `Compaction/<uuid>`).
 */
export function related(event: Term, kind: string, ...parts: (string | number)[]): Term {
  const { prefix, path } = instanceParts(event);
  const id = path.split('/').slice(1).join('/');
  return iri(`${prefix}${kind}/${[id, ...parts.map(encodePart)].join('/')}`);
}

/**
 * The Content node of `subject`'s `property` (the n-th value, when the property has several):
 * `urn:soul:<soul>:Weave/Content/<subject's kind and id>/<property>[/n]`.
 */
export function contentIri(subject: Term, propertyLocal: string, index?: number): Term {
  const { prefix, path } = instanceParts(subject);
  return iri(`${prefix}Content/${path}/${propertyLocal}${index === undefined ? '' : `/${index}`}`);
}

/** The graph of the links found across sessions, rebuilt whole after each ingest. */
export function linksGraphIri(soul: string): string {
  return `${instancePrefix(soul)}graph/links`;
}

/** The graph describing one reader as an agent; shared by all sessions, so it is stated once. */
export function detectorGraphIri(soul: string, reader: { name: string }): string {
  return `${instancePrefix(soul)}graph/detector/${reader.name.split('/').map(encodePart).join('/')}`;
}

/** The graph aligning Weave with ravel: term axioms and one owl:sameAs per turn (src/align/ravel.ts). */
export function alignmentGraphIri(soul: string): string {
  return `${instancePrefix(soul)}alignment/ravel`;
}
