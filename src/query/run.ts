import type oxigraph from 'oxigraph';
import { sparqlPrefixes } from '../rdf/vocab.ts';
import { explainSyntaxError } from './errors.ts';
import { MAX_QUERY_DEPTH, queryDepth } from './depth.ts';
import { isolateTripleTerms, mergeDefaultGraph } from './merge.ts';

type OxStore = oxigraph.Store;

/** A query error with the position in the text the user wrote. */
export class QueryError extends Error {}

const PREFIX_LINES = sparqlPrefixes().split('\n').length - 1;

/**
 * Runs a query with the usual prefixes predeclared (a query may redeclare them) over the union
 * of all graphs, unless graphs are named. The union is the merge SPARQL defines, a set: a triple
 * several sessions state counts once (src/query/merge.ts). Parser positions are mapped back to
 * the user's text.
 */
export function runQuery(
  store: OxStore,
  query: string,
  options: {
    results_format?: string;
    default_graph?: string[];
    named_graphs?: string[];
    base_iri?: string;
    /** Whether the store's own default graph is empty, when the caller keeps track (else asked each time). */
    defaultGraphEmpty?: boolean;
    /** The store holds each triple in one graph only (src/store/restated.ts): its union is a set as it stands. */
    unionIsSet?: boolean;
  } = {},
  factory?: typeof oxigraph,
): ReturnType<OxStore['query']> {
  const opts: Parameters<OxStore['query']>[1] = { results_format: options.results_format, base_iri: options.base_iri };
  if (options.default_graph?.length || options.named_graphs?.length) {
    if (!factory) throw new Error('naming graphs needs the oxigraph module');
    opts.default_graph = (options.default_graph ?? []).map((g) => factory.namedNode(g));
    opts.named_graphs = (options.named_graphs ?? []).map((g) => factory.namedNode(g));
  } else if (!hasDatasetClause(query)) opts.use_default_graph_as_union = true; // the union would override FROM
  const text = sparqlPrefixes() + query;
  const merged = opts.use_default_graph_as_union ? unionRewrite(store, text, options) : undefined;
  // The rewrite nests each pattern a few levels deeper: a query near Oxigraph's stack keeps the union as it is.
  if (merged !== undefined && queryDepth(merged, MAX_QUERY_DEPTH) <= MAX_QUERY_DEPTH) {
    try {
      return store.query(merged, opts);
    } catch {
      // Never the user's mistake (the text parsed): the query as written says what went wrong.
    }
  }
  try {
    return store.query(text, opts);
  } catch (e) {
    throw new QueryError(explainSyntaxError(query, (e as Error).message, PREFIX_LINES));
  }
}

/**
 * The query as it reads the union of graphs, or undefined to leave it as written. A union that is
 * a set already keeps its patterns, but for those on a triple term with a variable in it: matched
 * alone, or Oxigraph's planner scans every reifier once per turn of `?t a weave:Turn`
 * (src/query/merge.ts). Otherwise the union is read as the merge, unless the store's own default
 * graph holds triples.
 */
function unionRewrite(store: OxStore, text: string, options: { defaultGraphEmpty?: boolean; unionIsSet?: boolean }): string | undefined {
  if (options.unionIsSet) return isolateTripleTerms(text);
  return (options.defaultGraphEmpty ?? defaultGraphEmpty(store)) ? mergeDefaultGraph(text) : undefined;
}

/**
 * The rewrite reads named graphs only: a store whose own default graph holds triples (written by
 * an update to a writable server) keeps the union as Oxigraph answers it.
 */
export function defaultGraphEmpty(store: OxStore): boolean {
  return store.query('ASK { ?s ?p ?o }') === false;
}

/** Oxigraph says "error at LINE:COL: …"; subtract the prefix lines we added, and drop its character classes. */
export function userPosition(message: string): string {
  return message
    .replace(/^error at (\d+):(\d+)/, (_, line, col) => `error at line ${Math.max(1, +line - PREFIX_LINES)}, column ${col}`)
    .replace(/,?\s*\[[^\]]*\]/gs, '')
    .replace(/expected one of\s*$/, 'the text cannot go on here');
}

/** Whether the query names its own dataset (FROM / FROM NAMED), outside comments, strings and IRIs. */
export function hasDatasetClause(query: string): boolean {
  const code = query.replace(/<[^<>"{}|^`\\\s]*>|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|#[^\n]*/g, (m) => (m[0] === '<' ? '<>' : ' '));
  return /\bFROM\s+(NAMED\s+)?(<|[A-Za-z_][\w.-]*:|:)/i.test(code);
}

// Where it was first written: its home is lexer.ts, which the light entry loads without the rewriter.
export { returnsGraph } from './lexer.ts';
