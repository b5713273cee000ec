import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { mintedAtRandom } from '../../src/dialect/claude-code/ids.ts';
import { ONTOLOGY_GRAPH } from '../../src/rdf/vocab.ts';
import { describeData } from '../../src/server/description.ts';
import { storeSelect } from '../../src/server/workers/operations/rows.ts';
import { fixture, ingested, lines, short, type Ingested } from './helpers.ts';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/**
 * One node per thing that happened once, and nothing more: fixtures/model/resumed-session holds
 * session A (a1…) and session B (b2…), which goes on from A. B's first two records are copies of
 * A's lines 7 and 8 (one call with its Task tool use, and the tool's result); both sessions write a
 * system notice under the hand-written uuid `n-1`, with different texts and times. Figures
 * worked out by hand from the three files.
 */

const A = 'a1000000-0000-4000-8000-000000000001';
const B = 'b2000000-0000-4000-8000-000000000002';
const a = (n: string) => `a1000000-0000-4000-8000-00000000a0${n}`;
const graph = (s: string) => `graph/${s}`;
const CALL = 'LlmCall/msg_01ReleaseNotesDraft0000003';
const TASK = 'ToolCall/toolu_01DelegateNotes000000001';

test('ids minted at random name one thing everywhere; hand-written ones do not', () => {
  assert.deepEqual(
    [
      'a1000000-0000-4000-8000-00000000a006',
      'msg_01ReleaseNotesDraft0000003',
      'req_011CVbqWzYJ6xV1oD8dD3b7e',
      'toolu_01DelegateNotes000000001',
      'n-1',
      'msg_001',
      'msg_shop_01',
      'toolu_tools_fmt',
      'req_api_01',
      'b',
    ].map(mintedAtRandom),
    [true, true, true, true, false, false, false, false, false, false],
  );
});

