/**
 * The cost of reading the union as a set (src/query/merge.ts): each example query of `queries/`
 * and a few questions users ask, over Oxigraph's union as it answers it (a bag) and through
 * runQuery (each default-graph triple pattern matched in the first graph that states it; the
 * parse and the writing of the query again included), alternated, the median of REPS runs each. Also prints how many rows or what count each gives, which differ
 * where sessions hold copies. A query whose patterns all sit in GRAPH is not rewritten and not
 * timed. `node --import tsx bench/merge.ts STORE_DIR` runs it alone.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type oxigraph from 'oxigraph';
import { sparqlPrefixes } from '../src/rdf/vocab.ts';
import { mergeDefaultGraph } from '../src/query/merge.ts';
import { runQuery } from '../src/query/run.ts';

const REPS = Number(process.env.BENCH_MERGE_REPS ?? 5);

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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function answerSize(result: unknown): string {
  if (typeof result === 'boolean') return String(result);
  const rows = result as Map<string, oxigraph.Term>[];
  if (rows.length === 1 && rows[0].size === 1) return `= ${[...rows[0].values()][0].value}`;
  return `${rows.length} rows`;
}

export async function mergeBench(store: oxigraph.Store): Promise<string[][]> {
  const dir = new URL('../queries/', import.meta.url);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.rq')).sort();
  const queries: [string, string][] = [...QUESTIONS];
  for (const f of files) queries.push([f, await readFile(new URL(f, dir), 'utf8')]);
  const rows = [['query', 'bag ms', 'set ms', 'set / bag', 'bag answer', 'set answer']];
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
    const [b, s] = [median(bag), median(set)];
    process.stderr.write(`  ${name}: ${b.toFixed(0)} ms as a bag, ${s.toFixed(0)} ms as a set\n`);
    rows.push([name, b.toFixed(0), s.toFixed(0), (s / b).toFixed(2), bagAnswer, setAnswer]);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { openStore } = await import('../src/store/store.ts');
  const { store } = await openStore(join(process.argv[2]));
  printTable(await mergeBench(store));
}

/** Columns padded to their widest cell, the first to the left, the rest to the right. */
export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((cell, i) => (i ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  '));
}
