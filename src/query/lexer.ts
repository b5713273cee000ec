/**
 * SPARQL text as tokens, enough to decide things about a query before it runs: its form (the
 * first keyword after the prologue) and the endpoints its SERVICE clauses name. Comments,
 * strings and IRIs are read as whole tokens, so a keyword inside one never counts, and the
 * prologue may sit on one line or many.
 */

type TokenKind = 'iri' | 'pname' | 'var' | 'word' | 'string' | 'number' | 'punct';

interface Token {
  kind: TokenKind;
  text: string;
}

const IRIREF = /<[^<>"{}|^`\\\x00-\x20]*>/y;
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the SPARQL grammar's VARNAME allows combining marks (U+0300–036F) as characters of their own
const VAR = /[?$][\p{L}\p{N}_\u00B7\u0300-\u036F\u203F-\u2040]+/uy;
/** A prefixed name (the prefix may be empty) or a bare word (a keyword, `a`, `true`). */
const NAME = /(?:[\p{L}_][\p{L}\p{N}_.\u00B7-]*)?(?::(?:[\p{L}\p{N}_:%\u00B7-]|\\[^\s]|\.(?=[\p{L}\p{N}_:%\\-]))*)?/uy;
const NUMBER = /[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/y;

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (re: RegExp) => {
    re.lastIndex = i;
    return re.exec(query)?.[0];
  };
  while (i < query.length) {
    const c = query[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      const nl = query.indexOf('\n', i);
      i = nl === -1 ? query.length : nl + 1;
      continue;
    }
    if (c === '"' || c === "'") {
      const long = query.startsWith(c.repeat(3), i);
      const quote = long ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < query.length && !query.startsWith(quote, j)) j += query[j] === '\\' ? 2 : 1;
      j = Math.min(query.length, j + quote.length);
      tokens.push({ kind: 'string', text: query.slice(i, j) });
      i = j;
      continue;
    }
    let m: string | undefined;
    if (c === '<' && (m = at(IRIREF))) tokens.push({ kind: 'iri', text: m });
    else if ((c === '?' || c === '$') && (m = at(VAR))) tokens.push({ kind: 'var', text: m });
    else if (/[\d.+-]/.test(c) && (m = at(NUMBER))) tokens.push({ kind: 'number', text: m });
    else if ((m = at(NAME))) tokens.push({ kind: m.includes(':') ? 'pname' : 'word', text: m });
    else tokens.push({ kind: 'punct', text: (m = c) });
    i += m.length;
  }
  return tokens;
}

type QueryForm = 'SELECT' | 'CONSTRUCT' | 'DESCRIBE' | 'ASK';

/** The prologue (BASE and PREFIX declarations) and the index of the first token after it. */
function prologue(tokens: Token[]): { base?: string; prefixes: Record<string, string>; end: number } {
  const prefixes: Record<string, string> = {};
  let base: string | undefined;
  let i = 0;
  for (;;) {
    const word = tokens[i]?.kind === 'word' ? tokens[i].text.toUpperCase() : '';
    if (word === 'BASE' && tokens[i + 1]?.kind === 'iri') {
      base = resolveIri(tokens[i + 1].text.slice(1, -1), base);
      i += 2;
    } else if (word === 'PREFIX' && tokens[i + 1]?.kind === 'pname' && tokens[i + 2]?.kind === 'iri') {
      prefixes[tokens[i + 1].text.slice(0, -1)] = resolveIri(tokens[i + 2].text.slice(1, -1), base);
      i += 3;
    } else return { base, prefixes, end: i };
  }
}

/** The first keyword after the prologue, upper-cased ('' when something else comes first). */
export function leadingKeyword(text: string): string {
  const tokens = tokenize(text);
  const first = tokens[prologue(tokens).end];
  return first?.kind === 'word' ? first.text.toUpperCase() : '';
}

/** SELECT, CONSTRUCT, DESCRIBE or ASK: the first keyword after the prologue (undefined for anything else). */
export function queryForm(query: string): QueryForm | undefined {
  const word = leadingKeyword(query);
  return word === 'SELECT' || word === 'CONSTRUCT' || word === 'DESCRIBE' || word === 'ASK' ? word : undefined;
}

interface ServiceTargets {
  /** The endpoints SERVICE clauses name, as absolute IRIs. */
  iris: string[];
  /** Some SERVICE clause names its endpoint with a variable. */
  variable: boolean;
}

/**
 * The endpoints a query's SERVICE clauses name. `prefixes` are the ones predeclared for the
 * query (the query's own declarations override them); relative IRIs resolve against the query's
 * BASE, else `base`.
 */
export function serviceTargets(query: string, predeclared: Record<string, string> = {}, base?: string): ServiceTargets {
  const tokens = tokenize(query);
  const head = prologue(tokens);
  const prefixes = { ...predeclared, ...head.prefixes };
  const iris = new Set<string>();
  let variable = false;
  for (let i = head.end; i < tokens.length; i++) {
    if (tokens[i].kind !== 'word' || tokens[i].text.toUpperCase() !== 'SERVICE') continue;
    let target = tokens[i + 1];
    if (target?.kind === 'word' && target.text.toUpperCase() === 'SILENT') target = tokens[i + 2];
    if (!target) continue;
    if (target.kind === 'var') variable = true;
    else if (target.kind === 'iri') iris.add(resolveIri(target.text.slice(1, -1), head.base ?? base));
    else if (target.kind === 'pname') {
      const iri = expandName(target.text, prefixes);
      if (iri !== undefined) iris.add(iri);
    }
  }
  return { iris: [...iris], variable };
}

