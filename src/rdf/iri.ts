import { iri, type Term } from './terms.ts';

/**
 * Instance IRIs: `urn:soul:<soul>:Weave/<Kind>/<id>`, the federation anchor Pool and Soul graphs
 * stamp too. Each id part comes from the data and is percent-encoded, so a tool name or path
 * with spaces, slashes or `#` stays one well-formed IRI segment.
 */
export function instanceIri(soul: string, kind: string, ...id: (string | number)[]): Term {
  return iri(`${instancePrefix(soul)}${kind}/${id.map((part) => encodeURIComponent(String(part))).join('/')}`);
}

export function instancePrefix(soul: string): string {
  return `urn:soul:${soul}:Weave/`;
}

/** The named graph holding one session: its main stream and its sub-agent streams. */
export function sessionGraphIri(soul: string, sessionId: string): string {
  return `${instancePrefix(soul)}graph/${encodeURIComponent(sessionId)}`;
}

/** The named graph holding one reader's output for one session. */
export function readerGraphIri(soul: string, sessionId: string, reader: string): string {
  return `${instancePrefix(soul)}graph/${encodeURIComponent(sessionId)}/reader/${reader.split('/').map(encodeURIComponent).join('/')}`;
}