describe('a session resumed from another', () => {
  let g: Ingested;
  before(async () => {
    g = await ingested([fixture('resumed-session')]);
  });
  after(() => g.close());

  test('the call and the tool use both sessions hold are one node each, stated in both graphs', () => {
    // A: four calls and the child's; B: the copied call and its own. Six calls, seven per session.
    // The union is a set (src/query/merge.ts): COUNT needs no DISTINCT.
    const counts = (cls: string) =>
      g.select(`SELECT ?n ?perSession WHERE { { SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:${cls} } }
        { SELECT (COUNT(?c) AS ?perSession) WHERE { GRAPH ?g { ?c a weave:${cls} } } } }`);
    assert.deepEqual(counts('LlmCall'), [{ n: '6', perSession: '7' }]);
    assert.deepEqual(counts('ToolCall'), [{ n: '2', perSession: '3' }]);
    assert.deepEqual(lines(g.select(`SELECT ?g WHERE { GRAPH ?g { <urn:soul:test:Weave/${CALL}> a weave:LlmCall } }`), 'g'), [
      graph(A),
      graph(B),
    ]);
    assert.deepEqual(lines(g.select(`SELECT ?g WHERE { GRAPH ?g { <urn:soul:test:Weave/${TASK}> a weave:AgentCall } }`), 'g'), [
      graph(A),
      graph(B),
    ]);
    // Its records are shared too: one turn with one timestamp and one role.
    assert.deepEqual(
      lines(
        g.select(
          `SELECT DISTINCT ?f ?time ?role WHERE { <urn:soul:test:Weave/${CALL}> weave:firstFragment ?f . ?f weave:timestamp ?time ; a/weave:turnRole ?role }`,
        ),
        'f',
        'time',
        'role',
      ),
      [`Turn/${a('06')} | 2026-03-02T09:25:04Z | assistant`],
    );
  });

  test("the describe page states the shared call's facts once, and what each session says of it once per session", async () => {
    // Found on the corpus: a call five sessions hold listed its three types five times each.
    const d = await describeData(storeSelect(g.store), `urn:soul:test:Weave/${CALL}`);
    assert.deepEqual(
      d.statements.map((st) => `${short(st.p)} ${typeof st.o.value === 'string' ? short(st.o.value) : '<<triple>>'}`),
      [
        `${RDF_TYPE} weave:LlmCall`,
        `${RDF_TYPE} weave:ModelNode`,
        `${RDF_TYPE} weave:Step`,
        `weave:firstFragment Turn/${a('06')}`,
        // Its line in B (the first) and in A (the seventh).
        'weave:firstLine 1',
        'weave:firstLine 7',
        'weave:fragmentCount 1',
        `weave:lastFragment Turn/${a('06')}`,
        'weave:usageFinal true',
        `weave:within Run/${A}/main/${a('05')}`,
        `weave:within Run/${B}/main/${a('06')}`,
      ],
    );
    assert.deepEqual(d.graphs.map(short), [graph(A), graph(B)]);
  });

  test('what each session says of them stays in its own graph: its run, its child, its evidence', () => {
    assert.deepEqual(
      lines(
        g.select(`SELECT ?g ?run ?ev WHERE { GRAPH ?g { <urn:soul:test:Weave/${CALL}> weave:within ?run ~ ?r {| weave:evidence ?ev |} } }`),
        'g',
        'run',
        'ev',
      ),
      [
        `${graph(A)} | Run/${A}/main/${a('05')} | weave:strong_inference`,
        `${graph(B)} | Run/${B}/main/${a('06')} | weave:strong_inference`,
      ],
    );
    // A holds the child the Task started; B holds only the launch result naming it.
    assert.deepEqual(
      lines(
        g.select(
          `SELECT ?g ?child ?ev WHERE { GRAPH ?g { <urn:soul:test:Weave/${TASK}> weave:starts ?child ~ ?r {| weave:evidence ?ev |} } }`,
        ),
        'g',
        'child',
        'ev',
      ),
      [`${graph(A)} | Stream/${A}/7a7a7a7a | weave:exact_unique`, `${graph(B)} | Unresolved/${B}/child_stream/7a7a7a7a | weave:unresolved`],
    );
    // One reifier per session and link: no reifier carries two evidence levels.
    assert.deepEqual(g.select(`SELECT ?r WHERE { ?r weave:evidence ?e1, ?e2 FILTER(?e1 != ?e2) }`), []);
  });

  test('a hand-written uuid reused with different content is two nodes, each with its own time', () => {
    assert.deepEqual(lines(g.select(`SELECT ?e ?time WHERE { ?e weave:eventId "n-1" ; weave:timestamp ?time }`), 'e', 'time'), [
      `Event/${A}/n-1 | 2026-03-02T09:00:11Z`,
      `Event/${B}/n-1 | 2026-03-02T10:00:06Z`,
    ]);
  });

  test('B is its own conversation, and says it goes on from a record of A', () => {
    assert.deepEqual(lines(g.select(`SELECT ?s ?c WHERE { ?s a weave:Session ; weave:inConversation ?c }`), 's', 'c'), [
      `Session/${A} | Conversation/${A}`,
      `Session/${B} | Conversation/${B}`,
    ]);
    // B's first record names A's line 6 as its parent: the pass across sessions finds it in A.
    assert.deepEqual(lines(g.select(`SELECT ?g ?c ?e WHERE { GRAPH ?g { ?c weave:continuesFrom ?e } }`), 'g', 'c', 'e'), [
      `graph/links | Conversation/${B} | Turn/${a('05')}`,
    ]);
  });

  test("B's copied records are a loop begun elsewhere: a run of their own, by the shape of their chain", () => {
    assert.deepEqual(
      lines(
        g.select(
          `SELECT ?run ?rule ?ev WHERE { GRAPH <urn:soul:test:Weave/graph/${B}> { ?run weave:runRule ?rule ~ ?r {| weave:evidence ?ev |} } }`,
        ),
        'run',
        'rule',
        'ev',
      ),
      [
        `Run/${B}/main/${a('06')} | weave:fromElsewhere | weave:strong_inference`,
        `Run/${B}/main/b2000000-0000-4000-8000-00000000b003 | weave:byOpeningRecord | weave:strong_inference`,
      ],
    );
  });

  test("each session is cut where it stood idle; the child's talk joins A's second window by its time", () => {
    assert.deepEqual(
      lines(
        g.select(`SELECT ?s ?state ?line WHERE { ?s a weave:Segment ; weave:segmentState ?state ; weave:firstLine ?line }`),
        's',
        'state',
        'line',
      ),
      [
        `Segment/${A}/1 | candidate | 1`, // 09:00:00–09:00:11
        `Segment/${A}/2 | open | 6`, // 09:25:00, after 24 idle minutes
        `Segment/${B}/1 | candidate | 1`, // the copies, 09:25:04–09:25:08
        `Segment/${B}/2 | open | 3`, // 10:00:00
      ],
    );
    assert.deepEqual(lines(g.select(`SELECT ?t ?s ?ev WHERE { ?t weave:inSegment ?s ~ ?r {| weave:evidence ?ev |} }`), 't', 's', 'ev'), [
      `Talk/${A}/7a7a7a7a | Segment/${A}/2 | weave:strong_inference`,
      `Talk/${A}/main/${a('01')} | Segment/${A}/1 | weave:exact_unique`,
      `Talk/${A}/main/${a('05')} | Segment/${A}/2 | weave:exact_unique`,
      `Talk/${B}/main/${a('06')} | Segment/${B}/1 | weave:exact_unique`,
      `Talk/${B}/main/b2000000-0000-4000-8000-00000000b003 | Segment/${B}/2 | weave:exact_unique`,
    ]);
  });
});

