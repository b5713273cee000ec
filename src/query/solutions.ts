import { nonXmlCharacters, xmlAttribute, xmlText } from '../rdf/xml.ts';
import { formatOf, type GraphForm, tripleTermForm } from './formats.ts';
import type { JsonResults, JsonTerm } from './table.ts';

/**
 * SELECT and ASK results written from SPARQL JSON results, in every format the endpoint serves,
 * with RDF 1.2 triple terms in the form the client reads:
 *
 * - `1.2`: `{"type": "triple"}` in JSON, `<triple>` in XML, `<<( s p o )>>` in TSV and CSV (in CSV
 *   of the terms' values, as the SPARQL 1.2 CSV draft writes them: `<<( urn:s urn:p "o" )>>`).
 * - `star`: the SPARQL-star results of Jena 4 and RDF4J: the same JSON and XML, `<< s p o >>` in TSV and CSV.
 * - `literal`: a plain literal holding the triple's N-Triples text (RDF 1.1 has no triple
 *   terms; `--rdf 1.1` and `triple-terms=literal` both mean this for solutions).
 *
 * XML results are never ill-formed: text holding a character XML 1.0 cannot carry makes
 * `writeSolutions` throw `NotXmlError` with the count, so the caller can offer another format.
 */

export type TripleTermForm = '1.2' | 'star' | 'literal';

/** The form triple terms take in results of `mediaType` when `form` is asked: the format table's fallback (RDF 1.1: literals). */
export function solutionForm(mediaType: string, form: GraphForm): TripleTermForm {
  const format = formatOf(mediaType);
  if (format?.carries !== 'solutions') throw new Error(`no solutions writer for ${mediaType}`);
  return tripleTermForm(format, form) as TripleTermForm;
}

export class NotXmlError extends Error {
  constructor(readonly characters: Map<string, number>) {
    const total = [...characters.values()].reduce((a, b) => a + b, 0);
    super(`the result holds ${total} character${total === 1 ? '' : 's'} XML 1.0 cannot carry (${[...characters.keys()].join(', ')})`);
  }
}

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

export function writeSolutions(results: JsonResults, mediaType: string, form: TripleTermForm = '1.2'): string {
  const mapped = form === 'literal' ? literalTripleTerms(results) : results;
  switch (formatOf(mediaType)?.name) {
    case 'json':
      return JSON.stringify(mapped);
    case 'xml':
      return xmlResults(mapped);
    case 'tsv':
      return tsvResults(mapped, form);
    case 'csv':
      return csvResults(mapped, form);
    default:
      throw new Error(`no solutions writer for ${mediaType}`);
  }
}

/** Whether the results bind any variable to a triple term. */
function holdsTripleTerms(results: JsonResults): boolean {
  return (results.results?.bindings ?? []).some((row) => Object.values(row).some((t) => t.type === 'triple'));
}

/** Every triple-term binding as a plain literal of its N-Triples text. */
export function literalTripleTerms(results: JsonResults): JsonResults {
  if (!holdsTripleTerms(results)) return results;
  const bindings = results.results!.bindings.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, t]) => [k, t.type === 'triple' ? ({ type: 'literal', value: ntTerm(t, '1.2') } as JsonTerm) : t]),
    ),
  );
  return { ...results, results: { bindings } };
}

/** A term in N-Triples syntax; triple terms as `<<( s p o )>>`, or `<< s p o >>` for RDF-star. */
export function ntTerm(t: JsonTerm, form: TripleTermForm): string {
  switch (t.type) {
    case 'uri':
      return `<${t.value}>`;
    case 'bnode':
      return `_:${t.value}`;
    case 'literal': {
      const text = `"${t.value.replace(/[\\"\n\r\t]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!)}"`;
      if (t['xml:lang']) return `${text}@${t['xml:lang']}`;
      return t.datatype && t.datatype !== XSD_STRING ? `${text}^^<${t.datatype}>` : text;
    }
    case 'triple': {
      const { subject, predicate, object } = t.value;
      const inner = `${ntTerm(subject, form)} ${ntTerm(predicate, form)} ${ntTerm(object, form)}`;
      return form === 'star' ? `<< ${inner} >>` : `<<( ${inner} )>>`;
    }
  }
}

