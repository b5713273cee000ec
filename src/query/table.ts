import { PREFIXES } from '../rdf/vocab.ts';
import { printable } from '../terminal.ts';
import { cut, cutNote, fit, type Column } from './fit.ts';

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
const NUMBERS = new Set([`${XSD}integer`, `${XSD}decimal`, `${XSD}double`]);
const PLAIN = new Set([`${XSD}integer`, `${XSD}decimal`, `${XSD}double`, `${XSD}boolean`, `${XSD}string`, `${XSD}dateTime`]);

/** A term as a person reads it: prefixed names, bare numbers and dates, other datatypes named. */
function shortTerm(term: JsonTerm | undefined): string {
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

function compact(value: string): string {
  for (const [prefix, ns] of Object.entries(PREFIXES))
    if (value.startsWith(ns) && value.length > ns.length) return `${prefix}:${value.slice(ns.length)}`;
  return `<${value}>`;
}

/**
 * A plain-text table of solutions, one line per row: cells cut at `cell` characters, then the
 * widest columns cut until the table fits `width` (Infinity for both prints everything). Either
 * cut is said under the table, with how to see all.
 */
export function renderTable(
  results: JsonResults,
  { width = Number.POSITIVE_INFINITY, cell = 60 }: { width?: number; cell?: number } = {},
): string {
  if (typeof results.boolean === 'boolean') return `${results.boolean}\n`;
  const vars = results.head.vars ?? [];
  const rows = results.results?.bindings ?? [];
  // A cell is shown on a terminal: whitespace runs become one space, control bytes escapes.
  let capped = false;
  const text = (t: JsonTerm | undefined) => {
    const whole = printable(shortTerm(t).replace(/\s+/g, ' '));
    const shown = cut(whole, cell);
    if (shown !== whole) capped = true;
    return shown;
  };
  const numeric = (v: string) =>
    rows.length > 0 &&
    rows.every((row) => !row[v] || (row[v].type === 'literal' && NUMBERS.has((row[v] as { datatype?: string }).datatype ?? '')));
  const columns: Column[] = vars.map((v) => ({ head: `?${v}`, shrink: true, align: numeric(v) ? 'right' : 'left' }));
  const cells = rows.map((row) => vars.map((v) => text(row[v])));
  const { lines, cut: narrowed, hidden } = fit(columns, cells, width);
  const said = Number.isFinite(width) ? cutNote(width, hidden) : `cells cut at ${cell} characters; --wide shows all`;
  const note = narrowed || capped ? `; ${said}` : '';
  lines.push(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'}${note})`);
  return `${lines.join('\n')}\n`;
}
