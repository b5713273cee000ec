import assert from 'node:assert/strict';
import { test } from 'node:test';
import oxigraph from 'oxigraph';
import { isolateTripleTerms, mergeDefaultGraph } from '../../src/query/merge.ts';
import { runQuery } from '../../src/query/run.ts';

/**
 * The default graph is the merge of the named graphs, a set (SPARQL 1.1 §13.2): a triple that
 * two session graphs state is one triple of the union. Oxigraph 0.5 alone answers it once per
 * graph (checked first, so this test notices the day a release fixes it and the rewrite can go).
 */

const P = 'urn:p';
const G1 = 'urn:g1';
const G2 = 'urn:g2';

function store(): oxigraph.Store {
  const s = new oxigraph.Store();
  // One call (urn:c) held by two sessions, each stating its type, its usage and its fragment; a
  // second call only in g2; and one triple that only the two graphs together complete.
  s.load(
    `<urn:c> a <urn:Call> ; <${P}> 10 ; <urn:frag> <urn:f> . <urn:f> <urn:model> "m" .
     <urn:x> <urn:next> <urn:y> .`,
    { format: 'text/turtle', to_graph_name: oxigraph.namedNode(G1) },
  );
  s.load(
    `<urn:c> a <urn:Call> ; <${P}> 10 ; <urn:frag> <urn:f> . <urn:f> <urn:model> "m" .
     <urn:d> a <urn:Call> ; <${P}> 5 .
     <urn:y> <urn:next> <urn:z> .`,
    { format: 'text/turtle', to_graph_name: oxigraph.namedNode(G2) },
  );
  return s;
}

const rows = (s: oxigraph.Store, q: string) =>
  (
    JSON.parse(runQuery(s, q, { results_format: 'application/sparql-results+json' }) as string).results.bindings as Record<
      string,
      { value: string }
    >[]
  ).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));

test('Oxigraph alone counts a triple once per graph that states it', () => {
  const s = store();
  const bag = s.query('SELECT (COUNT(?c) AS ?n) WHERE { ?c a <urn:Call> }', { use_default_graph_as_union: true }) as Map<
    string,
    oxigraph.Term
  >[];
  assert.equal(bag[0].get('n')!.value, '3');
});

test('over the union, each triple counts once: COUNT, SUM and joins', () => {
  const s = store();
  assert.deepEqual(rows(s, 'SELECT (COUNT(?c) AS ?n) (SUM(?v) AS ?sum) WHERE { ?c a <urn:Call> ; <urn:p> ?v }'), [{ n: '2', sum: '15' }]);
  // Four patterns over a call two graphs hold: one row, not 2^4.
  assert.deepEqual(rows(s, 'SELECT ?m WHERE { ?c a <urn:Call> ; <urn:p> ?v ; <urn:frag> ?f . ?f <urn:model> ?m }'), [{ m: 'm' }]);
  // A join may take its triples from different graphs, as over the merged graph.
  assert.deepEqual(rows(s, 'SELECT ?z WHERE { <urn:x> <urn:next> ?y . ?y <urn:next> ?z }'), [{ z: 'urn:z' }]);
});

test('what stays as written: GRAPH, a dataset of its own, UNION multiplicities, blank nodes told apart', () => {
  const s = store();
  // Graph by graph, a copy counts in each graph.
  assert.deepEqual(rows(s, 'SELECT (COUNT(?c) AS ?n) WHERE { GRAPH ?g { ?c a <urn:Call> } }'), [{ n: '3' }]);
  // A UNION of two equal branches gives each solution twice, as SPARQL says.
  assert.deepEqual(rows(s, 'SELECT (COUNT(*) AS ?n) WHERE { { <urn:d> a ?t } UNION { <urn:d> a ?t } }'), [{ n: '2' }]);
  // A blank node is a variable not shown: two calls with a value each give two solutions.
  assert.deepEqual(rows(s, 'SELECT (COUNT(*) AS ?n) WHERE { [] a <urn:Call> }'), [{ n: '2' }]);
  assert.equal(mergeDefaultGraph('SELECT * FROM <urn:g1> WHERE { ?s ?p ?o }'), undefined);
  assert.equal(mergeDefaultGraph('SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }'), undefined);
  assert.equal(mergeDefaultGraph('INSERT DATA { <urn:a> <urn:b> <urn:c> }'), undefined);
  assert.equal(mergeDefaultGraph('SELECT * WHERE { ?s <urn:p>/<urn:q> ?o }'), undefined);
  assert.equal(mergeDefaultGraph('SELECT * WHERE { ?s ?p ?o'), undefined);
});

