import { PREFIXES } from '../rdf/vocab.ts';

/**
 * SPARQL syntax errors in words. Oxigraph's parser reports the last alternatives it tried
 * ("expected CONSTRUCT" for `SELEC`, six lines of Unicode ranges for an unknown prefix); this
 * says what was found, where, and what the query needed there. Positions are in the user's text.
 */

const FORMS = ['SELECT', 'CONSTRUCT', 'DESCRIBE', 'ASK'];
const UPDATES = ['INSERT', 'DELETE', 'LOAD', 'CLEAR', 'CREATE', 'DROP', 'COPY', 'MOVE', 'ADD', 'WITH'];
const MODIFIERS = ['GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'VALUES'];
const FUNCTIONS = ['STR', 'REGEX', 'BOUND', 'COUNT', 'ABS', 'CONCAT', 'LCASE', 'UCASE', 'IRI', 'NOT'];

const FOLLOWS: Record<string, string> = {
  SELECT: 'name the variables (or *), then a WHERE group { … }',
  CONSTRUCT: 'give a template { … } and a WHERE group, or WHERE { … } alone',
  DESCRIBE: 'name an IRI, a variable or *',
  ASK: 'give a group { … }',
};

interface Position {
  line: number;
  column: number;
}

/** Oxigraph's "error at L:C: …" for `text` (its lines counted from the user's first), in words. */
export function explainSyntaxError(text: string, message: string, prefixLines: number): string {
  const m = /^error at (\d+):(\d+): ?([\s\S]*)$/.exec(message);
  if (!m) return message;
  const at: Position = { line: Math.max(1, Number(m[1]) - prefixLines), column: Number(m[2]) };
  const expected = expectedTokens(m[3]);
  const where = (p: Position) => `error at line ${p.line}, column ${p.column}`;

  const form = firstWord(text);
  // The parser, reading a query, stops inside an update's first words ("found DATA; expected CONSTRUCT").
  if (form && UPDATES.includes(form.word.toUpperCase()))
    return `${where(form)}: found "${form.word}", which begins a SPARQL Update, where a query begins with SELECT, CONSTRUCT, DESCRIBE or ASK; only weave serve --allow-update takes updates, sent as update=`;
  if (form && !FORMS.includes(form.word.toUpperCase()))
    return `${where(form)}: found "${form.word}" where a query begins with SELECT, CONSTRUCT, DESCRIBE or ASK`;
  if (/Prefix not found/.test(m[3])) {
    const name = prefixedNameBefore(text, at);
    const prefix = name ? `"${name.split(':')[0]}:"` : 'the prefix';
    return `${where(at)}: unknown prefix ${prefix}${name ? ` in ${name}` : ''}; the predeclared prefixes are ${Object.keys(PREFIXES).join(', ')} (declare another with PREFIX name: <IRI>)`;
  }
  const rule = brokenRule(m[3]);
  if (rule) return `${where(at)}: ${rule.replace(/^The /, 'the ')}${RULE_HINTS[rule] ?? ''}`;
  const open = unclosed(text);
  if (open) return `${where(at)}: ${open}`;
  // Oxigraph's position is past such an operator, often at the end of the query ("expected LANGMATCHES" at a LIMIT).
  const dangling = danglingOperator(text);
  if (dangling)
    return `${where(positionOf(text, dangling.offset))}: "${dangling.operator}" has nothing on its ${dangling.side}; an expression is needed there (a variable, a value, or a function call such as STR(?x))`;
  const unnamed = /\(\s*[A-Za-z_]+\s*\([^()]*\)\s*(\?\w+)\s*\)/.exec(blank(text));
  if (unnamed)
    return `${where(positionOf(text, unnamed.index + unnamed[0].indexOf('?')))}: found ${unnamed[1]} after an expression; name it with AS, as in (COUNT(*) AS ${unnamed[1]})`;
  const token = tokenAt(text, at);
  const keyword = token?.word.toUpperCase() ?? '';
  if (keyword === 'LIMIT' || keyword === 'OFFSET') return `${where(at)}: ${keyword} is followed by a whole number`;
  if (FORMS.includes(keyword) && !/\S/.test(text.slice(token!.offset + keyword.length)))
    return `${where(at)}: the query ends after ${keyword}; ${FOLLOWS[keyword]}`;
  if (expected.some((t) => MODIFIERS.includes(t))) {
    const stray = afterWhere(text);
    if (stray)
      return `${where(positionOf(text, stray.offset))}: found "${stray.word}"; after the WHERE clause come GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET or VALUES, or the end of the query`;
  }
  if (token?.word === '}' || token?.word === '.') {
    const terms = patternBefore(text, token.offset);
    if (terms.length === 1 || terms.length === 2)
      return `${where(at)}: the triple pattern "${terms.join(' ')}" has no ${terms.length === 1 ? 'predicate and object' : 'object'}`;
  }
  return `${where(at)}: ${token ? `found "${token.word.length > 24 ? `${token.word.slice(0, 23)}…` : token.word}"` : 'the query ends'}${wanted(expected)}`;
}

/**
 * The token Oxigraph stopped at: its column points just past the character it could not take,
 * so the token holding the character before, else the next one.
 */
function tokenAt(text: string, at: Position): { word: string; offset: number } | undefined {
  let i = offsetOf(text, { line: at.line, column: Math.max(1, at.column - 1) });
  while (i < text.length && /\s/.test(text[i])) i++;
  if (i >= text.length) return undefined;
  let start = i;
  if (/[{}().;,]/.test(text[i])) return { word: text[i], offset: i };
  while (start > 0 && /[^\s{}().;,]/.test(text[start - 1])) start--;
  const word = /^[^\s{}().;,]+/.exec(text.slice(start))![0];
  return { word, offset: start };
}

/** The first word after the top-level group (the WHERE clause) that no solution modifier begins with. */
function afterWhere(text: string): { word: string; offset: number } | undefined {
  const code = blank(text);
  let depth = 0;
  let end = -1;
  for (let i = 0; i < code.length; i++) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}' && --depth === 0) end = i;
  }
  if (end < 0) return undefined;
  const w = /\S+/.exec(code.slice(end + 1));
  if (!w || [...MODIFIERS, 'BY'].includes(w[0].toUpperCase())) return undefined;
  return { word: text.substr(end + 1 + w.index, w[0].length), offset: end + 1 + w.index };
}

