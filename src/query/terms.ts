import { WEAVE_TERMS } from '../rdf/weave-terms.ts';

const KNOWN: ReadonlySet<string> = new Set(WEAVE_TERMS);

/**
 * The weave: names a query uses that the ontology does not declare (a typo matches nothing,
 * silently). Comments, strings and IRIs are skipped; a query that declares its own weave: prefix
 * is left alone.
 */
export function unknownWeaveTerms(query: string): string[] {
  const code = query.replace(/#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|<[^<>\s]*>/g, ' ');
  if (/PREFIX\s+weave:/i.test(code)) return [];
  const names = [...code.matchAll(/(?<![\w:])weave:([A-Za-z_][\w-]*)/g)].map((m) => m[1]);
  return [...new Set(names.filter((n) => !KNOWN.has(n)))];
}