/**
 * The graphs a query reads by name: none (it reads the default graph alone), the IRIs its
 * `GRAPH <iri>` clauses name, or `all` when a GRAPH clause names its graph with a variable or the
 * query names its own dataset (FROM) or reaches out (SERVICE).
 */
export function graphsNamed(query: string, predeclared: Record<string, string> = {}, base?: string): string[] | 'all' {
  const tokens = tokenize(query);
  const head = prologue(tokens);
  const prefixes = { ...predeclared, ...head.prefixes };
  const named = new Set<string>();
  for (let i = head.end; i < tokens.length; i++) {
    if (tokens[i].kind !== 'word') continue;
    const word = tokens[i].text.toUpperCase();
    if (word === 'FROM' || word === 'SERVICE') return 'all';
    if (word !== 'GRAPH') continue;
    const target = tokens[i + 1];
    const iri =
      target?.kind === 'iri'
        ? resolveIri(target.text.slice(1, -1), head.base ?? base)
        : target?.kind === 'pname'
          ? expandName(target.text, prefixes)
          : undefined;
    if (iri === undefined) return 'all';
    named.add(iri);
  }
  return [...named];
}

/** A prefixed name's IRI, or undefined when its prefix is not declared. */
function expandName(name: string, prefixes: Record<string, string>): string | undefined {
  const colon = name.indexOf(':');
  const ns = prefixes[name.slice(0, colon)];
  return ns === undefined ? undefined : ns + name.slice(colon + 1).replace(/\\(.)/g, '$1');
}

function resolveIri(iri: string, base: string | undefined): string {
  if (!base) return iri;
  try {
    return new URL(iri, base).href;
  } catch {
    return iri;
  }
}

/**
 * Whether a query is a CONSTRUCT or DESCRIBE (answers with a graph, not solutions), decided by
 * its first keyword after the prologue, however the prologue is laid out.
 */
export function returnsGraph(query: string): boolean {
  const form = queryForm(query);
  return form === 'CONSTRUCT' || form === 'DESCRIBE';
}

const KEYWORD_TAKING_GROUP = new Set(['OPTIONAL', 'UNION']);

/**
 * Whether the union's rewrite (src/query/merge.ts) may have a pattern to change: a triple pattern
 * of a SELECT's WHERE outside every GRAPH, MINUS, FILTER, BIND and VALUES, which the rewrite
 * leaves as they are. False only when this reading is sure; anything it does not follow (a
 * CONSTRUCT's template, a sub-select, a SERVICE, a collection) counts as a pattern. A query that
 * reads its graphs by name (every query Weave itself asks of a session) is then not parsed, and
 * a command does not build the parser for it (a sixth of a second of its start).
 */
export function mayReadDefaultGraph(query: string): boolean {
  const tokens = tokenize(query);
  let i = prologue(tokens).end;
  const form = tokens[i]?.text.toUpperCase();
  if (form === 'ASK') return false; // the rewrite leaves an ASK as it is: a yes or no, whatever the multiplicities
  if (form !== 'SELECT') return true;
  const punct = (k: number, text: string) => tokens[k]?.kind === 'punct' && tokens[k].text === text;
  /** The index of the token closing the one at `k` (`open`), or -1. */
  const closing = (k: number, open: string, close: string) => {
    if (!punct(k, open)) return -1;
    for (let depth = 0; k < tokens.length; k++) {
      if (punct(k, open)) depth++;
      else if (punct(k, close) && --depth === 0) return k;
    }
    return -1;
  };
  while (i < tokens.length && !punct(i, '{')) i++;
  let depth = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    if (punct(i, '{')) depth++;
    else if (punct(i, '}')) {
      if (--depth === 0) return false; // the WHERE has closed: its modifiers hold no pattern
    } else if (punct(i, '.')) continue;
    else if (t.kind !== 'word') return true;
    else {
      const word = t.text.toUpperCase();
      if (KEYWORD_TAKING_GROUP.has(word)) continue;
      let end = -1;
      if (word === 'GRAPH' && punct(i + 2, '{')) end = closing(i + 2, '{', '}');
      else if (word === 'MINUS') end = closing(i + 1, '{', '}');
      else if (word === 'BIND') end = closing(i + 1, '(', ')');
      else if (word === 'VALUES') {
        const head = punct(i + 1, '(') ? closing(i + 1, '(', ')') : tokens[i + 1]?.kind === 'var' ? i + 1 : -1;
        end = head === -1 ? -1 : closing(head + 1, '{', '}');
      } else if (word === 'FILTER') {
        let k = i + 1;
        if (tokens[k]?.kind === 'word' && tokens[k].text.toUpperCase() === 'NOT') k++;
        const exists = tokens[k]?.kind === 'word' && tokens[k].text.toUpperCase() === 'EXISTS';
        // FILTER (…), FILTER EXISTS {…}, FILTER fn(…): a call's name is a word, an IRI or a prefixed name.
        if (exists) end = closing(k + 1, '{', '}');
        else if (punct(k, '(')) end = closing(k, '(', ')');
        else if (['word', 'iri', 'pname'].includes(tokens[k]?.kind) && punct(k + 1, '(')) end = closing(k + 1, '(', ')');
      }
      if (end === -1) return true;
      i = end;
    }
  }
  return true; // unbalanced: the parser will say what is wrong
}
