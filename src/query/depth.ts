import { skipOpaque } from './sparql-text.ts';

/**
 * How deep a query's parse tree would be, measured from its text in one linear pass, before any
 * worker sees it. Oxigraph's parser and evaluator recurse, and a query a few KB long can overflow
 * their stack: a WebAssembly trap that costs a whole worker and a reload of the store. Any web
 * page can POST such a query to a local endpoint.
 *
 * Each construct costs what it takes of that stack, as measured in a worker whose code the
 * engine has already optimised (its frames are larger: `1 + 1 + …` overflows after 880 terms
 * there, after more than 2000 in a fresh one): with a budget of 1000, a construct that overflows
 * after T levels costs more than 1000/T a level, so any mixture within the budget stays within
 * the stack. Nested constructs add up; a chain inside one group (UNION after UNION, OPTIONAL
 * after OPTIONAL, `||` after `||`) sinks what follows it, as the parser builds it left-deep.
 * The server refuses a deeper query (src/server/http/query-depth.ts), and the default-graph rewrite
 * (src/query/merge.ts) is not applied where it would pass the limit.
 * test/server/query-depth.test.ts runs queries at the limit, of each kind and mixed, to hold it.
 *
 *   overflows after            costs a level
 *   195 EXISTS                 8   (6 + its braces)
 *   236 function calls         7   (6 + its parenthesis)
 *   345 sub-SELECTs            5   (1 + two pairs of braces)
 *   ~690 groups                2   (braces)
 *   ~690 OPTIONAL, MINUS, GRAPH nested, ~820 OPTIONAL, VALUES, BIND in a row   2
 *   880 `+`, `-`, `*`, `/`     2
 *   1586 parentheses, 2248 `||`, `&&` or `!`, 2417 UNIONs   1
 */

/** The budget: far above hand-written queries (the deepest in queries/ costs under 100). */
export const MAX_QUERY_DEPTH = 1000;

const OPEN: Record<string, number> = { '{': 2, '(': 1, '[': 1 };
const CLOSE = new Set(['}', ')', ']']);
/** Keywords that chain or nest, and what each costs; any other word or name before `(` is a function call. */
const KEYWORD: Record<string, number> = {
  EXISTS: 6,
  SELECT: 1,
  OPTIONAL: 2,
  MINUS: 2,
  BIND: 2,
  VALUES: 2,
  UNION: 1,
  FILTER: 1,
  GRAPH: 1,
  SERVICE: 1,
  NOT: 1,
  IN: 1,
};
const CALL = 6;
const ARITHMETIC = 2;

export function queryDepth(text: string, stopAbove = Infinity): number {
  // Each open bracket: the depth it opened at, and the chain links counted inside it so far, and
  // whether it is a parenthesis (where `*` multiplies; elsewhere it is SELECT * or a path's `*`).
  const base: number[] = [0];
  const chain: number[] = [0];
  const paren: boolean[] = [false];
  let deepest = 0;
  const link = (cost: number) => {
    const top = chain.length - 1;
    chain[top] += cost;
    deepest = Math.max(deepest, base[top] + chain[top]);
  };
  const calls = (at: number) => {
    while (at < text.length && /\s/.test(text[at])) at++;
    return text[at] === '(';
  };
  let i = 0;
  while (i < text.length && deepest <= stopAbove) {
    const past = skipOpaque(text, i);
    if (past !== i) {
      // An IRI before `(` is a function call.
      if (text[i] === '<' && past > i + 1 && calls(past)) link(CALL);
      i = past;
      continue;
    }
    const c = text[i];
    if (Object.hasOwn(OPEN, c)) {
      const top = chain.length - 1;
      base.push(base[top] + chain[top] + OPEN[c]);
      chain.push(0);
      paren.push(c === '(');
      deepest = Math.max(deepest, base[base.length - 1]);
      i++;
    } else if (CLOSE.has(c)) {
      if (chain.length > 1) {
        base.pop();
        chain.pop();
        paren.pop();
      }
      i++;
    } else if (c === '?' || c === '$') {
      i++;
      while (i < text.length && /[\w\u00B7\u00C0-\uFFFF]/.test(text[i])) i++;
    } else if (/[A-Za-z_:]/.test(c)) {
      const start = i;
      while (i < text.length && /[\w-]/.test(text[i])) i++;
      if (text[i] === ':' || c === ':') {
        // A prefixed name: never a keyword, but a function when `(` follows (xsd:integer(…)).
        while (i < text.length && !/[\s{}()[\];,]/.test(text[i])) i++;
        if (calls(i)) link(CALL);
        continue;
      }
      const word = text.slice(start, i).toUpperCase();
      if (Object.hasOwn(KEYWORD, word)) link(KEYWORD[word]);
      else if (calls(i)) link(CALL);
    } else if ((c === '|' || c === '&') && text[i + 1] === c) {
      link(1);
      i += 2;
    } else if ((c === '!' && text[i + 1] !== '=') || c === '|' || c === '^') {
      link(1);
      i++;
    } else if ('+-/'.includes(c) || (c === '*' && paren[paren.length - 1])) {
      link(ARITHMETIC);
      i++;
    } else i++;
  }
  return deepest;
}
