import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { render } from '../../src/client/conversation.ts';
import { conversationView, isCompactionRequest, isSummariser, type TreeNode } from '../../src/model/view.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { fixture, ingested, lines, SOUL, type Ingested } from './helpers.ts';

/**
 * Compaction summarisers (`agent-acompact-<hex>.jsonl`) joined to the summary they produced, one
 * session per rule in fixtures/model/compaction-summariser (figures worked out by hand):
 * 1. the body is in the summary and the anchor is the boundary's logicalParentUuid: exact;
 * 2. the body is in the summary, the boundary's tail never landed: exact by the text alone;
 * 3. no summary tags, no anchor; only the compaction's SessionStart hook lands in between: inferred;
 * 4. a summariser after which the conversation went on (unresolved), and one that joins exactly;
 * 5. the anchor names the first compaction and the text the second: conflict, both linked.
 */

const S = (n: number) => `5c000000-0000-4000-8000-00000000000${n}`;
const turn = (n: number, tag: string) => `Turn/5c00000${n}-0000-4000-8000-000000000${tag}`;
const stream = (n: number, agent: string) => `Stream/${S(n)}/${agent}`;

describe('compaction summarisers', () => {
  let g: Ingested;
  before(async () => {
    g = await ingested([fixture('compaction-summariser')]);
  });
  after(() => g.close());

  test('each summariser produces the summary its text, its anchor or the timeline proves', () => {
    assert.deepEqual(lines(g.select(`SELECT ?s ?o ?ev WHERE { ?s weave:produces ?o ~ ?r {| weave:evidence ?ev |} }`), 's', 'o', 'ev'), [
      `${stream(1, 'acompact-5c0001')} | ${turn(1, 'a04')} | weave:exact_unique`,
      `${stream(2, 'acompact-5c0002')} | ${turn(2, 'a04')} | weave:exact_unique`,
      `${stream(3, 'acompact-5c0003')} | ${turn(3, 'a05')} | weave:strong_inference`,
      `${stream(4, 'acompact-5c04aa')} | Unresolved/${S(4)}/epoch_summary/acompact-5c04aa | weave:unresolved`,
      `${stream(4, 'acompact-5c04bb')} | ${turn(4, 'a06')} | weave:exact_unique`,
      `${stream(5, 'acompact-5c0005')} | ${turn(5, 'a04')} | weave:conflict`,
      `${stream(5, 'acompact-5c0005')} | ${turn(5, 'a08')} | weave:conflict`,
    ]);
  });

  test('what a summariser produces is an epoch summary, or an explicit Unresolved one', () => {
    assert.deepEqual(
      g.select(
        `SELECT ?o WHERE { ?s weave:produces ?o FILTER NOT EXISTS { ?o a weave:EpochSummary } FILTER NOT EXISTS { ?o a weave:Unresolved } }`,
      ),
      [],
    );
    // The placeholder stands in for a summary without passing for one.
    assert.deepEqual(g.select(`SELECT ?o WHERE { ?o a weave:EpochSummary, weave:Unresolved }`), []);
    assert.deepEqual(
      lines(
        g.select(`SELECT ?u ?k ?id WHERE { ?u a weave:Unresolved ; weave:unresolvedKind ?k ; weave:missingId ?id
      FILTER(?k IN ("epoch_summary", "spawn_of_child")) }`),
        'k',
        'id',
      ),
      ['epoch_summary | acompact-5c04aa'],
    );
  });

  test("a summariser's opening message reads as the compaction request it is, not a prompt: in the view and in weave conversation", () => {
    const view = conversationView(g.store, sessionGraphIri(SOUL, S(1)), S(1));
    const streams = view.root.children;
    assert.deepEqual(
      streams.map((s) => [s.label, isSummariser(s)]),
      [
        ['main', false],
        ['acompact-5c0001  ← compaction', true],
      ],
    );
    const talks = (s: TreeNode) => s.children.flatMap((epoch) => epoch.children.filter((c) => c.kind === 'talk'));
    assert.deepEqual(
      talks(streams[1]).map((t) => [t.label, isCompactionRequest(t)]),
      [['compaction request "Your task is to create a detailed summary of the conversati…"', true]],
    );
    assert.deepEqual(
      talks(streams[0]).map((t) => [t.label, isCompactionRequest(t)]),
      [
        ['"Tidy the parser."', false],
        ['"Now add tests."', false],
      ],
    );
    const text = render(view, (t) => t, 7, 6);
    assert.ok(text.includes('\n    stream  acompact-5c0001  ← compaction\n'));
    assert.ok(text.includes('\n        talk  compaction request "Your task is to create a detailed summary of the conversati…"\n'));
  });

  test('no call starts a summariser: it is no orphan child', () => {
    assert.deepEqual(g.select(`SELECT ?c ?s WHERE { ?c weave:starts ?s }`), []);
    assert.equal(g.select(`SELECT ?s WHERE { ?s a weave:Stream ; weave:streamRole "child" }`).length, 6);
  });
});
