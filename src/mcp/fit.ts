import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonTerm } from '../query/table.ts';
import { PREFIXES } from '../rdf/vocab.ts';

/**
 * Answers sized for a model's context: lists cut to a limit with a count of what was left out,
 * long texts cut with the number of characters dropped, IRIs of the predeclared vocabularies
 * written as prefixed names.
 */

/** The most characters of one text (a cell, a statement's object, a label) an answer carries. */
export const TEXT_CHARS = 1500;
/** Roughly the most characters of one answer: past it, rows are left out (and counted). */
export const ANSWER_CHARS = 60_000;

export function clip(text: string, chars = TEXT_CHARS): string {
  return text.length > chars ? `${text.slice(0, chars)}… (${text.length - chars} more characters)` : text;
}

/** `weave:Turn` for https://repolex.ai/ontology/weave#Turn; any other IRI as it is. */
export function curie(iri: string): string {
  for (const [prefix, ns] of Object.entries(PREFIXES))
    if (iri.startsWith(ns) && /^[A-Za-z_][\w-]*$/.test(iri.slice(ns.length))) return `${prefix}:${iri.slice(ns.length)}`;
  return iri;
}

/** A SPARQL JSON term as one short string: <iri>, _:blank, or the literal's text (clipped). */
export function termText(term: JsonTerm): string {
  if (term.type === 'uri') return `<${term.value}>`;
  if (term.type === 'bnode') return `_:${term.value}`;
  if (term.type === 'triple')
    return `<<( ${termText(term.value.subject)} ${termText(term.value.predicate)} ${termText(term.value.object)} )>>`;
  return clip(term.value);
}

/** The first `limit` items that also fit `chars` of JSON, and how many were left out. */
export function fitted<T>(items: T[], limit: number, chars = ANSWER_CHARS): { kept: T[]; leftOut: number } {
  const kept: T[] = [];
  let used = 0;
  for (const item of items.slice(0, limit)) {
    used += JSON.stringify(item).length + 1;
    if (used > chars && kept.length) break;
    kept.push(item);
  }
  return { kept, leftOut: items.length - kept.length };
}

/** A tool's answer: one JSON document as text. */
export function answer(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}
