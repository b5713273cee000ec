import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { MAX_QUERY_DEPTH, queryDepth } from '../../src/query/depth.ts';
import { REPO } from './helpers.ts';

/**
 * The query depth guard (issue 15, defect 6): what it measures, that no hand-written query comes
 * near the limit, and, the point of it, that every query it lets through runs in Oxigraph
 * without overflowing its stack, however the nesting is made.
 */

test('brackets, calls and chains count by their cost; strings, IRIs, comments and prefixed names do not', () => {
  // SELECT 1, then its group opens 2 deeper.
  assert.equal(queryDepth('SELECT * WHERE { ?s ?p ?o }'), 3);
  assert.equal(queryDepth('SELECT * WHERE { { { ?s ?p ?o } } }'), 7);
  assert.equal(queryDepth('SELECT * WHERE { ?s ?p ?o FILTER((?o)) }'), 6); // 3, FILTER 1, ( 1, ( 1
  assert.equal(queryDepth('SELECT * WHERE { {?a ?b ?c} UNION {?a ?b ?c} UNION {?a ?b ?c} }'), 7); // 3, two UNIONs, then a group
  assert.equal(queryDepth('SELECT * WHERE { ?s ?p ?o FILTER(STR(?o)) }'), 12); // 3, FILTER 1, ( 1, STR 6, ( 1
  // Two calls side by side chain like operators (an over-count the budget absorbs): 5, 6, 6, ( 1.
  assert.equal(queryDepth('SELECT * WHERE { ?s ?p ?o FILTER(xsd:integer(?o) > <urn:f>(?o)) }'), 18);
  assert.equal(queryDepth('SELECT * WHERE { ?s ?p ?o FILTER NOT EXISTS { ?s ?p ?o } }'), 13); // 3, FILTER 1, NOT 1, EXISTS 6, { 2
  assert.equal(queryDepth('SELECT * WHERE { ?s ?p "{{{{((((" . ?s ?p <urn:((((> # {{{{\n }'), 3);
  assert.equal(queryDepth("SELECT * WHERE { ?s ?p '''{\n{{''' }"), 3);
  assert.equal(queryDepth('PREFIX union: <urn:x#> SELECT * WHERE { ?s union:optional ?o ; :bind ?x }'), 3);
  assert.equal(queryDepth('SELECT * WHERE { ?s ?p ?o FILTER(?o != 1) }'), 5); // != is no chain
  // Unbalanced closing brackets never take the depth below the top level.
  assert.equal(queryDepth('}}}} SELECT * WHERE { ?s ?p ?o }'), 3);
});

test('every query shipped in queries/ is far below the limit', async () => {
  const files = (await readdir(join(REPO, 'queries'))).filter((f) => f.endsWith('.rq'));
  assert.ok(files.length >= 10);
  for (const f of files) {
    const depth = queryDepth(await readFile(join(REPO, 'queries', f), 'utf8'));
    assert.ok(depth > 0 && depth <= MAX_QUERY_DEPTH / 8, `${f}: ${depth}`);
  }
});

test('the guard is linear: a 16 MB body of brackets, quotes, angle brackets or keywords is measured in seconds, not hours', () => {
  // Quadratic scanning (an IRI tried by copying the 4 KB after each '<') would take hours here.
  // The bound is on this thread's CPU time, not the wall's: on a shared machine the wall can
  // stretch tenfold (a loaded run took 10 s of wall for "<a", which takes 1-2 s of CPU).
  for (const unit of ['{', '(', '<', '"', '<a', '<a>', 'UNION ', '# {\n']) {
    const text = unit.repeat(Math.floor(16e6 / unit.length));
    const started = process.cpuUsage();
    queryDepth(text, MAX_QUERY_DEPTH);
    const { user, system } = process.cpuUsage(started);
    assert.ok(user + system < 10e6, `${JSON.stringify(unit)} took ${(user + system) / 1000} ms of CPU`);
  }
});