/** The terms of the triple pattern that ends at `offset` (since the last "{", "." or ";"). */
function patternBefore(text: string, offset: number): string[] {
  const code = blank(text).slice(0, offset);
  const start = Math.max(code.lastIndexOf('{'), code.lastIndexOf('.'), code.lastIndexOf(';')) + 1;
  return text.slice(start, offset).trim().split(/\s+/).filter(Boolean);
}

const GROUPED =
  '; a query that groups (GROUP BY, or an aggregate such as COUNT) selects only its group keys and aggregates, such as (SAMPLE(?x) AS ?any)';
const RULE_HINTS: Record<string, string> = {
  'The SELECT contains a variable that is unbound': GROUPED,
  'The SELECT contains an expression with a variable that is unbound': GROUPED,
  'SELECT * is not authorized with GROUP BY': '; name the group keys and aggregates instead of *',
};

/**
 * A rule of the query rather than its syntax, which Oxigraph's parser checks as it reads and
 * names in a sentence among the tokens it expected ("The SELECT contains a variable that is
 * unbound"): the one item of the list that is neither quoted nor one word.
 */
function brokenRule(rest: string): string | undefined {
  const list = rest.replace(/^expected (one of )?/, '').replace(/\[[^\]]*\]/gs, ' ');
  return list
    .split(/,\s*/)
    .map((t) => t.trim())
    .find((t) => !t.startsWith('"') && /\s/.test(t));
}

/** The quoted tokens and keywords Oxigraph lists, without its character classes. */
function expectedTokens(rest: string): string[] {
  const list = rest.replace(/^expected (one of )?/, '').replace(/\[[^\]]*\]/gs, ' ');
  return [...list.matchAll(/"((?:[^"\\]|\\.)*)"|\b([A-Za-z][A-Za-z_]*)\b/g)].map((t) =>
    t[1] !== undefined ? t[1].replace(/\\(.)/g, '$1') : t[2],
  );
}

