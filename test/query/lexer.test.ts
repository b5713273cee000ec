import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { leadingKeyword, mayReadDefaultGraph, queryForm, serviceTargets } from '../../src/query/lexer.ts';
import { parsedRewrite } from '../../src/query/merge.ts';
import { conversationQueries } from '../../src/model/view.ts';
import { sessionsNamedQuery, sessionTitleQuery } from '../../src/model/title.ts';
import { sparqlPrefixes } from '../../src/rdf/vocab.ts';
import { returnsGraph } from '../../src/query/run.ts';

test('the query form is the first keyword after the prologue, however the prologue is laid out', () => {
  assert.equal(queryForm('PREFIX a: <urn:a#> PREFIX b: <urn:b#> CONSTRUCT { ?s a:p ?o } WHERE { ?s b:q ?o }'), 'CONSTRUCT');
  assert.equal(queryForm('BASE <http://x/> prefix : <y#>\n# SELECT in a comment\ndescribe <z>'), 'DESCRIBE');
  assert.equal(queryForm('PREFIX p: <urn:select> ASK { ?s p:o "CONSTRUCT" }'), 'ASK');
  assert.equal(queryForm('  \n# CONSTRUCT { }\nSELECT * WHERE { ?s ?p ?o }'), 'SELECT');
  assert.equal(queryForm('INSERT DATA { <a> <b> <c> }'), undefined);
  assert.equal(returnsGraph('PREFIX a: <urn:a#> PREFIX b: <urn:b#> CONSTRUCT WHERE { ?s ?p ?o }'), true);
  assert.equal(returnsGraph('SELECT ?construct WHERE { ?construct ?p "DESCRIBE" }'), false);
});

test('the leading keyword names an update after its prologue (weave mcp refuses it as one), and a typo as it is', () => {
  assert.equal(leadingKeyword('PREFIX x: <urn:x#>\n# DELETE in a comment\ninsert data { x:a x:b x:c }'), 'INSERT');
  assert.equal(leadingKeyword('WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }'), 'WITH');
  assert.equal(leadingKeyword('SELEC * WHERE { ?s ?p ?o }'), 'SELEC');
  assert.equal(leadingKeyword('<urn:a> <urn:b> <urn:c> .'), '');
});

test('SERVICE targets: IRIs, prefixed names, BASE, SILENT and variables; never inside strings or comments', () => {
  const q = `BASE <http://soul.example/>
    PREFIX soul: <http://soul.example/sparql/>
    SELECT * WHERE {
      SERVICE <sparql> { ?a ?b ?c }
      SERVICE SILENT soul:v2 { ?a ?b ?d }
      SERVICE <http://pool.example/sparql> { ?a ?b ?e }
      ?a ?b "SERVICE <http://not.example/>" # SERVICE <http://nor.example/>
    }`;
  assert.deepEqual(serviceTargets(q), {
    iris: ['http://soul.example/sparql', 'http://soul.example/sparql/v2', 'http://pool.example/sparql'],
    variable: false,
  });
  assert.deepEqual(serviceTargets('SELECT * WHERE { ?e a ?x . SERVICE ?e { ?s ?p ?o } }'), { iris: [], variable: true });
  assert.deepEqual(serviceTargets('SELECT * WHERE { SERVICE weave:x { } }', { weave: 'urn:w#' }), { iris: ['urn:w#x'], variable: false });
});

test('a query with no pattern the union rewrite would change is known without parsing it', () => {
  const reads = (q: string) => mayReadDefaultGraph(`PREFIX weave: <https://repolex.ai/ontology/weave/>\n${q}`);
  // Patterns in GRAPH, MINUS, FILTER (EXISTS), BIND and VALUES are left as they are; an ASK is a yes or no.
  for (const q of [
    'SELECT ?x WHERE { GRAPH ?g { ?x ?p ?o } }',
    'SELECT ?x (COUNT(*) AS ?n) { GRAPH <urn:g> { ?x a weave:Turn } VALUES ?p { weave:a weave:b } } GROUP BY ?x ORDER BY DESC(?n) LIMIT 3',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o } . FILTER NOT EXISTS { ?x a weave:Y } MINUS { ?x a weave:Z } }',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o } FILTER(?x != <urn:a>) FILTER regex(?o, "x") FILTER weave:f(?o) BIND(1 AS ?y) VALUES (?a ?b) { (1 2) } }',
    'SELECT ?x { { GRAPH ?g { ?x ?p ?o } } UNION { GRAPH ?h { ?x ?p ?o } } OPTIONAL { GRAPH ?g { ?x weave:q ?z } } }',
    'ASK { ?s ?p ?o }',
    '# { ?s ?p ?o } in a comment\nSELECT * { GRAPH ?g { ?s ?p "{ ?s ?p ?o }" } }',
  ]) {
    assert.equal(reads(q), false, q);
    // The parser agrees: the rewrite, read in full, would change nothing.
    for (const options of [{}, { optionalsAsSubselects: true }, { tripleTermsOnly: true }])
      assert.equal(parsedRewrite(`PREFIX weave: <https://repolex.ai/ontology/weave/>\n${q}`, options), undefined, q);
  }
  // Anything else, or anything this reading does not follow, may: the parser decides.
  for (const q of [
    'SELECT ?x WHERE { ?x a weave:Turn }',
    'SELECT * { GRAPH ?g { ?s ?p ?o } ?s ?p ?o }',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o } OPTIONAL { ?x a weave:Y } }',
    'SELECT ?x { { SELECT ?x { GRAPH ?g { ?x ?p ?o } } } }',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o } . ( ?a ?b ) weave:p ?o }',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o } [] weave:p ?o }',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o } SERVICE <http://x/sparql> { ?x ?q ?r } }',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o } << ?x ?p ?o >> weave:q ?r }',
    'CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }',
    'DESCRIBE <urn:a>',
    'SELECT ?x { GRAPH ?g { ?x ?p ?o }',
    'SELECT ?x { MINUS ?x }',
  ])
    assert.equal(reads(q), true, q);
});

test('the queries Weave asks of a session read it by name: weave conversation and verify build no SPARQL parser', () => {
  const graph = 'urn:soul:local:Weave/session/s';
  const asked = [
    ...Object.values(conversationQueries(graph)),
    ...Object.values(conversationQueries(graph, 'top')),
    ...Object.values(conversationQueries(graph, { within: [`${graph}#n`] })),
    sessionTitleQuery(graph),
    readFileSync(new URL('../../queries/stored-texts.rq', import.meta.url), 'utf8'),
  ];
  for (const query of asked) {
    assert.equal(mayReadDefaultGraph(query), false, query);
    assert.equal(parsedRewrite(sparqlPrefixes() + query), undefined, query);
  }
  // A whole store's sessions, grouped: read by name as well.
  assert.equal(mayReadDefaultGraph(sessionsNamedQuery('abc')), false);
});
