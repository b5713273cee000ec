import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leadingKeyword, queryForm, serviceTargets } from '../../src/query/lexer.ts';
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
