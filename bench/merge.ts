/**
 * The cost of reading the union as a set (src/query/merge.ts): each example query of `queries/`
 * and a few questions users ask, over Oxigraph's union as it answers it (a bag) and through
 * runQuery (each default-graph triple pattern matched in the first graph that states it; the
 * parse and the writing of the query again included), alternated, the median of REPS runs each.
 * Also prints how many rows or what count each gives, which differ where sessions hold copies.
 * A query whose patterns all sit in GRAPH is not rewritten and not timed.
 * `node --import tsx bench/merge.ts STORE_DIR` runs it alone.
 */
import { readdir, readFile } from 'node:fs/promises';
import type oxigraph from 'oxigraph';
import { fitTable } from '../src/query/fit.ts';
import { mergeDefaultGraph } from '../src/query/merge.ts';
import { runQuery } from '../src/query/run.ts';
import { sparqlPrefixes } from '../src/rdf/vocab.ts';
import { percentile } from './scale/stats.ts';

const REPS = Number(process.env.BENCH_MERGE_REPS ?? 5);
const UNBOUNDED_AS_BAG = new Set(['claims-by-turn.rq']);

const QUESTIONS: [string, string][] = [
  ['calls', 'SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:LlmCall }'],
  ['tool uses', 'SELECT (COUNT(?b) AS ?n) WHERE { ?b a weave:ToolUseBlock }'],
  [
    'output tokens per model',
    'SELECT ?m (SUM(?o) AS ?out) WHERE { ?c a weave:LlmCall ; weave:lastFragment ?l . ?l weave:model ?m ; weave:hasUsage ?u . ?u weave:outputTokens ?o } GROUP BY ?m',
  ],
  [
    'turns touching a file',
    'SELECT DISTINCT ?t WHERE { ?t weave:hasContentBlock ?b . ?b weave:toolInput ?i FILTER(CONTAINS(STR(?i), "README")) }',
  ],
];

function answerSize(result: unknown): string {
  if (typeof result === 'boolean') return String(result);
  const rows = result as Map<string, oxigraph.Term>[];
  if (rows.length === 1 && rows[0].size === 1) return `= ${[...rows[0].values()][0].value}`;
  return `${rows.length} rows`;
}

/** One row a query: its name, then the bag's and the set's times, their ratio, and what each answered. */
export async function mergeBench(store: oxigraph.Store): Promise<string[][]> {
  const dir = new URL('../queries/', import.meta.url);
  // The natural claims shape has no plan Oxigraph finishes as a bag (past five minutes on the
  // corpus); part 5 times its forms under a cap instead.
  const files = (await readdir(dir)).filter((f) => f.endsWith('.rq') && !UNBOUNDED_AS_BAG.has(f)).sort();
  const queries: [string, string][] = [...QUESTIONS];
  for (const f of files) queries.push([f, await readFile(new URL(f, dir), 'utf8')]);
  const rows: string[][] = [];
  for (const [name, query] of queries) {
    // A query whose patterns all sit in GRAPH runs as written: the same query on both sides.
    if (mergeDefaultGraph(sparqlPrefixes() + query) === undefined) {
      rows.push([name, '', '', 'as written', '', '']);
      continue;
    }
    const bag: number[] = [];
    const set: number[] = [];
    let bagAnswer = '';
    let setAnswer = '';
    for (let i = 0; i < REPS; i++) {
      let t = performance.now();
      bagAnswer = answerSize(store.query(sparqlPrefixes() + query, { use_default_graph_as_union: true }));
      bag.push(performance.now() - t);
      t = performance.now();
      setAnswer = answerSize(runQuery(store, query));
      set.push(performance.now() - t);
    }
    const [b, s] = [percentile(bag, 50), percentile(set, 50)];
    process.stderr.write(`  ${name}: ${b.toFixed(0)} ms as a bag, ${s.toFixed(0)} ms as a set\n`);
    rows.push([name, b.toFixed(0), s.toFixed(0), (s / b).toFixed(2), bagAnswer, setAnswer]);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { openStore } = await import('../src/store/store.ts');
  const { store } = await openStore(process.argv[2]);
  printMergeBench(await mergeBench(store));
}

export function printMergeBench(rows: string[][]): void {
  const heads = ['query', 'bag ms', 'set ms', 'set / bag', 'bag answer', 'set answer'];
  const columns = heads.map((head, i) => ({ head, align: i ? ('right' as const) : ('left' as const) }));
  for (const line of fitTable(columns, rows, Number.POSITIVE_INFINITY)) console.log(line);
}
