import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { ONTOLOGY_FILE, renderOntology, renderTerms, TERMS_FILE } from '../src/store/ontology.ts';
import { WEAVE_NS, weaveTerm } from '../src/rdf/vocab.ts';
import { WEAVE_TERMS } from '../src/rdf/weave-terms.ts';
import { FIXTURES, ingestFresh, removeDir, select } from './helpers.ts';
import { canonicalNQuads } from './nquads.ts';

const ONTOLOGY = 'https://repolex.ai/ontology/weave';

test('every weave: class and predicate the emitter produces on the fixtures is declared in the ontology', async () => {
  const { dir, store } = await ingestFresh([FIXTURES]);
  try {
    const used = select(
      store,
      `SELECT DISTINCT ?term WHERE {
      GRAPH ?g { { ?s ?term ?o } UNION { ?s a ?term } }
      FILTER(?g != <${ONTOLOGY}> && STRSTARTS(STR(?term), STR(weave:)))
    } ORDER BY ?term`,
    ).map((r) => r.term);
    assert.ok(used.length > 50, `only ${used.length} weave terms used`);
    const declared = new Set(
      select(
        store,
        `SELECT ?term WHERE { GRAPH <${ONTOLOGY}> {
      ?term a ?kind VALUES ?kind { owl:Class owl:ObjectProperty owl:DatatypeProperty owl:AnnotationProperty rdf:Property } } }`,
      ).map((r) => r.term),
    );
    assert.deepEqual(
      used.filter((t) => !declared.has(t)),
      [],
    );
  } finally {
    await removeDir(dir);
  }
});

/**
 * A reasoner reads rdfs:domain and rdfs:range as types of what the statements link: a domain or
 * range the data does not fit types a node as what it is not (an Unresolved placeholder as the
 * tool call or stream it stands in for, a hook attachment as a tool use block). So every
 * statement's subject has a class of its property's domain, and every object one of its range
 * (a union's members each count); ranges of literals and of rdf:Property are not classes of nodes.
 */
test('every statement the emitter makes on the fixtures fits the domain and range its property declares', async () => {
  const { dir, store } = await ingestFresh([FIXTURES]);
  try {
    const declared = new Map<string, string[]>();
    for (const { p, side, c } of select(
      store,
      `SELECT ?p ?side ?c WHERE { GRAPH <${ONTOLOGY}> {
      ?p ?side ?x FILTER(?side IN (rdfs:domain, rdfs:range) && STRSTARTS(STR(?p), STR(weave:)))
      ?x (owl:unionOf/rdf:rest*/rdf:first)? ?c
      FILTER(isIRI(?c) && !STRSTARTS(STR(?c), STR(xsd:)) && ?c NOT IN (rdf:JSON, rdf:Property, rdfs:Literal)) } }`,
    ))
      declared.set(`${p} ${side}`, [...(declared.get(`${p} ${side}`) ?? []), c]);
    assert.ok(declared.size > 150, `only ${declared.size} domains and ranges`);
    const misfits: string[] = [];
    for (const [key, classes] of declared) {
      const [p, side] = key.split(' ');
      const node = side.endsWith('#domain') ? '?s' : '?o';
      const [{ n }] = select(
        store,
        `SELECT (COUNT(DISTINCT ${node}) AS ?n) WHERE { GRAPH ?g { ?s <${p}> ?o } FILTER(?g != <${ONTOLOGY}>)
        FILTER NOT EXISTS { ${node} a ?class VALUES ?class { ${classes.map((c) => `<${c}>`).join(' ')} } } }`,
      );
      if (n !== '0') misfits.push(`${p.slice(WEAVE_NS.length)} ${side.slice(side.indexOf('#') + 1)}: ${n}`);
    }
    assert.deepEqual(misfits.sort(), []);
  } finally {
    await removeDir(dir);
  }
});

test('every declared class and property has a label, a comment, and properties a domain or range', async () => {
  const { dir, store } = await ingestFresh([]);
  try {
    const lacking = select(
      store,
      `SELECT ?term ?kind WHERE { GRAPH <${ONTOLOGY}> {
      ?term a ?kind VALUES ?kind { owl:Class owl:ObjectProperty owl:DatatypeProperty }
      FILTER(STRSTARTS(STR(?term), STR(weave:)))
      FILTER(NOT EXISTS { ?term rdfs:label ?l } || NOT EXISTS { ?term rdfs:comment ?c }
        || (?kind != owl:Class && NOT EXISTS { ?term rdfs:domain|rdfs:range ?x }))
    } } ORDER BY ?term`,
    );
    assert.deepEqual(lacking, []);
  } finally {
    await removeDir(dir);
  }
});

test('the card alignments: Compaction is a prov:Activity, parentEvent refines prov:wasInformedBy, the class tree', async () => {
  const { dir, store } = await ingestFresh([]);
  try {
    const ask = (q: string) => select(store, `SELECT (IF(EXISTS { GRAPH <${ONTOLOGY}> { ${q} } }, "yes", "no") AS ?a) {}`)[0].a;
    assert.equal(ask('weave:parentEvent rdfs:subPropertyOf prov:wasInformedBy'), 'yes');
    assert.equal(ask('weave:Compaction rdfs:subClassOf prov:Activity'), 'yes');
    assert.equal(ask('weave:UserTurn rdfs:subClassOf weave:Turn . weave:Turn rdfs:subClassOf weave:Event'), 'yes');
    assert.equal(ask('weave:ClaudeCodeTranscript rdfs:subClassOf weave:Transcript'), 'yes');
  } finally {
    await removeDir(dir);
  }
});

test('ontology/weave.ttl is the parts assembled (npm run ontology), and parses as Turtle elsewhere', async () => {
  const text = await readFile(ONTOLOGY_FILE, 'utf8');
  assert.equal(text, await renderOntology());
  const quads = new Parser({ format: 'text/turtle', baseIRI: ONTOLOGY }).parse(text);
  assert.ok(quads.length > 2000, `${quads.length} triples`);
  // n3 reads the same triples as the Oxigraph the store loads it with.
  assert.deepEqual(canonicalNQuads(quads), canonicalNQuads(oxigraph.parse(text, { format: 'text/turtle', base_iri: ONTOLOGY })));
});

test('src/rdf/weave-terms.ts lists exactly the weave: terms the ontology declares (npm run ontology)', async () => {
  const text = await readFile(ONTOLOGY_FILE, 'utf8');
  assert.equal(await readFile(TERMS_FILE, 'utf8'), renderTerms(text));
  const declared = new Set(
    new Parser()
      .parse(text)
      .map((q) => q.subject.value)
      .filter((s) => s.startsWith(WEAVE_NS)),
  );
  assert.deepEqual(
    [...WEAVE_TERMS].map((n) => WEAVE_NS + n),
    [...declared].sort(),
  );
  assert.throws(() => weaveTerm('NoSuchTerm'), /weave:NoSuchTerm is not declared/);
  assert.equal(weaveTerm('Turn'), `<${WEAVE_NS}Turn>`);
});