function xmlResults(results: JsonResults): string {
  const bad = new Map<string, number>();
  const vars = results.head.vars ?? [];
  const out = ['<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head>'];
  for (const v of vars) out.push(`<variable name="${xmlAttribute(v)}"/>`);
  out.push('</head>');
  if (typeof results.boolean === 'boolean') out.push(`<boolean>${results.boolean}</boolean>`);
  else {
    out.push('<results>');
    for (const row of results.results?.bindings ?? [])
      out.push(
        `<result>${Object.entries(row)
          .map(([name, term]) => `<binding name="${xmlAttribute(name)}">${xmlTerm(term, bad)}</binding>`)
          .join('')}</result>`,
      );
    out.push('</results>');
  }
  out.push('</sparql>\n');
  if (bad.size) throw new NotXmlError(bad);
  return out.join('\n');
}

function xmlTerm(t: JsonTerm, bad: Map<string, number>): string {
  switch (t.type) {
    case 'uri':
      nonXmlCharacters(t.value, bad);
      return `<uri>${xmlText(t.value)}</uri>`;
    case 'bnode':
      return `<bnode>${xmlText(t.value)}</bnode>`;
    case 'literal': {
      nonXmlCharacters(t.value, bad);
      const attr = t['xml:lang']
        ? ` xml:lang="${xmlAttribute(t['xml:lang'])}"`
        : t.datatype && t.datatype !== XSD_STRING
          ? ` datatype="${xmlAttribute(t.datatype)}"`
          : '';
      return `<literal${attr}>${xmlText(t.value)}</literal>`;
    }
    case 'triple': {
      const { subject, predicate, object } = t.value;
      return `<triple><subject>${xmlTerm(subject, bad)}</subject><predicate>${xmlTerm(predicate, bad)}</predicate><object>${xmlTerm(object, bad)}</object></triple>`;
    }
  }
}

/** TSV (SPARQL 1.1 §3.2): terms in their Turtle/N-Triples form, variables with `?`. */
function tsvResults(results: JsonResults, form: TripleTermForm): string {
  if (typeof results.boolean === 'boolean') return `${results.boolean}\n`;
  const vars = results.head.vars ?? [];
  const lines = [vars.map((v) => `?${v}`).join('\t')];
  for (const row of results.results?.bindings ?? []) lines.push(vars.map((v) => (row[v] ? ntTerm(row[v], form) : '')).join('\t'));
  return `${lines.join('\n')}\n`;
}

/** CSV (SPARQL 1.1 §2): values only, RFC 4180 quoting, CRLF line ends. */
function csvResults(results: JsonResults, form: TripleTermForm): string {
  if (typeof results.boolean === 'boolean') return `${results.boolean}\r\n`;
  const vars = results.head.vars ?? [];
  const cell = (t: JsonTerm | undefined) => {
    if (!t) return '';
    const text = csvValue(t, form);
    return /[",\r\n]/.test(text) ? csvQuoted(text) : text;
  };
  const lines = [vars.join(',')];
  for (const row of results.results?.bindings ?? []) lines.push(vars.map((v) => cell(row[v])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A term's CSV value (SPARQL 1.2 CSV §3.2): its value alone; a triple term `<<( s p o )>>` (`<< s p o >>`
 * for RDF-star) of its terms' values, a literal object in quotes, quoted as a CSV field is.
 */
function csvValue(t: JsonTerm, form: TripleTermForm): string {
  if (t.type === 'bnode') return `_:${t.value}`;
  if (t.type !== 'triple') return t.value;
  const { subject, predicate, object } = t.value;
  const inner = `${csvValue(subject, form)} ${csvValue(predicate, form)} ${object.type === 'literal' ? csvQuoted(object.value) : csvValue(object, form)}`;
  return form === 'star' ? `<< ${inner} >>` : `<<( ${inner} )>>`;
}

const csvQuoted = (text: string) => `"${text.replace(/"/g, '""')}"`;