describe('every fixture, read and then read by the readers', () => {
  let g: Ingested;
  before(async () => {
    g = await ingested([fileURLToPath(new URL('../../fixtures', import.meta.url))], { readers: true });
  });
  after(() => g.close());

  test('every superclass the ontology declares for a class is stated on each instance, in the same graph', () => {
    const missing = g.select(`SELECT DISTINCT ?c ?d WHERE {
      GRAPH ?g { ?x a ?c } FILTER(?g != <${ONTOLOGY_GRAPH}>)
      GRAPH <${ONTOLOGY_GRAPH}> { ?c rdfs:subClassOf+ ?d }
      FILTER NOT EXISTS { GRAPH ?g { ?x a ?d } } }`);
    assert.deepEqual(missing, []);
    // The walk has something to walk: transcripts, turns, blocks, steps and model nodes.
    const walked = g
      .select(`SELECT DISTINCT ?c WHERE { GRAPH ?g { ?x a ?c } GRAPH <${ONTOLOGY_GRAPH}> { ?c rdfs:subClassOf ?d } }`)
      .map((r) => r.c);
    for (const c of [
      'weave:ClaudeCodeTranscript',
      'weave:AssistantTurn',
      'weave:RedactedThinkingBlock',
      'weave:AgentCall',
      'weave:Segment',
      'weave:Conversation',
      'weave:Claim',
    ])
      assert.ok(walked.includes(c), c);
  });

  test('a placeholder is typed Unresolved and nothing else', () => {
    assert.deepEqual(g.select(`SELECT ?u ?c WHERE { ?u a weave:Unresolved ; a ?c FILTER(?c != weave:Unresolved) }`), []);
    assert.ok(g.select(`SELECT ?u WHERE { ?u a weave:Unresolved }`).length > 10);
  });

  test('no node carries two timestamps or two roles, however many sessions hold it', () => {
    assert.deepEqual(g.select(`SELECT ?t WHERE { ?t a weave:UserTurn, weave:AssistantTurn }`), []);
    assert.deepEqual(g.select(`SELECT ?e WHERE { ?e weave:timestamp ?a, ?b FILTER(?a != ?b) }`), []);
  });
});
