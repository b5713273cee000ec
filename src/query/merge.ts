import { createRequire } from 'node:module';
import type { Generator } from '@traqula/generator-sparql-1-2';
import type { Parser } from '@traqula/parser-sparql-1-2';
import { mayReadDefaultGraph } from './lexer.ts';

/**
 * The default graph as SPARQL defines it: the RDF merge of the named graphs, a set. Oxigraph 0.5
 * answers a pattern over the union default graph once per graph that states the triple
 * (oxigraph#1919; fixed upstream by #1920, not in a release on npm), and every session that
 * holds a copy of a record (a resume, a fork, a file copied to another folder) states that
 * record's triples in its own graph: `COUNT` and `SUM` then count a copied call once per copy,
 * and a join of k patterns over a call held by n sessions repeats n^k times.
 *
 * So each triple pattern the query matches in the default graph is matched in one named graph,
 * the first (by IRI) of those that state the triple:
 *
 *   ?c a weave:LlmCall .
 *   →  { GRAPH ?g1 { ?c a weave:LlmCall }
 *        FILTER NOT EXISTS { GRAPH ?h1 { ?c a weave:LlmCall } FILTER(STR(?h1) < STR(?g1)) } }
 *
 * which gives each triple of the merged graph once, and each solution of a BGP as often as
 * SPARQL says (a join may take its triples from different graphs; a blank node is a variable the
 * answer does not show). Each pattern stays where it was, so Oxigraph still feeds one pattern's
 * bindings into the next (a distinct sub-select per BGP was 100 times slower on selective
 * queries). A pattern on a triple term with a variable in it (`?r rdf:reifies <<( ?t ?p ?o )>>`)
 * is matched in a sub-select of its own, so Oxigraph matches it once and joins it by hash: a
 * triple term is looked up only whole, so Oxigraph's planner, feeding a joined pattern's `?t`
 * into it (as it does for `?t a weave:Turn`), scanned every `rdf:reifies` quad once per turn
 * (over two minutes on the corpus, against 0.3 s; a query that finds its claims by other
 * patterns pays one scan instead of a lookup per claim, 60 ms against 8). `SELECT *` is spelled
 * out, so the graph variables stay out of the answer. What the rewrite leaves as it was: patterns
 * inside GRAPH or SERVICE, EXISTS and MINUS bodies (their answer is a yes or no), property paths
 * and RDF 1.2 annotations (kept over the union: a path may cross graphs), and a query that names
 * its own dataset. A query the parser cannot read is left for Oxigraph to explain.
 */

interface Node {
  type: string;
  subType: string;
  [key: string]: unknown;
}

interface Term extends Node {
  value?: string;
  label?: string;
}

interface Triple {
  type: string;
  [key: string]: unknown;
  subject: Term;
  predicate: Term;
  object: Term;
  annotations?: unknown[];
}

interface Pattern extends Node {
  patterns?: Pattern[];
  triples?: Triple[];
  where?: Pattern;
}

interface Query extends Node {
  where?: Pattern;
  datasets?: { clauses: unknown[] };
}

/**
 * The generator writes the query on one line: its pretty printer looks back over the current
 * line at each line break and indents each level, which made it quadratic in a long line (an
 * `IN` list of 8,000 values took 8 s) and in nesting (200 nested groups took 4 s).
 */
function oneLine(): Record<string, number | string> {
  const { traqulaIndentation, traqulaNewlineAlternative }: typeof import('@traqula/core') = traqula('@traqula/core');
  return { indentInc: 0, [traqulaIndentation]: -1, [traqulaNewlineAlternative]: ' ' };
}

let parser: Parser | undefined;
let generator: Generator | undefined;

/**
 * Traqula's packages, loaded (through their CommonJS builds, so that a synchronous rewrite can) the
 * first time a query has something to rewrite: loading them costs a process 0.07 s, and building
 * the parser 0.1 s more, which a command whose queries read named graphs alone never needs.
 */
