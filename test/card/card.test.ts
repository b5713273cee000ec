import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FIXTURES as ALL } from '../helpers.ts';
import { fixture, ingested, type Ingested } from '../model/helpers.ts';
import { CARD } from './card.ts';

/**
 * The card's diagram answers as the card draws it (test/card/card.ts). On fixtures/spine every
 * figure below is counted by hand from its five files (two sessions, three side files):
 * - 24 turns, 12 user and 12 assistant, every one with an xsd:dateTime timestamp; the replayed
 *   copy of u-0001 (main file, line 15) is the same turn;
 * - 18 turns name a parent (11 in the main file, 3 in agent-a1b2c3d, 1 in the workflow agent, 2 in
 *   22222222, 1 in agent-5e5e5e5e); 12 assistant turns name a model;
 * - 25 top-level blocks; 14 text blocks (12 of messages, 2 nested in the results of lines 8 and
 *   10), 2 thinking (one redacted), 5 tool uses and 5 results that pair by id (toolu_0030's use
 *   in 22222222, its result in agent-5e5e5e5e), 1 image (nested in line 8's result); 1 tool use
 *   names its caller (toolu_0001, direct);
 * - 3 side files name their session's transcript as parent (agent-a1b2c3d and the workflow agent
 *   under 11111111, agent-5e5e5e5e beside it under 22222222);
 * - 4 findings, each with its claim: human/authored on u-0001, u-0005 and v-0001, tool/error on
 *   u-0003 (its result is_error).
 */
const SPINE: Record<string, number> = {
  'Transcript weave:hasEvent Turn': 24,
  'Transcript weave:sessionSlug': 5,
  "a sub-agent's Transcript weave:parentTranscript → its session's Transcript": 3,
  'rdf:type weave:Turn (→ UserTurn | AssistantTurn)': 24,
  'weave:role "assistant" (one role per turn, its kind\'s)': 24,
  'weave:timestamp "…"^^xsd:dateTime, the time anchor': 24,
  'weave:parentEvent → …/Turn/<prev>, the reply-to spine': 18,
  'weave:model (AssistantTurn only)': 12,
  'weave:hasContentBlock → [ordered blocks], blockOrder 0, 1, 2…': 25,
  'TextBlock weave:text': 14,
  'ThinkingBlock {thinking, signature}': 2,
  'ToolUseBlock {id, name, input}': 5,
  'ToolUseBlock {…, caller}': 1,
  'ToolResultBlock {tool_use_id, content, is_error}': 5,
  'ToolUseBlock and ToolResultBlock pair by tool_use_id': 5,
  'ImageBlock source{type, media_type, data}: the federation hook': 1,
  'Compaction: a prov:Activity': 0,
  'oa:Annotation: attributed, timed, typed, targeting a source at an event, with a body': 4,
  'claim: rdf:reifies <<( Turn weave:exhibits "…" )>>, unasserted': 4,
};

const figure = (g: Ingested, query: string) => Number(g.select(query)[0].n);

function onFixture(name: string, path: string, body: (g: () => Ingested) => void) {
  describe(name, () => {
    let g: Ingested;
    before(async () => {
      g = await ingested([path], { readers: true });
    });
    after(() => g.close());
    body(() => g);
  });
}

onFixture('the card on fixtures/spine', fixture('../spine'), (g) => {
  test('every statement the card draws holds, with the figures counted by hand', () => {
    assert.deepEqual(Object.fromEntries(CARD.map((c) => [c.statement, figure(g(), c.holds)])), SPINE);
  });
  test('nothing contradicts the card', () => {
    assert.deepEqual(
      CARD.filter((c) => figure(g(), c.breaks) !== 0).map((c) => c.statement),
      [],
    );
  });
});

onFixture('the card on fixtures/model/compaction-replay', fixture('compaction-replay'), (g) => {
  test('a compaction is a prov:Activity: its file has two compact boundaries', () => {
    assert.equal(figure(g(), CARD.find((c) => c.statement.startsWith('Compaction'))!.holds), 2);
  });
});

onFixture('the card on every fixture', ALL, (g) => {
  test('nothing contradicts the card', () => {
    assert.deepEqual(
      CARD.filter((c) => figure(g(), c.breaks) !== 0).map((c) => c.statement),
      [],
    );
  });
});
