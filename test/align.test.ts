import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type oxigraph from 'oxigraph';
import { alignmentGraphIri, RAVEL_NS, ravelTurnIri } from '../src/align/ravel.ts';
import { detect } from '../src/readers/detect.ts';
import { openStore } from '../src/store/store.ts';
import { count, FIXTURES, ingestFresh, removeDir, select } from './helpers.ts';

/**
 * What ravel declares (repolex-ai/ravel, ontology/ravel/ravel.ttl, versionInfo 0.3.0) for each
 * term the alignment names: its kind, domain and range. The alignment may only claim what these
 * allow of Weave's data, and the tests below check the data against them.
 */
const RAVEL: Record<string, { kind: 'class' | 'property'; domain?: string; range?: string }> = {
  Turn: { kind: 'class' },
  role: { kind: 'property', domain: 'Turn', range: 'xsd:string' },
  timestamp: { kind: 'property', domain: 'Turn', range: 'xsd:dateTime' },
  turnId: { kind: 'property', domain: 'Turn', range: 'xsd:string' },
  parentTurn: { kind: 'property', domain: 'Turn', range: 'Turn' },
  exhibits: { kind: 'property', range: 'xsd:string' },
  detectorName: { kind: 'property', range: 'xsd:string' },
  detectionType: { kind: 'property', range: 'xsd:string' },
  atTurn: { kind: 'property', range: 'Turn' },
  textOrigin: { kind: 'property', range: 'TextOriginValue' },
};

