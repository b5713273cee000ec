import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory, Parser } from 'n3';
import oxigraph from 'oxigraph';
import { COMPONENTS, WSH } from '../../src/validate/components.ts';
import { DataGraph } from '../../src/validate/graph.ts';
import { loadShapes, SHAPES_FILE, validateQuads, type Violation } from '../../src/validate/shapes.ts';

/**
 * ontology/shapes.ttl against a hand-written graph that conforms (base-graph.ttl), broken one way
 * at a time: each break is reported as exactly the violations listed, naming shape, constraint
 * and focus node.
 */

const BASE = 'urn:soul:t:Weave/';
const PREFIXES = `@base <${BASE}> .
@prefix weave: <https://repolex.ai/ontology/weave#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix oa: <http://www.w3.org/ns/oa#> .
`;
const W = 'https://repolex.ai/ontology/weave#';
const base = parse(readFileSync(new URL('./base-graph.ttl', import.meta.url), 'utf8'));
const shapes = await loadShapes();

function parse(turtle: string): Quad[] {
  return new Parser({ baseIRI: BASE }).parse(turtle.startsWith('@base') || turtle.includes('@prefix') ? turtle : PREFIXES + turtle);
}

/** The base graph without the quads `remove` names (subject, weave: predicate), plus `add`. */
function broken({ remove = [], add = '' }: { remove?: [string, string][]; add?: string }): Quad[] {
  const gone = (q: Quad) =>
    remove.some(
      ([s, p]) =>
        q.subject.value === BASE + s &&
        q.predicate.value === (p.includes(':') && !p.startsWith('weave:') ? p : W + p.replace(/^weave:/, '')),
    );
  return [...base.filter((q) => !gone(q)), ...(add ? parse(add) : [])];
}

const row = (v: Violation) => `${v.shape} | ${v.constraint} | ${v.focus.replace(`<${BASE}`, '<')}`;
const rows = async (quads: Quad[]) => (await validateQuads(shapes, quads)).map(row).sort();

test('the hand-written base graph conforms: the shapes accept what Weave writes, emoji included', async () => {
  assert.deepEqual(await rows(base), []);
});

