import { HttpError } from '../errors.ts';
import { skipOpaque } from '../sparql-text.ts';

/**
 * How deep a query's parse tree would be, measured from its text in one linear pass, before any
 * worker sees it. Oxigraph's parser and evaluator recurse: about a thousand nested groups, a
 * thousand OPTIONALs or BINDs in a row, or a few thousand UNIONs or `||`s overflow its stack, a
 * WebAssembly trap that costs a whole worker and a reload of the store. Such a query is a few KB
 * and any web page can POST it to a local endpoint.
 *
 * Every bracket (`{`, `(`, `[`) opens a level one below where it stands; inside a level, each
 * operator that the grammar chains into a left-deep tree (UNION, OPTIONAL, MINUS, BIND, FILTER,
 * `||`, `&&`, `!`, arithmetic, path steps, …) sinks what follows by one more. The depth is the
 * deepest point reached. It over-counts (a flat BGP has none of these; a filter's `=` is not one),
 * which only matters for queries far past anything written by hand.
 */

/** Far above hand-written queries (the deepest in queries/ reaches 18) and well below Oxigraph's limits. */
export const MAX_QUERY_DEPTH = 256;

const CHAINING = new Set(['UNION', 'OPTIONAL', 'MINUS', 'BIND', 'FILTER', 'GRAPH', 'SERVICE', 'VALUES', 'EXISTS', 'NOT', 'IN']);

export function queryDepth(text: string): number {
  // Each open bracket: the level it opened at, and the chain links counted inside it so far.
  const base: number[] = [0];
  const chain: number[] = [0];
  let deepest = 0;
  const link = () => {
    const top = chain.length - 1;
    chain[top]++;
    deepest = Math.max(deepest, base[top] + chain[top]);
  };
  let i = 0;
  while (i < text.length) {
    const past = skipOpaque(text, i);
    if (past !== i) {
      i = past;
      continue;
    }
    const c = text[i];
    if (c === '{' || c === '(' || c === '[') {
      const top = chain.length - 1;
      base.push(base[top] + chain[top] + 1);
      chain.push(0);
      deepest = Math.max(deepest, base[base.length - 1]);
      i++;
    } else if (c === '}' || c === ')' || c === ']') {
      if (chain.length > 1) {
        base.pop();
        chain.pop();
      }
      i++;
    } else if (c === '?' || c === '$') {
      i++;
      while (i < text.length && /[\w\u00B7\u00C0-\uFFFF]/.test(text[i])) i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < text.length && /[\w-]/.test(text[i])) i++;
      if (text[i] === ':') {
        // A prefixed name: neither part is a keyword.
        while (i < text.length && !/[\s{}()[\];,]/.test(text[i])) i++;
        continue;
      }
      if (CHAINING.has(text.slice(start, i).toUpperCase())) link();
    } else if (c === ':') {
      while (i < text.length && !/[\s{}()[\];,]/.test(text[i])) i++;
    } else if ((c === '|' || c === '&') && text[i + 1] === c) {
      link();
      i += 2;
    } else if ((c === '!' && text[i + 1] !== '=') || '+-*/|^'.includes(c)) {
      link();
      i++;
    } else i++;
  }
  return deepest;
}

/** 400 for a query or update deeper than `max`, before it reaches a worker. */
export function checkQueryDepth(text: string, what: 'query' | 'update', max = MAX_QUERY_DEPTH): void {
  const depth = queryDepth(text);
  if (depth > max)
    throw new HttpError(400, `the ${what} nests ${depth} levels deep (brackets and chained UNION, OPTIONAL, BIND, ||, …); this server takes at most ${max}`);
}
