import { RDF, typed, type Term } from './terms.ts';

/** A JSON value, as transcripts and their side files hold them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A JSON value as an `rdf:JSON` literal (RDF 1.2); use `STR()` to search it as text. */
export function jsonLiteral(value: unknown): Term {
  return typed(JSON.stringify(value) ?? 'null', `${RDF}JSON`);
}
