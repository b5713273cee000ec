import type { JsonResults, JsonTerm } from '../../../query/table.ts';

/**
 * RDF 1.2 triple terms for clients that predate them. YASGUI's table cannot draw a
 * `{"type": "triple"}` binding and its Turtle parser stops at `<<( … )>>`, so a request that
 * asks for `triple-terms=literal` (the bundled page does) gets each triple term as a plain
 * string literal holding its N-Triples text, `<<( <s> <p> <o> )>>`. Every other client gets the
 * standard RDF 1.2 results untouched. The parameter is read on the main thread
 * (http/protocol.ts) and arrives here as `QueryJob.tripleTermsAsText`.
 */

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

export function escapeNtString(value: string): string {
  return value.replace(/[\\"\n\r]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r' })[c]!);
}

/** A JSON results term in N-Triples syntax. */
export function jsonTermToNt(term: JsonTerm): string {
  switch (term.type) {
    case 'uri':
      return `<${term.value}>`;
    case 'bnode':
      return `_:${term.value}`;
    case 'literal': {
      const text = `"${escapeNtString(term.value)}"`;
      if (term['xml:lang']) return `${text}@${term['xml:lang']}`;
      return term.datatype && term.datatype !== XSD_STRING ? `${text}^^<${term.datatype}>` : text;
    }
    case 'triple':
      return `<<( ${jsonTermToNt(term.value.subject)} ${jsonTermToNt(term.value.predicate)} ${jsonTermToNt(term.value.object)} )>>`;
  }
}

/** SPARQL JSON results with every triple-term binding turned into its N-Triples text. */
export function flattenJsonResults(text: string): string {
  if (!text.includes('"triple"')) return text;
  const results = JSON.parse(text) as JsonResults;
  let changed = false;
  for (const row of results.results?.bindings ?? [])
    for (const [name, term] of Object.entries(row))
      if (term.type === 'triple') {
        row[name] = { type: 'literal', value: jsonTermToNt(term) };
        changed = true;
      }
  return changed ? JSON.stringify(results) : text;
}