const traqula = createRequire(import.meta.url);

/**
 * The query with every default-graph BGP read over the merge of the named graphs, or `undefined`
 * when there is nothing to change (no such BGP, an ASK, a dataset of its own, an update, text the
 * parser does not accept). It is plain SPARQL 1.1, for Oxigraph and for an external store alike
 * (Virtuoso's union of graphs is a bag too).
 */
export function mergeDefaultGraph(query: string, options: MergeOptions = {}): string | undefined {
  const key = `${options.optionalsAsSubselects ? 'o' : ''}${options.tripleTermsOnly ? 't' : ''}\u0000${query}`;
  const known = rewritten.get(key);
  if (known !== undefined || rewritten.has(key)) {
    // Most recently used last: a Map keeps insertion order, so the first key is the one to drop.
    rewritten.delete(key);
    rewritten.set(key, known);
    return known;
  }
  const merged = rewrite(query, options);
  if (query.length <= REMEMBERED_CHARS) {
    rewritten.set(key, merged);
    if (rewritten.size > REMEMBERED) rewritten.delete(rewritten.keys().next().value as string);
  }
  return merged;
}

/**
 * The rewrites of the queries asked lately, by their text: a client (a dashboard, a page, a
 * benchmark) asks the same text again and again, and parsing and writing it anew took four
 * times as long as Oxigraph's answer to a point query. Long texts are rewritten each time.
 */
const rewritten = new Map<string, string | undefined>();
const REMEMBERED = 256;
const REMEMBERED_CHARS = 16_384;

export interface MergeOptions {
  /**
   * Inside an OPTIONAL, match each pattern in a distinct sub-select of its variables over every
   * graph (`{ SELECT DISTINCT ?s ?o WHERE { GRAPH ?g { ?s p ?o } } }`), not in the first graph
   * stating it: Virtuoso 7.2 reads a FILTER NOT EXISTS in an OPTIONAL's group wrongly (inside a
   * UNION branch it joined every session with one session's failed hooks). The same set either way.
   */
  optionalsAsSubselects?: boolean;
  /**
   * Only put each pattern on a triple term with a variable in it in a sub-select of its own, and
   * leave every other pattern over the union as it is: for a union that is a set already (a query
   * worker's store, src/store/restated.ts), where Oxigraph's planner would still feed a joined
   * pattern's bindings into the triple term and scan every `rdf:reifies` quad once per binding.
   */
  tripleTermsOnly?: boolean;
}

/** The query with its triple-term patterns matched alone (MergeOptions.tripleTermsOnly), or undefined when it has none. */
export function isolateTripleTerms(query: string): string | undefined {
  // Most queries have no triple term: they are not parsed.
  return query.includes('<<') ? mergeDefaultGraph(query, { tripleTermsOnly: true }) : undefined;
}

function rewrite(query: string, options: MergeOptions): string | undefined {
  return mayReadDefaultGraph(query) ? parsedRewrite(query, options) : undefined;
}

/** The rewrite as the parser finds it, with no lexical shortcut (exported for the test that the shortcut agrees). */
export function parsedRewrite(query: string, options: MergeOptions = {}): string | undefined {
  let ast: Query;
  try {
    parser ??= new (traqula('@traqula/parser-sparql-1-2') as typeof import('@traqula/parser-sparql-1-2')).Parser();
    ast = parser.parse(query) as unknown as Query;
  } catch {
    return undefined;
  }
  // An ASK's answer is a yes or no, whatever the multiplicities.
  if (ast.type !== 'query' || ast.subType === 'ask' || !ast.where || ast.datasets?.clauses.length) return undefined;
  const names = new Names(query);
  spellOutWildcard(ast);
  if (!rewriteGroup(ast.where, names, { asSubselects: false, options })) return undefined;
  generator ??= new (traqula('@traqula/generator-sparql-1-2') as typeof import('@traqula/generator-sparql-1-2')).Generator(
    oneLine() as never,
  );
  return generator.generate(ast as never);
}