/** Group graph pattern layers: each wraps the pattern inside it. */
const LAYERS: Record<string, (inner: string, n: number) => string> = {
  group: (inner) => `{ ${inner} }`,
  optional: (inner) => `?s ?p ?o OPTIONAL { ${inner} }`,
  union: (inner) => `{ ${inner} } UNION { ?s ?p ?o }`,
  unionChain: (inner) => `{ ${inner} } UNION { ?s ?p ?o } UNION { ?s ?p ?o }`,
  minus: (inner) => `?s ?p ?o MINUS { ${inner} }`,
  graph: (inner) => `GRAPH ?g { ${inner} }`,
  bind: (inner, n) => `${inner} BIND(${n} AS ?v${n})`,
  optionalChain: (inner) => `${inner} OPTIONAL { ?s ?p ?o } OPTIONAL { ?s ?p ?o }`,
  exists: (inner) => `?s ?p ?o FILTER EXISTS { ${inner} }`,
  subselect: (inner) => `{ SELECT * WHERE { ${inner} } }`,
  filterExpr: (inner) => `${inner} FILTER(((?o = 1) || !(?o = 2)) && ?o + 1 * 2 > 0)`,
};
/** Expression layers, inside one FILTER. */
const EXPRESSIONS: Record<string, (inner: string) => string> = {
  parens: (inner) => `(${inner})`,
  not: (inner) => `!${inner}`,
  or: (inner) => `${inner} || ?o = 1`,
  and: (inner) => `${inner} && ?o != 2`,
  plus: (inner) => `${inner} + 1`,
  call: (inner) => `STRLEN(STR(${inner}))`,
  if: (inner) => `IF(${inner}, 1, 0)`,
};

function patternQuery(layers: string[]): string {
  let inner = '?s ?p ?o';
  for (const [n, kind] of layers.entries()) inner = LAYERS[kind](inner, n);
  return `SELECT * WHERE { ${inner} }`;
}

function expressionQuery(layers: string[]): string {
  let inner = '?o';
  for (const kind of layers) inner = EXPRESSIONS[kind](inner);
  return `SELECT * WHERE { ?s ?p ?o FILTER(${inner}) }`;
}

/**
 * Runs each query in Oxigraph in a worker thread (a stack overflow traps the whole WebAssembly
 * instance), the whole list twice: the second time the engine has optimised Oxigraph's code,
 * whose frames are larger, as in a server's long-lived workers.
 */
function runInOxigraph(queries: string[]): Promise<(string | null)[]> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const ox = require(${JSON.stringify(join(REPO, 'node_modules', 'oxigraph'))});
    const store = new ox.Store();
    store.load('<urn:a> <urn:b> "1" .', { format: 'application/n-triples' });
    const run = (q) => { try { store.query(q); return null; } catch (e) { return String(e && e.message || e).slice(0, 120); } };
    const cold = workerData.map(run);
    parentPort.postMessage(workerData.map((q, i) => cold[i] || run(q)));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: queries });
    worker.once('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

test('every query the guard admits, up to its limit, runs in Oxigraph without overflowing it (fast-check, fixed seed)', async () => {
  const admitted: string[] = [];
  let refused = 0;
  const collect = (query: string) => {
    if (queryDepth(query) <= MAX_QUERY_DEPTH) admitted.push(query);
    else refused++;
  };
  // Deep stacks of layers of one or of mixed kinds, long enough to reach the limit and pass it.
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...Object.keys(LAYERS)), { minLength: 60, maxLength: 400, size: 'max' }),
      (layers) => void collect(patternQuery(layers)),
    ),
    { seed: 15, numRuns: 60 },
  );
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...Object.keys(EXPRESSIONS)), { minLength: 60, maxLength: 400, size: 'max' }),
      (layers) => void collect(expressionQuery(layers)),
    ),
    { seed: 16, numRuns: 60 },
  );
  // And each kind alone, as deep as the guard allows.
  for (const kind of Object.keys(LAYERS)) {
    let n = 1;
    while (queryDepth(patternQuery(Array(n + 1).fill(kind))) <= MAX_QUERY_DEPTH) n++;
    admitted.push(patternQuery(Array(n).fill(kind)));
    assert.ok(queryDepth(patternQuery(Array(n).fill(kind))) > MAX_QUERY_DEPTH / 2, kind);
  }
  for (const kind of Object.keys(EXPRESSIONS)) {
    let n = 1;
    while (queryDepth(expressionQuery(Array(n + 1).fill(kind))) <= MAX_QUERY_DEPTH) n++;
    admitted.push(expressionQuery(Array(n).fill(kind)));
  }
  assert.ok(admitted.length > 40 && refused > 10, `${admitted.length} admitted, ${refused} refused`);
  const errors = await runInOxigraph(admitted);
  assert.deepEqual(errors.map((e, i) => e && `${e}: depth ${queryDepth(admitted[i])}`).filter(Boolean), []);
});
