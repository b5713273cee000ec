import assert from 'node:assert/strict';
import { test } from 'node:test';
import oxigraph from 'oxigraph';
import { Restatements } from '../../src/store/restated.ts';

/**
 * Restatements (src/store/restated.ts): each triple held by one graph, the first by IRI of those
 * that state it, so Oxigraph's own union is a set; the copies put back for a job that reads
 * graphs by name, and kept right as graphs are reloaded.
 */

const A = 'urn:g:a';
const B = 'urn:g:b';
const C = 'urn:g:c';

// urn:c (a call) is stated by A and B; urn:u by A, B and C; urn:k by B and C; the rest by one graph.
const CONTENT: Record<string, string> = {
  [A]: '<urn:c> a <urn:Call> ; <urn:p> 10 . <urn:u> <urn:p> 1 . <urn:x> <urn:p> 2 .',
  [B]: '<urn:c> a <urn:Call> ; <urn:p> 10 . <urn:u> <urn:p> 1 . <urn:k> <urn:p> 3 . <urn:d> a <urn:Call> .',
  [C]: '<urn:u> <urn:p> 1 . <urn:k> <urn:p> 3 .',
};

function store(): oxigraph.Store {
  const s = new oxigraph.Store();
  for (const [graph, text] of Object.entries(CONTENT)) s.load(text, { format: 'text/turtle', to_graph_name: oxigraph.namedNode(graph) });
  return s;
}

const count = (s: oxigraph.Store, where: string) =>
  Number(
    (s.query(`SELECT (COUNT(*) AS ?n) WHERE { ${where} }`, { use_default_graph_as_union: true }) as Map<string, oxigraph.Term>[])[0].get(
      'n',
    )!.value,
  );

/** Each graph's triples, sorted, as N-Triples lines. */
const graphs = (s: oxigraph.Store) =>
  Object.fromEntries(
    [A, B, C].map((g) => [
      g,
      s
        .match(null, null, null, oxigraph.namedNode(g))
        .map((q) => `${q.subject} ${q.predicate} ${q.object}`)
        .sort(),
    ]),
  );

test('each triple is held once, by the first graph that states it; the union then counts it once', () => {
  const s = store();
  const whole = graphs(s);
  assert.equal(count(s, '?c a <urn:Call>'), 3, 'Oxigraph alone: the call in A and B counts twice');
  const restated = Restatements.setAsideIn(s);
  // Set aside: c's two triples from B, u's from B and C, k's from C.
  assert.equal(restated.size, 5);
  assert.equal(count(s, '?c a <urn:Call>'), 2);
  assert.equal(count(s, '?s ?p ?o'), 6, 'the six distinct triples of the three graphs');
  assert.deepEqual(graphs(s), {
    [A]: whole[A],
    [B]: [
      '<urn:d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <urn:Call>',
      '<urn:k> <urn:p> "3"^^<http://www.w3.org/2001/XMLSchema#integer>',
    ],
    [C]: [],
  });
  restated.withRestored(s, [B], () => assert.deepEqual(graphs(s)[B], whole[B]));
  assert.equal(count(s, '?s ?p ?o'), 6, 'set aside again after the job');
  restated.withRestored(s, 'all', () => assert.deepEqual(graphs(s), whole));
  assert.throws(() => restated.withRestored(s, 'all', () => assert.fail('a job that throws')));
  assert.equal(count(s, '?s ?p ?o'), 6, 'set aside again after a job that threw');
  restated.restoreAll(s);
  assert.deepEqual(graphs(s), whole);
  assert.equal(restated.size, 0);
});

test('a graph reloaded or dropped: the next graph holds what it held, and what it shares is held once again', () => {
  const s = store();
  const restated = Restatements.setAsideIn(s);
  // A is read again without the call and with k: B now holds the call, A holds k (A comes first).
  restated.release(s, A);
  s.update(`DROP GRAPH <${A}>`);
  s.load('<urn:u> <urn:p> 1 . <urn:k> <urn:p> 3 . <urn:y> <urn:p> 4 .', { format: 'text/turtle', to_graph_name: oxigraph.namedNode(A) });
  restated.settle(s, A);
  assert.equal(count(s, '?c a <urn:Call>'), 2);
  assert.equal(count(s, '?s ?p ?o'), 6, "the call's two triples and d in B; u, k and y in A; x went with A's old text");
  assert.deepEqual(
    graphs(s)[A],
    [
      '<urn:k> <urn:p> "3"^^<http://www.w3.org/2001/XMLSchema#integer>',
      '<urn:u> <urn:p> "1"^^<http://www.w3.org/2001/XMLSchema#integer>',
      '<urn:y> <urn:p> "4"^^<http://www.w3.org/2001/XMLSchema#integer>',
    ].sort(),
  );
  assert.equal(count(s, `GRAPH <${B}> { <urn:c> ?p ?o }`), 2, 'B holds the call now');
  // Set aside: u from B and C, k from B and C.
  assert.equal(restated.size, 4);
  restated.withRestored(s, 'all', () => {
    assert.equal(count(s, `GRAPH <${B}> { ?s ?p ?o }`), 5);
    assert.equal(count(s, `GRAPH <${C}> { ?s ?p ?o }`), 2);
  });
  // B is dropped: C holds u and k, which A holds already; the call is gone with B.
  restated.release(s, B);
  s.update(`DROP GRAPH <${B}>`);
  restated.settle(s, B);
  assert.equal(count(s, '?c a <urn:Call>'), 0);
  assert.equal(count(s, '?s ?p ?o'), 3, 'u, k and y, once each');
  assert.equal(restated.size, 2);
  restated.withRestored(s, [C], () => assert.equal(count(s, `GRAPH <${C}> { ?s ?p ?o }`), 2));
});