/** Fresh variable names no user variable can take: the query text does not contain their stem. */
class Names {
  private readonly stem: string;
  private n = 0;
  constructor(query: string) {
    let stem = 'merged';
    while (query.includes(stem)) stem += '_';
    this.stem = stem;
  }
  next(kind: 'g' | 'h' | 'b'): Term {
    return variable(`${this.stem}_${kind}${++this.n}`);
  }
}

/** Where a group is: whether its patterns are matched as distinct sub-selects (MergeOptions). */
interface Within {
  asSubselects: boolean;
  options: MergeOptions;
}

/** Rewrites the BGPs of a group (and of the groups it holds) in place; whether any changed. */
function rewriteGroup(group: Pattern, names: Names, within: Within): boolean {
  let changed = false;
  const rewritten: Pattern[] = [];
  for (const pattern of group.patterns ?? []) {
    if (pattern.subType === 'bgp') {
      const merged = within.options.tripleTermsOnly ? isolatedBgp(pattern, names) : mergedBgp(pattern, names, within.asSubselects);
      rewritten.push(...(merged ?? [pattern]));
      changed ||= !!merged;
      continue;
    }
    rewritten.push(pattern);
    // A group and an OPTIONAL hold patterns, a UNION holds groups, a sub-select holds its WHERE.
    const optional = pattern.subType === 'optional' && !!within.options.optionalsAsSubselects;
    const inner = optional ? { ...within, asSubselects: true } : within;
    if (pattern.subType === 'group' || pattern.subType === 'optional') changed = rewriteGroup(pattern, names, inner) || changed;
    else if (pattern.subType === 'union')
      for (const branch of pattern.patterns ?? []) changed = rewriteGroup(branch, names, within) || changed;
    else if (pattern.type === 'query' && pattern.where) {
      spellOutWildcard(pattern as Query);
      changed = rewriteGroup(pattern.where, names, within) || changed;
    }
    // GRAPH, SERVICE, MINUS, FILTER, BIND, VALUES: left as they are (see above).
  }
  group.patterns = rewritten;
  if (changed) group.loc = GENERATED;
  return changed;
}

/**
 * The BGP's triples that can be merged, each matched in the first graph stating it, followed by
 * the triples that stay over the union (paths, annotated triples); `undefined` when none can be.
 */
function mergedBgp(bgp: Pattern, names: Names, asSubselects: boolean): Pattern[] | undefined {
  const plain: Triple[] = [];
  const kept: Triple[] = [];
  for (const triple of flatten(bgp.triples ?? [])) {
    const simple = triple.predicate.type === 'term' && !triple.annotations?.length && !hasStructure(triple);
    (simple ? plain : kept).push(triple);
  }
  if (!plain.length) return undefined;
  const unblank = unblanker(names);
  const out: Pattern[] = plain.map((t) => {
    const triple = { ...t, subject: unblank(t.subject), predicate: unblank(t.predicate), object: unblank(t.object) };
    if (asSubselects && variablesOf(triple).length) return distinctMatch(triple, names);
    const match = firstGraphMatch(triple, names);
    return [triple.subject, triple.object].some((x) => x.subType === 'triple' && variablesOf(x).length) ? alone(match, triple) : match;
  });
  if (kept.length)
    out.push({ ...bgp, loc: GENERATED, triples: kept.map((t) => ({ ...t, subject: unblank(t.subject), object: unblank(t.object) })) });
  return out;
}

/**
 * The BGP's triples on a triple term with a variable in it, each in a sub-select of its own,
 * followed by the rest of the BGP as it was; `undefined` when it has none.
 */