/** The first word after the prologue (PREFIX and BASE declarations, comments). */
function firstWord(text: string): (Position & { word: string }) | undefined {
  const code = blank(text);
  const re = /\s*(?:(?:PREFIX\s+[^\s:]*:\s*<[^>]*>|BASE\s*<[^>]*>)\s*)*/iy;
  re.exec(code);
  const word = /[^\s{(]+/y;
  word.lastIndex = re.lastIndex;
  const w = word.exec(code);
  if (!w) return undefined;
  return { ...positionOf(text, re.lastIndex), word: text.slice(re.lastIndex, re.lastIndex + w[0].length) };
}

/**
 * The text with comments and string contents blanked (same length), so scans see only code. An
 * IRI is passed over whole: the "#" of <http://www.w3.org/ns/prov#> begins no comment.
 */
function blank(text: string): string {
  return text.replace(/<[^<>"{}|^`\\\s]*>|#[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (s) =>
    s[0] === '<' ? s : s[0] === '#' ? ' '.repeat(s.length) : s[0] + ' '.repeat(s.length - 2) + s[0],
  );
}

function positionOf(text: string, offset: number): Position {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

function offsetOf(text: string, p: Position): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < p.line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  return Math.min(text.length, offset + p.column - 1);
}

/** The prefixed name ending at (or just before) the position, e.g. `foo:bar`. */
function prefixedNameBefore(text: string, at: Position): string | undefined {
  const upto = text.slice(0, offsetOf(text, at) + 1);
  return /([A-Za-z][\w.-]*)?:[\w.-]*\S?$/.exec(upto.trimEnd())?.[0].replace(/[^\w.:-]+$/, '');
}

/**
 * A binary operator with nothing on one side within its parentheses, as in `FILTER(?x > )` or
 * `( >= 2)`: the operator and where it is. `+`, `*` and `/` are left out (a property path may end
 * with them), and a `-` counts only after a space (a name may end with one).
 */
function danglingOperator(text: string): { operator: string; offset: number; side: 'left' | 'right' } | undefined {
  // IRIs blanked too: one may hold "=" or "&".
  const code = blank(text).replace(/<[^<>"{}|^`\\\s]*>/g, (s) => ' '.repeat(s.length));
  const right = /(\|\||&&|!=|<=|>=|=|<|>|(?<=\s)-)\s*\)/.exec(code);
  if (right) return { operator: right[1], offset: right.index, side: 'right' };
  const left = /\(\s*(\|\||&&|!=|<=|>=|=|<|>)/.exec(code);
  if (left) return { operator: left[1], offset: left.index + left[0].length - left[1].length, side: 'left' };
  return undefined;
}

/** A string, IRI, group or bracket left open (or closed twice), in words. */
function unclosed(text: string): string | undefined {
  const quote = /"(?:[^"\\\n]|\\.)*$|'(?:[^'\\\n]|\\.)*$/m;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const code = lines[i].replace(/#.*$/, (c) => (/["']/.test(c) ? c : ''));
    const stripped = code.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, (s) => ' '.repeat(s.length));
    const q = quote.exec(stripped);
    if (q) return `the string opened at line ${i + 1}, column ${q.index + 1} is not closed`;
  }
  const code = blank(text);
  const stack: { char: string; offset: number }[] = [];
  const pairs: Record<string, string> = { '}': '{', ')': '(', ']': '[' };
  // An IRI without its ">" (a comparison such as `?a < ?b` has no scheme after "<").
  const iri = /<[A-Za-z][\w+.-]*:[^<>"{}|^`\\\s]*(?=\s|$)/.exec(code);
  if (iri) {
    const p = positionOf(text, iri.index);
    return `the IRI opened at line ${p.line}, column ${p.column} is not closed with ">"`;
  }
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '{' || c === '(' || c === '[') stack.push({ char: c, offset: i });
    else if (c in pairs) {
      const top = stack.pop();
      const p = positionOf(text, i);
      if (!top) return `found "${c}" at line ${p.line}, column ${p.column}, which closes nothing`;
      if (top.char !== pairs[c]) {
        const o = positionOf(text, top.offset);
        return `found "${c}" at line ${p.line}, column ${p.column}, where the "${top.char}" of line ${o.line}, column ${o.column} needs closing first`;
      }
    }
  }
  const top = stack.pop();
  if (!top) return undefined;
  const o = positionOf(text, top.offset);
  const close = { '{': '}', '(': ')', '[': ']' }[top.char];
  return `the query ends before the "${top.char}" at line ${o.line}, column ${o.column} is closed with "${close}"`;
}

/** What the parser wanted, as a person would say it. */
function wanted(expected: string[]): string {
  const has = (...t: string[]) => t.some((x) => expected.includes(x));
  if (has('BY')) return ': GROUP and ORDER are followed by BY';
  if (has(...MODIFIERS))
    return ': after the WHERE clause come GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET or VALUES, or the end of the query';
  if (has(...FUNCTIONS)) return ': an expression is needed here (a variable, a value, or a function call such as STR(?x))';
  if (expected.length === 1 && expected[0] === '{') return ': a group { … } is needed here';
  if (has('.', ';', ',') && has('}')) return ': a triple pattern goes on with ";" or ",", ends with "." or closes its group with "}"';
  if (has('>')) return ': an IRI ends with ">"';
  const words = expected.filter((t) => t !== 'Prefix' && t !== 'not' && t !== 'found');
  if (!words.length) return ' here, where the query cannot go on';
  return `; expected ${words.length > 1 ? 'one of ' : ''}${words
    .slice(0, 8)
    .map((w) => `"${w}"`)
    .join(', ')}${words.length > 8 ? ', …' : ''}`;
}