describe('the alignment with ravel holds for the data', () => {
  let dir: string;
  let store: oxigraph.Store;
  const graph = alignmentGraphIri('local');
  const axioms = (p: string) =>
    select(store, `SELECT ?a ?b WHERE { GRAPH <${graph}> { ?a <${p}> ?b } } ORDER BY ?a`).map((r) => [r.a, r.b] as const);

  before(async () => {
    ({ dir } = await ingestFresh([FIXTURES]));
    await detect({ storeDir: dir });
    ({ store } = await openStore(dir));
  });
  after(() => removeDir(dir));

  test('every ravel term named is one ravel declares, and each axiom is the one stated', () => {
    const named = select(
      store,
      `SELECT DISTINCT ?t WHERE { GRAPH <${graph}> { { ?t ?p ?o } UNION { ?s ?p ?t } } FILTER(STRSTARTS(STR(?t), "${RAVEL_NS}")) }`,
    ).map((r) => r.t.slice(RAVEL_NS.length));
    assert.deepEqual(
      named.filter((t) => !RAVEL[t]),
      [],
    );
    const local = (iri: string) => iri.replace(RAVEL_NS, 'ravel:').replace('https://repolex.ai/ontology/weave#', 'weave:');
    assert.deepEqual(
      axioms('http://www.w3.org/2002/07/owl#equivalentClass').map((a) => a.map(local)),
      [['weave:Turn', 'ravel:Turn']],
    );
    assert.deepEqual(
      axioms('http://www.w3.org/2002/07/owl#equivalentProperty').map((a) => a.map(local)),
      [
        ['weave:atEvent', 'ravel:atTurn'],
        ['weave:detector', 'ravel:detectorName'],
        ['weave:exhibits', 'ravel:exhibits'],
        ['weave:role', 'ravel:role'],
      ],
    );
  });

  test('weave:Turn ≡ ravel:Turn: every turn is a user or assistant record; each named by its uuid alone has one owl:sameAs', () => {
    const all = count(store, '{ SELECT DISTINCT ?t WHERE { ?t a weave:Turn } }');
    // The role is the turn's own where a dialect states it, else its class's (weave:turnRole, the lean graph).
    const role = `{ ?t weave:role ?r } UNION { ?t a ?c . GRAPH <https://repolex.ai/ontology/weave> { ?c weave:turnRole ?r } }`;
    assert.equal(count(store, `{ SELECT DISTINCT ?t WHERE { ?t a weave:Turn . ${role} FILTER(?r IN ("user", "assistant")) } }`), all);
    // A hand-written uuid is scoped by its session (Turn/<session>/<id>): no ravel IRI can name it alone.
    const turns = count(store, '{ SELECT DISTINCT ?t WHERE { ?t a weave:Turn FILTER(REGEX(STR(?t), "/Turn/[^/]+$")) } }');
    assert.ok(turns > 100 && turns < all, `${turns} of ${all}`);
    const links = select(
      store,
      `SELECT DISTINCT ?t ?r ?id WHERE { GRAPH <${graph}> { ?t owl:sameAs ?r } OPTIONAL { ?t weave:eventId ?id } }`,
    );
    assert.equal(new Set(links.map((l) => l.t)).size, turns);
    assert.equal(links.length, turns);
    for (const l of links) {
      assert.equal(l.r, `https://repolex.ai/ravel/Turn/${l.id}`, l.t);
      assert.equal(ravelTurnIri(l.t), l.r);
    }
  });

  test('equivalent properties: every statement Weave makes fits the domain and range ravel declares', () => {
    // ravel:role: on a Turn, a plain string; Claude Code's turns take theirs from their class, which states it so.
    assert.equal(count(store, '?s weave:role ?o FILTER(NOT EXISTS { ?s a weave:Turn } || DATATYPE(?o) != xsd:string)'), 0);
    assert.deepEqual(
      select(store, 'SELECT ?c ?r WHERE { GRAPH <https://repolex.ai/ontology/weave> { ?c weave:turnRole ?r } } ORDER BY ?c').map((r) => [
        r.c.replace('https://repolex.ai/ontology/weave#', 'weave:'),
        r.r,
      ]),
      [
        ['weave:AssistantTurn', 'assistant'],
        ['weave:UserTurn', 'user'],
      ],
    );
    assert.equal(
      count(
        store,
        'GRAPH <https://repolex.ai/ontology/weave> { weave:UserTurn rdfs:subClassOf+ weave:Turn . weave:AssistantTurn rdfs:subClassOf+ weave:Turn }',
      ),
      1,
    );
    // ravel:atTurn: always a Turn.
    assert.ok(count(store, '?s weave:atEvent ?o') > 10);
    assert.equal(count(store, '?s weave:atEvent ?o FILTER NOT EXISTS { ?o a weave:Turn }'), 0);
    // ravel:exhibits: never asserted; inside claims, a Turn exhibits a string.
    assert.equal(count(store, '?s weave:exhibits ?o'), 0);
    assert.ok(count(store, '?c rdf:reifies <<( ?t weave:exhibits ?o )>>') > 10);
    assert.equal(
      count(store, '?c rdf:reifies <<( ?t weave:exhibits ?o )>> FILTER(NOT EXISTS { ?t a weave:Turn } || DATATYPE(?o) != xsd:string)'),
      0,
    );
    // ravel:detectorName: a string on a claim.
    assert.equal(count(store, '?s weave:detector ?o FILTER(NOT EXISTS { ?s a weave:Claim } || DATATYPE(?o) != xsd:string)'), 0);
  });

  test('subproperties: the narrower side always fits the broader', () => {
    // ravel's Turn properties under Weave's Event properties: Turn ⊑ Event, same ranges.
    assert.equal(count(store, 'GRAPH <https://repolex.ai/ontology/weave> { weave:Turn rdfs:subClassOf+ weave:Event }'), 1);
    for (const [weave, range] of [
      ['timestamp', 'xsd:dateTime'],
      ['eventId', 'xsd:string'],
      ['parentEvent', 'weave:Event'],
    ])
      assert.equal(
        count(store, `GRAPH <https://repolex.ai/ontology/weave> { weave:${weave} rdfs:domain weave:Event ; rdfs:range ${range} }`),
        1,
        weave,
      );
    // ravel:textOrigin's two values are among Weave's source kinds; Weave's slugs are strings, as ravel:detectionType's are.
    const kinds = select(store, 'SELECT DISTINCT ?k WHERE { ?a weave:sourceKind ?k } ORDER BY ?k').map((r) => r.k);
    assert.deepEqual(
      kinds.filter((k) => !['authored', 'tool_result', 'tool_input', 'malformed_line'].includes(k)),
      [],
    );
    assert.equal(count(store, '?s weave:detectionType|weave:eventType ?o FILTER(DATATYPE(?o) != xsd:string || !CONTAINS(?o, "/"))'), 0);
  });
});