function isolatedBgp(bgp: Pattern, names: Names): Pattern[] | undefined {
  const triples = flatten(bgp.triples ?? []);
  const isolated = (t: Triple) =>
    !t.annotations?.length && [t.subject, t.object].some((x) => x.subType === 'triple' && variablesOf(x).length);
  if (!triples.some(isolated)) return undefined;
  const unblank = unblanker(names);
  const bgpOf = (list: Triple[]): Pattern => ({ type: 'pattern', subType: 'bgp', loc: GENERATED, triples: list });
  const out: Pattern[] = [];
  const rest: Triple[] = [];
  for (const t of triples) {
    const triple = { ...t, subject: unblank(t.subject), object: unblank(t.object) };
    if (isolated(t)) out.push(alone(bgpOf([triple]), triple));
    else rest.push(triple);
  }
  if (rest.length) out.push(bgpOf(rest));
  return out;
}

/**
 * A blank node is scoped to its BGP, which a rewrite splits: each becomes a fresh variable, which
 * SPARQL treats alike (a match the answer does not show), the same one for each of its uses.
 */
function unblanker(names: Names): (t: Term) => Term {
  const blanks = new Map<string, Term>();
  const unblank = (t: Term): Term => {
    if (t.subType === 'blankNode') {
      const key = t.label ?? '';
      if (!blanks.has(key)) blanks.set(key, names.next('b'));
      return blanks.get(key)!;
    }
    if (t.subType === 'triple')
      return { ...t, subject: unblank(t.subject as Term), predicate: unblank(t.predicate as Term), object: unblank(t.object as Term) };
    return t;
  };
  return unblank;
}

/** `{ GRAPH ?g { t } FILTER NOT EXISTS { GRAPH ?h { t } FILTER(STR(?h) < STR(?g)) } }`, as traqula's AST. */
function firstGraphMatch(triple: Triple, names: Names): Pattern {
  const g = names.next('g');
  const h = names.next('h');
  const inGraph = (name: Term): Pattern => ({
    type: 'pattern',
    subType: 'graph',
    loc: GENERATED,
    name,
    patterns: [{ type: 'pattern', subType: 'bgp', loc: GENERATED, triples: [triple] }],
  });
  const str = (v: Term) => ({ type: 'expression', subType: 'operation', operator: 'str', loc: GENERATED, args: [v] });
  const earlier = { type: 'expression', subType: 'operation', operator: '<', loc: GENERATED, args: [str(h), str(g)] };
  return {
    type: 'pattern',
    subType: 'group',
    loc: GENERATED,
    patterns: [
      inGraph(g),
      {
        type: 'pattern',
        subType: 'filter',
        loc: GENERATED,
        expression: {
          type: 'expression',
          subType: 'patternOperation',
          operator: 'notexists',
          loc: GENERATED,
          args: {
            type: 'pattern',
            subType: 'group',
            loc: GENERATED,
            patterns: [inGraph(h), { type: 'pattern', subType: 'filter', loc: GENERATED, expression: earlier }],
          },
        },
      },
    ],
  };
}

/** `{ SELECT DISTINCT <the triple's variables> WHERE { GRAPH ?g { t } } }`: each triple of the merge once. */
function distinctMatch(triple: Triple, names: Names): Pattern {
  const match: Pattern = {
    type: 'pattern',
    subType: 'graph',
    loc: GENERATED,
    name: names.next('g'),
    patterns: [{ type: 'pattern', subType: 'bgp', loc: GENERATED, triples: [triple] }],
  };
  const group = alone(match, triple);
  (group.patterns![0] as unknown as { distinct: boolean }).distinct = true;
  return group;
}

/** `{ SELECT <the triple's variables> WHERE { match } }`: matched once, whatever it is joined with. */
function alone(match: Pattern, triple: Triple): Pattern {
  const select = {
    type: 'query',
    subType: 'select',
    loc: GENERATED,
    variables: variablesOf(triple),
    where: { type: 'pattern', subType: 'group', loc: GENERATED, patterns: [match] },
    datasets: { type: 'datasetClauses', loc: GENERATED, clauses: [] },
    context: [],
    solutionModifiers: {},
  };
  return { type: 'pattern', subType: 'group', loc: GENERATED, patterns: [select as unknown as Pattern] };
}

