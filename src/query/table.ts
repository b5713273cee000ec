import { PREFIXES } from '../rdf/vocab.ts';
import { printable } from '../terminal.ts';

/** A term of the SPARQL 1.1 JSON results format (with RDF 1.2 triple terms). */
export type JsonTerm =
  | { type: 'uri'; value: string }
  | { type: 'bnode'; value: string }
  | { type: 'literal'; value: string; datatype?: string; 'xml:lang'?: string }
  | { type: 'triple'; value: { subject: JsonTerm; predicate: JsonTerm; object: JsonTerm } };

export interface JsonResults {
  head: { vars?: string[] };
  results?: { bindings: Record<string, JsonTerm>[] };
  boolean?: boolean;
}

const XSD = PREFIXES.xsd;
const PLAIN = new Set([`${XSD}integer`, `${XSD}decimal`, `${XSD}double`, `${XSD}boolean`, `${XSD}string`, `${XSD}dateTime`]);

/** A term as a person reads it: prefixed names, bare numbers and dates, other datatypes named. */
export function shortTerm(term: JsonTerm | undefined): string {
  if (!term) return '';
  switch (term.type) {
    case 'uri':
      return compact(term.value);
    case 'bnode':
      return `_:${term.value}`;
    case 'literal':
      if (term['xml:lang']) return `${term.value}@${term['xml:lang']}`;
      return !term.datatype || PLAIN.has(term.datatype) ? term.value : `${term.value}^^${compact(term.datatype)}`;
    case 'triple':
      return `<<( ${shortTerm(term.value.subject)} ${shortTerm(term.value.predicate)} ${shortTerm(term.value.object)} )>>`;
  }
}

export function compact(value: string): string {
  for (const [prefix, ns] of Object.entries(PREFIXES))
    if (value.startsWith(ns) && value.length > ns.length) return `${prefix}:${value.slice(ns.length)}`;
  return `<${value}>`;
}

/** A plain-text table of solutions, cells cut at `width` characters, one line each. */
export function renderTable(results: JsonResults, width = 60): string {
  if (typeof results.boolean === 'boolean') return `${results.boolean}\n`;
  const vars = results.head.vars ?? [];
  const rows = results.results?.bindings ?? [];
  const cell = (t: JsonTerm | undefined) => {
    // A cell is shown on a terminal: whitespace runs become one space, control bytes escapes.
    const text = printable(shortTerm(t).replace(/\s+/g, ' '));
    return text.length > width ? `${text.slice(0, width - 1)}…` : text;
  };
  const cells = rows.map((row) => vars.map((v) => cell(row[v])));
  const widths = vars.map((v, i) => Math.max(v.length + 1, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const out = [line(vars.map((v) => `?${v}`)), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  out.push(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`);
  return `${out.join('\n')}\n`;
}