const CASES: { name: string; remove?: [string, string][]; add?: string; expect: string[] }[] = [
  {
    name: 'a required property missing',
    remove: [['Turn/a1', 'sourceLine']],
    expect: ['wsh:EventShape weave:sourceLine | MinCount | <Turn/a1>'],
  },
  {
    name: 'an event in no transcript',
    remove: [['Transcript/s1', 'hasEvent']],
    add: '<Transcript/s1> weave:hasEvent <Turn/a1> , <Event/s1/L3> .',
    expect: ['wsh:EventShape ^weave:hasEvent | MinCount | <Turn/u1>'],
  },
  {
    name: 'a second value where one is allowed',
    add: '<Turn/a1> weave:timestamp "2026-01-02T00:00:00Z"^^xsd:dateTime .',
    expect: ['wsh:EventShape weave:timestamp | MaxCount | <Turn/a1>'],
  },
  {
    name: 'a number that is not one ("Infinity" typed xsd:integer)',
    remove: [['Usage/a1', 'inputTokens']],
    add: '<Usage/a1> weave:inputTokens "Infinity"^^xsd:integer .',
    expect: ['wsh:UsageShape weave:inputTokens | Node | <Usage/a1>'],
  },
  {
    name: 'a literal of the wrong datatype',
    remove: [['ContentBlock/u1/0', 'toolIsError']],
    add: '<ContentBlock/u1/0> weave:toolIsError "false" .',
    expect: ['wsh:ToolResultBlockShape weave:toolIsError | Datatype | <ContentBlock/u1/0>'],
  },
  {
    name: 'rdf:JSON that is not JSON',
    remove: [['ContentBlock/a1/1', 'toolInput']],
    add: '<ContentBlock/a1/1> weave:toolInput "{\\"command\\":"^^rdf:JSON .',
    expect: ['wsh:ToolUseBlockShape weave:toolInput | Node | <ContentBlock/a1/1>'],
  },
  {
    name: 'a gap in block order (0, 2)',
    remove: [['ContentBlock/a1/1', 'blockOrder']],
    add: '<ContentBlock/a1/1> weave:blockOrder 2 .',
    expect: ['wsh:BlockOwnerShape | DenseBlockOrder | <Turn/a1>'],
  },
  {
    name: 'a repeated block order (0, 0)',
    remove: [['ContentBlock/a1/1', 'blockOrder']],
    add: '<ContentBlock/a1/1> weave:blockOrder 0 .',
    expect: ['wsh:BlockOwnerShape | DenseBlockOrder | <Turn/a1>'],
  },
  {
    name: 'a block two records share (the ContentBlock/L7/0 merge)',
    add: '<Turn/u1> weave:hasContentBlock <ContentBlock/a1/0> .',
    expect: [
      'wsh:BlockOwnerShape | DenseBlockOrder | <Turn/u1>',
      'wsh:ContentBlockShape ^weave:hasContentBlock | MaxCount | <ContentBlock/a1/0>',
    ],
  },
  {
    name: 'a block named by an empty record id (ContentBlock//0)',
    add: '<Turn/a1> weave:hasContentBlock <ContentBlock//2> . <ContentBlock//2> a weave:ContentBlock ; weave:blockOrder 2 .',
    expect: ['wsh:ContentBlockShape | Pattern | <ContentBlock//2>'],
  },
  {
    name: "a tool result's toolUseRef naming a text block",
    remove: [['ContentBlock/u1/0', 'toolUseRef']],
    add: '<ContentBlock/u1/0> weave:toolUseRef <ContentBlock/a1/0> .',
    expect: ['wsh:ToolResultBlockShape weave:toolUseRef | Class | <ContentBlock/u1/0>'],
  },
  {
    name: 'a subclass without its superclass stated',
    add: '<ContentBlock/a1/0> a weave:RedactedThinkingBlock .',
    expect: ['wsh:RedactedThinkingBlockShape | Class | <ContentBlock/a1/0>'],
  },
  {
    name: "a reader's belief asserted",
    add: '<Turn/a1> weave:exhibits "tool/error" .',
    expect: ['wsh:ClaimShape | ReifiesAsserted | <Claim/x>', 'wsh:ExhibitsNeverAssertedShape weave:exhibits | MaxCount | <Turn/a1>'],
  },
  {
    name: 'a claim reifying something other than weave:exhibits',
    remove: [['Claim/x', 'rdf:reifies'.replace('rdf:', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#')]],
    add: '<Claim/x> rdf:reifies <<( <Turn/a1> weave:eventId "a1" )>> .',
    expect: ['wsh:ClaimShape | ReifiesAsserted | <Claim/x>', 'wsh:ClaimShape | ReifiesPredicate | <Claim/x>'],
  },
  {
    name: 'an evidence annotation on a link that is not asserted',
    remove: [['Turn/a1', 'fragmentOf']],
    expect: ['wsh:EvidenceShape | Or | <Link/s1/f1>'],
  },
  {
    // A session holding only a shared tool call's result leaves its request open, unasserted.
    name: 'nothing on an unasserted unresolved link of a shared node',
    add: '<Link/s1/g1> rdf:reifies <<( <ToolCall/toolu_1> weave:toolRequest <Unresolved/s1/tool_result/t9> )>> ; weave:evidence weave:unresolved .',
    expect: [],
  },
  {
    name: 'an Unresolved placeholder typed as data',
    add: '<Unresolved/s1/tool_result/t9> a weave:File .',
    expect: [
      'wsh:FileShape weave:filePath | MinCount | <Unresolved/s1/tool_result/t9>',
      'wsh:UnresolvedShape rdf:type | In | <Unresolved/s1/tool_result/t9>',
    ],
  },
  {
    name: 'a text not held whole without its digest',
    remove: [['Content/ContentBlock/a1/0/text', 'contentState']],
    add: '<Content/ContentBlock/a1/0/text> weave:contentState weave:ContentTruncated .',
    expect: ['wsh:ContentNotHeldShape | Or | <Content/ContentBlock/a1/0/text>'],
  },
  {
    name: 'a record of a type no class names, without its weave:recordType',
    remove: [['Event/s1/L3', 'recordType']],
    expect: ['wsh:RecordTypeShape | Or | <Event/s1/L3>'],
  },
  {
    name: 'a turn with no weave:role',
    remove: [['Turn/a1', 'role']],
    expect: ['wsh:TurnShape weave:role | MinCount | <Turn/a1>'],
  },
  {
    name: "a role stated on a turn that is not its class's",
    remove: [['Turn/u1', 'role']],
    add: '<Turn/u1> weave:role "assistant" .',
    expect: ['wsh:UserTurnShape weave:role | In | <Turn/u1>'],
  },
  {
    name: 'weave:lacks naming what is not the envelope',
    add: '<Turn/u1> weave:lacks weave:model .',
    expect: ['wsh:EventShape weave:lacks | In | <Turn/u1>'],
  },
  {
    name: 'a transcript stating two working directories for its records',
    add: '<Transcript/s1> weave:cwd "/q" .',
    expect: ['wsh:TranscriptShape weave:cwd | MaxCount | <Transcript/s1>'],
  },
  {
    name: "a finding's target at a turn but at no block",
    remove: [['Annotation/x/target', 'atBlock']],
    expect: ['wsh:SpecificResourceShape | Or | <Annotation/x/target>'],
  },
  {
    // The secret reader reads a malformed line's raw text: its finding is at the line, in no block.
    name: 'nothing on a target at a malformed line, without a turn or block',
    remove: [
      ['Annotation/x/target', 'atEvent'],
      ['Annotation/x/target', 'atBlock'],
    ],
    add: `<Annotation/x/target> weave:atLine <MalformedLine/s1/L9> .
      <MalformedLine/s1/L9> a weave:MalformedLine ; weave:inTranscript <Transcript/s1> ; weave:sourceLine 9 ;
        weave:sourceOffset 900 ; weave:byteLength 5 ; weave:parseError "Unexpected token" ; weave:rawText "{oops" .`,
    expect: [],
  },
  {
    name: 'a target at a malformed line that names a turn and block too',
    add: `<Annotation/x/target> weave:atLine <MalformedLine/s1/L9> .
      <MalformedLine/s1/L9> a weave:MalformedLine ; weave:inTranscript <Transcript/s1> ; weave:sourceLine 9 ;
        weave:sourceOffset 900 ; weave:byteLength 5 ; weave:parseError "Unexpected token" ; weave:rawText "{oops" .`,
    expect: ['wsh:SpecificResourceShape | Or | <Annotation/x/target>'],
  },
  {
    name: 'a selector whose start is past its end',
    remove: [['Annotation/x/position', 'http://www.w3.org/ns/oa#start']],
    add: '<Annotation/x/position> oa:start 3 .',
    expect: ['wsh:TextPositionSelectorShape oa:start | LessThanOrEquals | <Annotation/x/position>'],
  },
];

/** The classes RecordTypeShape lets go without a weave:recordType are exactly those the ontology names a type for. */
test('a record need not state its type exactly where its class names it (weave:recordTypeName)', () => {
  const shapesQuads = new Parser().parse(readFileSync(SHAPES_FILE, 'utf8'));
  const ontology = new Parser().parse(readFileSync(new URL('../../ontology/weave.ttl', import.meta.url), 'utf8'));
  const SH = 'http://www.w3.org/ns/shacl#';
  const listOf = (head: Term): Term[] => {
    const out: Term[] = [];
    for (let node = head; node.value !== 'http://www.w3.org/1999/02/22-rdf-syntax-ns#nil'; ) {
      const at = node;
      out.push(shapesQuads.find((q) => q.subject.equals(at) && q.predicate.value.endsWith('#first'))!.object);
      node = shapesQuads.find((q) => q.subject.equals(at) && q.predicate.value.endsWith('#rest'))!.object;
    }
    return out;
  };
  const or = shapesQuads.find((q) => q.subject.value === `${WSH}RecordTypeShape` && q.predicate.value === `${SH}or`)!.object;
  const classes = listOf(or).flatMap((alt) =>
    shapesQuads.filter((q) => q.subject.equals(alt) && q.predicate.value === `${SH}class`).map((q) => q.object.value),
  );
  const named = ontology.filter((q) => q.predicate.value === `${W}recordTypeName`).map((q) => q.subject.value);
  assert.equal(named.length, 25);
  assert.deepEqual([...classes].sort(), [...named].sort());
});

for (const c of CASES) {
  test(`shapes report ${c.name}`, async () => {
    assert.deepEqual(await rows(broken(c)), [...c.expect].sort());
  });
}

test('a string that is not well-formed Unicode (a lone surrogate) is an ill-formed xsd:string', async () => {
  const { namedNode, literal, quad } = DataFactory;
  const quads = [...base.filter((q) => !(q.subject.value === `${BASE}ContentBlock/a1/0` && q.predicate.value === `${W}text`))];
  quads.push(quad(namedNode(`${BASE}ContentBlock/a1/0`), namedNode(`${W}text`), literal('half \uD83D')));
  const found = await validateQuads(shapes, quads);
  assert.deepEqual(found.map(row), ['wsh:ContentBlockShape weave:text | Datatype | <ContentBlock/a1/0>']);
  // The report describes a string by its length, never by its text.
  assert.equal(found[0].value, 'a xsd:string literal of 6 characters');
  assert.ok(!JSON.stringify(found).includes('half'));
});

/**
 * The three Weave components are declared in shapes.ttl with SHACL-SPARQL validators and run
 * natively by `weave validate`. On every case above, both flag the same focus nodes: the SPARQL
 * run in Oxigraph (with $this left free, which lists every node in violation, and parameters
 * put in as the shapes give them) and the native run through shacl-engine.
 */
test('the native components and their SPARQL validators in shapes.ttl agree on every case', async () => {
  const shapesQuads = new Parser().parse(readFileSync(SHAPES_FILE, 'utf8'));
  const sparql = (component: string) =>
    shapesQuads.find(
      (q) =>
        q.subject.termType === 'BlankNode' &&
        q.predicate.value.endsWith('#select') &&
        shapesQuads.some(
          (p) => p.subject.value === WSH + component && p.predicate.value.endsWith('#nodeValidator') && p.object.equals(q.subject),
        ),
    )!.object.value;
  const checks: {
    component: string;
    shape: string;
    reportedAs?: string;
    query: (q: string) => string;
    targets: (ox: oxigraph.Store) => string[];
  }[] = [
    {
      component: 'DenseBlockOrderConstraintComponent',
      shape: 'wsh:BlockOwnerShape',
      query: (q) => q.replaceAll('$denseBlockOrder', 'true'),
      targets: (ox) => ids(ox, `SELECT DISTINCT ?n WHERE { ?n <${W}hasContentBlock> ?b }`),
    },
    {
      component: 'ReifiesAssertedConstraintComponent',
      shape: 'wsh:EvidenceShape',
      query: (q) => q.replaceAll('$reifiesAsserted', 'true'),
      // It sits in an sh:or that lets an unresolved link stay unasserted: the or reports it.
      reportedAs: 'OrConstraintComponent',
      targets: (ox) => ids(ox, `SELECT DISTINCT ?n WHERE { ?n <${W}evidence> ?e FILTER(?e != <${W}unresolved>) }`),
    },
    {
      component: 'ReifiesAssertedConstraintComponent',
      shape: 'wsh:ClaimShape',
      query: (q) => q.replaceAll('$reifiesAsserted', 'false'),
      targets: (ox) => ids(ox, `SELECT DISTINCT ?n WHERE { ?n a <${W}Claim> }`),
    },
    {
      component: 'ReifiesPredicateConstraintComponent',
      shape: 'wsh:ClaimShape',
      query: (q) => q.replaceAll('$reifiesPredicate', `<${W}exhibits>`),
      targets: (ox) => ids(ox, `SELECT DISTINCT ?n WHERE { ?n a <${W}Claim> }`),
    },
  ];
  let flagged = 0;
  for (const c of [{ name: 'base', expect: [] }, ...CASES]) {
    const quads = c.name === 'base' ? base : broken(c);
    const native = await validateQuads(shapes, quads);
    const ox = new oxigraph.Store();
    for (const q of quads) ox.add(oxQuad(q));
    for (const check of checks) {
      const query = `PREFIX weave: <${W}>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n${check.query(sparql(check.component))}`;
      const targets = new Set(check.targets(ox));
      const bySparql = [...new Set(ids(ox, query.replaceAll('$this', '?this'), 'this'))].filter((n) => targets.has(n)).sort();
      const byNative = native
        .filter((v) => v.shape === check.shape && `${v.constraint}ConstraintComponent` === (check.reportedAs ?? check.component))
        .map((v) => v.focus.slice(1, -1))
        .sort();
      assert.deepEqual(byNative, bySparql, `${check.component} on ${check.shape}, case "${c.name}"`);
      flagged += byNative.length;
    }
  }
  // Not vacuous: the cases above break these components seven times between them (gap, repeat,
  // shared block; exhibits asserted; an event id reified, asserted and of the wrong predicate; evidence).
  assert.equal(flagged, 7);
  assert.equal(COMPONENTS.size, 4);
});

function ids(ox: oxigraph.Store, query: string, variable = 'n'): string[] {
  return (ox.query(query) as Map<string, oxigraph.Term>[]).map((b) => b.get(variable)!.value);
}

function oxTerm(t: Term): oxigraph.Term {
  switch (t.termType) {
    case 'NamedNode':
      return oxigraph.namedNode(t.value);
    case 'BlankNode':
      return oxigraph.blankNode(t.value);
    case 'Literal':
      return oxigraph.literal(t.value, t.language || oxigraph.namedNode(t.datatype.value));
    case 'Quad':
      return oxigraph.triple(
        oxTerm(t.subject) as oxigraph.NamedNode,
        oxTerm(t.predicate) as oxigraph.NamedNode,
        oxTerm(t.object) as oxigraph.Quad_Object,
      );
    default:
      return oxigraph.defaultGraph();
  }
}

function oxQuad(q: Quad): oxigraph.Quad {
  return oxigraph.quad(
    oxTerm(q.subject) as oxigraph.NamedNode,
    oxTerm(q.predicate) as oxigraph.NamedNode,
    oxTerm(q.object) as oxigraph.Quad_Object,
    oxigraph.defaultGraph(),
  );
}

// DataGraph answers `match` the way shacl-engine walks it: one property of one node, inverse
// paths by object, targets by predicate.
test('DataGraph matches by subject, predicate and object like any RDF/JS dataset', () => {
  const g = new DataGraph();
  for (const q of base) g.add(q);
  const { namedNode } = DataFactory;
  const a1 = namedNode(`${BASE}Turn/a1`);
  assert.equal(g.size, base.length);
  assert.equal(g.match(a1).size, base.filter((q) => q.subject.equals(a1)).length);
  assert.equal(g.match(null, null, a1).size, base.filter((q) => q.object.equals(a1)).length);
  assert.equal(g.match(null, namedNode(`${W}blockOrder`)).size, 3);
  assert.equal(g.match(a1, namedNode(`${W}hasContentBlock`)).match(null, null, namedNode(`${BASE}ContentBlock/a1/1`)).size, 1);
  assert.equal(g.match(a1, null, null, namedNode('urn:other-graph')).size, 0);
});