/** The variables of a triple or term, triple terms included, each once, in order. */
function variablesOf(node: Term | Triple): Term[] {
  if (node.subType === 'variable') return [node as Term];
  if (node.type !== 'triple' && node.subType !== 'triple') return [];
  const all = [node.subject as Term, node.predicate as Term, node.object as Term].flatMap(variablesOf);
  return [...new Map(all.map((v) => [v.value, v])).values()];
}

/**
 * The triples of a BGP with blank node property lists, collections and reified triples spelled
 * out as triples. A reified triple `<< s p o >>` is its reifier and `reifier rdf:reifies <<( s p o
 * )>>`: its triple is not asserted. One in subject position stands alone in the list.
 */
function flatten(triples: (Triple | Term)[]): Triple[] {
  const out: Triple[] = [];
  const term = (t: Term): Term => {
    if (t.type !== 'tripleCollection') return t;
    if (t.subType === 'reifiedTriple') {
      const [said] = t.triples as Triple[];
      const object = {
        type: 'term',
        subType: 'triple',
        loc: GENERATED,
        subject: term(said.subject),
        predicate: said.predicate,
        object: term(said.object),
      };
      out.push({ type: 'triple', loc: GENERATED, subject: t.identifier as Term, predicate: namedNode(RDF_REIFIES), object });
    } else out.push(...flatten(t.triples as Triple[]));
    return t.identifier as Term;
  };
  for (const t of triples) {
    if (t.type === 'tripleCollection') {
      term(t as Term);
      continue;
    }
    const triple = t as Triple;
    const subject = term(triple.subject);
    const object = term(triple.object);
    out.push({ ...triple, subject, object });
  }
  return out;
}

/** Whether a triple holds a syntactic structure the rewrite does not spell out (a reified triple). */
function hasStructure(t: Triple): boolean {
  return [t.subject, t.object].some((x) => x.type !== 'term');
}

/**
 * `SELECT *` (and `DESCRIBE *`) as the list of the variables in scope, in the order they first
 * appear, read before the rewrite adds its own.
 */
function spellOutWildcard(query: Query): void {
  const variables = query.variables as Node[] | undefined;
  if (!query.where || variables?.length !== 1 || variables[0].type !== 'wildcard') return;
  const inScope = new Map<string, Term>();
  visible(query.where, inScope);
  visible(query.values, inScope);
  if (inScope.size) query.variables = [...inScope.values()];
}

/** The variables a pattern binds: not those only a FILTER, an EXISTS or a MINUS mentions. */
function visible(node: unknown, into: Map<string, Term>): void {
  if (Array.isArray(node)) {
    for (const item of node) visible(item, into);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  if (n.type === 'term' && n.subType === 'variable') {
    into.set(n.value as string, n as Term);
    return;
  }
  if (n.subType === 'filter' || n.subType === 'minus') return;
  if (n.type === 'query') {
    const projected = n.variables as Node[];
    if (projected.length === 1 && projected[0].type === 'wildcard') visible(n.where, into);
    else for (const v of projected) visible(v.type === 'term' ? v : v.variable, into);
    return;
  }
  for (const [key, value] of Object.entries(n)) if (key !== 'loc') visible(value, into);
}

function variable(value: string): Term {
  return { type: 'term', subType: 'variable', value, loc: GENERATED };
}

function namedNode(value: string): Term {
  return { type: 'term', subType: 'namedNode', value, loc: GENERATED };
}

const RDF_REIFIES = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies';

/** The source location traqula's generator reads as "write this node out", for nodes made here. */
const GENERATED = { sourceLocationType: 'autoGenerate' };