test('the rewrite: each triple matched in the first graph stating it, fresh names apart from the user’s', () => {
  const merged = mergeDefaultGraph('SELECT ?merged WHERE { ?merged a <urn:C> OPTIONAL { ?merged <urn:q> _:b } }')!;
  assert.match(
    merged,
    /\{\s*GRAPH \?merged__g1 \{\s*\?merged <http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type> <urn:C> \.\s*\}\s*FILTER \( NOT EXISTS \{\s*GRAPH \?merged__h2 \{\s*\?merged <http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type> <urn:C> \.\s*\}\s*FILTER \( \( STR\( \?merged__h2 \) < STR\( \?merged__g1 \) \) \)/,
  );
  // A blank node becomes a variable (the BGP is split), named apart too.
  assert.match(merged, /OPTIONAL \{\s*\{\s*GRAPH \?merged__g4 \{\s*\?merged <urn:q> \?merged__b3 \./);
  // SELECT * is spelled out from the query as written: the rewrite's variables stay out of the answer.
  assert.match(
    mergeDefaultGraph('SELECT * WHERE { ?s <urn:p> [ <urn:q> ?z ] BIND(1 AS ?one) FILTER(?f) } VALUES ?v { 1 }')!,
    /^SELECT \?s \?z \?one \?v WHERE/,
  );
  // RDF 1.2 triple terms pass through.
  assert.match(
    mergeDefaultGraph('SELECT ?r WHERE { ?r <urn:reifies> <<( ?s <urn:p> "x" )>> }')!,
    /\?r <urn:reifies> <<\( \?s <urn:p> "x" \)>> \./,
  );
});

test('SELECT * answers with the same columns as before', () => {
  const s = store();
  const head = (q: string) => JSON.parse(runQuery(s, q, { results_format: 'application/sparql-results+json' }) as string).head.vars;
  assert.deepEqual(head('SELECT * WHERE { ?c a <urn:Call> ; <urn:p> ?v OPTIONAL { ?c <urn:frag> [ <urn:model> ?m ] } }'), ['c', 'v', 'm']);
  assert.deepEqual(rows(s, 'SELECT * WHERE { ?c a <urn:Call> ; <urn:p> ?v } ORDER BY ?v'), [
    { c: 'urn:d', v: '5' },
    { c: 'urn:c', v: '10' },
  ]);
});

test('a store whose own default graph holds triples keeps Oxigraph’s union', () => {
  const s = store();
  s.update('INSERT DATA { <urn:c> a <urn:Call> }');
  assert.deepEqual(rows(s, 'SELECT (COUNT(?c) AS ?n) WHERE { ?c a <urn:Call> }'), [{ n: '4' }]);
});

test('errors still point into the text the user wrote', () => {
  assert.throws(() => runQuery(store(), 'SELECT * WHERE {\n  ?s ?p ?o .\n  FILTER(\n}'), /line 4/);
});

test('the rewrite is written on one line, its length linear in the query’s (deep nesting, long lists)', () => {
  // The pretty printer indented each level and looked back over the line at each break: 200
  // nested groups came out 58 times longer than they went in, and took seconds to write.
  const deep = `SELECT (COUNT(*) AS ?n) WHERE ${'{ '.repeat(200)}?s ?p ?o ${'} '.repeat(200)}`;
  const merged = mergeDefaultGraph(deep)!;
  assert.ok(!merged.includes('\n'), 'one line');
  assert.ok(merged.length < deep.length + 300, `${merged.length} characters for ${deep.length}`);
  const list = `SELECT ?o WHERE { ?s <urn:p> ?o FILTER(?o IN (${Array.from({ length: 5000 }, (_, i) => i).join(', ')})) }`;
  assert.ok(!mergeDefaultGraph(list)!.includes('\n'));
});

const REIFIES = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies';

/** A claim about a turn, held by two sessions; a second claim about a node that is no turn. */
function claims(): oxigraph.Store {
  const s = new oxigraph.Store();
  for (const g of [G1, G2])
    s.load(
      `<urn:c1> <${REIFIES}> <<( <urn:t1> <urn:e> "x" )>> ; <urn:conf> 1 . <urn:a> <urn:says> <urn:c1> . <urn:t1> a <urn:Turn> .
       <urn:c2> <${REIFIES}> <<( <urn:n> <urn:e> "y" )>> .`,
      { format: 'text/turtle', to_graph_name: oxigraph.namedNode(g) },
    );
  return s;
}

test('a reified triple << s p o >> is its reifier’s rdf:reifies triple term, not an asserted triple', () => {
  // The rewrite spelled its triple out as asserted (no answer) and, as a subject, threw a TypeError.
  const s = claims();
  assert.deepEqual(rows(s, 'SELECT ?a ?t ?x WHERE { ?a <urn:says> << ?t <urn:e> ?x >> }'), [{ a: 'urn:a', t: 'urn:t1', x: 'x' }]);
  assert.deepEqual(rows(s, 'SELECT ?t ?c WHERE { << ?t <urn:e> ?x >> <urn:conf> ?c }'), [{ t: 'urn:t1', c: '1' }]);
  assert.deepEqual(rows(s, 'SELECT ?r WHERE { << <urn:t1> <urn:e> "x" ~ ?r >> <urn:conf> 1 }'), [{ r: 'urn:c1' }]);
});

test('a triple term with variables in it is matched once, in a sub-select, and joined with the rest', () => {
  const query = `SELECT ?r ?t ?p ?o WHERE { ?r <${REIFIES}> <<( ?t ?p ?o )>> . ?t a <urn:Turn> }`;
  assert.match(
    mergeDefaultGraph(query)!,
    /^SELECT \?r \?t \?p \?o WHERE \{ \{ SELECT \?r \?t \?p \?o WHERE \{ \{ GRAPH \?merged_g1 \{ \?r <[^>]+#reifies> <<\( \?t \?p \?o \)>> \. \}/,
  );
  // The claim two sessions hold, once; the claim about a node that is no turn, not at all.
  assert.deepEqual(rows(claims(), query), [{ r: 'urn:c1', t: 'urn:t1', p: 'urn:e', o: 'x' }]);
  // A triple term with no variable is looked up whole, where it is.
  assert.doesNotMatch(
    mergeDefaultGraph(`SELECT ?r WHERE { ?r <${REIFIES}> <<( <urn:t1> <urn:e> "x" )>> }`)!,
    /SELECT \?r WHERE \{ \{ SELECT/,
  );
});

test('a triple-term pattern joined with a class is not matched once per member of the class', () => {
  // Oxigraph feeds each ?t of `?t a <urn:Turn>` into the triple term, which it looks up only
  // whole: every rdf:reifies quad is read once per turn, quadratic in the claims (the natural
  // claims query took minutes on the corpus). Matched once, it is joined by hash.
  const n = 800;
  let quads = '';
  for (let i = 0; i < n; i++)
    quads += `<urn:t${i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <urn:Turn> <urn:g${i % 3}> .\n<urn:c${i}> <${REIFIES}> <<( <urn:t${i}> <urn:e> "x" )>> <urn:g${i % 3}> .\n`;
  const s = new oxigraph.Store();
  s.load(quads, { format: 'application/n-quads' });
  const query = `SELECT ?c ?t WHERE { ?c <${REIFIES}> <<( ?t <urn:e> ?o )>> . ?t a <urn:Turn> }`;
  runQuery(s, 'SELECT * WHERE { ?s ?p ?o } LIMIT 1'); // the parser, built once
  let t = performance.now();
  assert.equal((runQuery(s, query) as unknown[]).length, n);
  const merged = performance.now() - t;
  t = performance.now();
  assert.equal((s.query(query, { use_default_graph_as_union: true }) as unknown[]).length, n);
  const oxigraphAlone = performance.now() - t;
  assert.ok(merged * 3 < oxigraphAlone, `${merged.toFixed(0)} ms through the rewrite, ${oxigraphAlone.toFixed(0)} ms as Oxigraph plans it`);
});

test('over a union that is a set already, only a triple-term pattern with a variable is matched alone', () => {
  // weave serve's query workers hold each triple once (src/store/restated.ts) and skip the merge;
  // as Oxigraph planned it there, the natural claims query (claims-by-turn.rq) joined every turn
  // with every claim's reader first, and was stopped at the server's 30 s on the corpus.
  const query = `SELECT * WHERE { ?r <${REIFIES}> <<( ?t ?p ?o )>> ; <urn:by> _:b . ?t a <urn:Turn> . _:b <urn:x> ?y }`;
  assert.equal(
    isolateTripleTerms(query),
    `SELECT ?r ?t ?p ?o ?y WHERE { { SELECT ?r ?t ?p ?o WHERE { ?r <${REIFIES}> <<( ?t ?p ?o )>> . } } ?r <urn:by> ?merged_b1 . ?t <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <urn:Turn> . ?merged_b1 <urn:x> ?y . }`,
  );
  // Nothing to isolate: no triple term, or one with no variable (looked up whole); not parsed at all without `<<`.
  assert.equal(isolateTripleTerms('SELECT * WHERE { ?s ?p ?o }'), undefined);
  assert.equal(isolateTripleTerms(`SELECT ?r WHERE { ?r <${REIFIES}> <<( <urn:t1> <urn:e> "x" )>> }`), undefined);
  // One graph's claims, so the union is a set: the same rows through runQuery as Oxigraph gives.
  const s = new oxigraph.Store();
  for (const q of claims().match(null, null, null, oxigraph.namedNode(G1))) s.add(q);
  const natural = `SELECT ?r ?t ?conf WHERE { ?r <${REIFIES}> <<( ?t <urn:e> ?o )>> ; <urn:conf> ?conf . ?t a <urn:Turn> }`;
  const asSet = (
    JSON.parse(runQuery(s, natural, { results_format: 'json', unionIsSet: true }) as string).results.bindings as Record<
      string,
      { value: string }
    >[]
  ).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));
  assert.deepEqual(asSet, [{ r: 'urn:c1', t: 'urn:t1', conf: '1' }]);
});

test('a text asked again is rewritten once and answered alike; a different text is rewritten anew', () => {
  const q = 'SELECT ?c WHERE { ?c a <urn:Call> }';
  const first = mergeDefaultGraph(q);
  assert.ok(first?.includes('GRAPH'));
  assert.equal(mergeDefaultGraph(q), first);
  assert.notEqual(mergeDefaultGraph('SELECT ?c WHERE { ?c a <urn:Tool> }'), first);
  assert.equal(mergeDefaultGraph('ASK { ?c a <urn:Call> }'), undefined, 'a text left as it is is remembered as such');
  assert.equal(mergeDefaultGraph('ASK { ?c a <urn:Call> }'), undefined);
});

test('for an external store, a pattern in an OPTIONAL is a distinct sub-select: the same set, no filter in the OPTIONAL', () => {
  const s = store();
  // Both graphs state <urn:c> <urn:frag> <urn:f>: inside the OPTIONAL it must still count once.
  const query =
    'SELECT ?c (COUNT(*) AS ?n) WHERE { ?c a <urn:Call> OPTIONAL { ?c <urn:frag> ?f . ?f <urn:model> ?m } } GROUP BY ?c ORDER BY ?c';
  const text = mergeDefaultGraph(query, { optionalsAsSubselects: true })!;
  const optional = text.slice(text.indexOf('OPTIONAL'));
  // Virtuoso 7.2 misreads a FILTER NOT EXISTS in an OPTIONAL's group (test/store/remote-commands.test.ts).
  assert.doesNotMatch(optional, /NOT EXISTS/);
  assert.match(optional, /SELECT DISTINCT \?c \?f WHERE \{ GRAPH \?merged_g\d+ \{ \?c <urn:frag> \?f \. \} \}/);
  const answer = (q: string) =>
    (
      JSON.parse(s.query(q, { use_default_graph_as_union: true, results_format: 'application/sparql-results+json' }) as string).results
        .bindings as Record<string, { value: string }>[]
    ).map((b) => `${b.c.value} ${b.n.value}`);
  assert.deepEqual(answer(text), ['urn:c 1', 'urn:d 1']);
  assert.deepEqual(answer(text), answer(mergeDefaultGraph(query)!));
  // Told apart in the memory of rewrites: the plain form is asked for the same text too.
  const plain = mergeDefaultGraph(query)!;
  assert.match(plain.slice(plain.indexOf('OPTIONAL')), /NOT EXISTS/);
});
