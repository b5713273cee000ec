import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpineBuilder } from '../../src/readers/spine-builder.ts';
import { a, weave } from '../../src/rdf/vocab.ts';

/**
 * The readers' spine from triples alone, in the order ingest writes them: an assistant turn whose
 * tool use states its id, then a user turn whose tool result names that use (weave:toolUseRef)
 * and states no id of its own, as the emitter writes a result whose use it resolved.
 */
function toolRoundTrip(): SpineBuilder {
  const builder = new SpineBuilder();
  const add = (s: string, p: string, o: string) => builder.add(s as never, p as never, o as never);
  const transcript = '<urn:t:transcript>';
  const [ask, answer] = ['<urn:t:turn/1>', '<urn:t:turn/2>'];
  const [use, result, inner] = ['<urn:t:block/1/0>', '<urn:t:block/2/0>', '<urn:t:block/2/0/0>'];
  add(transcript, a, weave.Transcript);
  add(transcript, weave.hasEvent, ask);
  add(ask, a, weave.Turn);
  add(ask, a, weave.AssistantTurn);
  add(ask, weave.sourceLine, '"1"^^<http://www.w3.org/2001/XMLSchema#integer>');
  add(ask, weave.hasContentBlock, use);
  add(use, a, weave.ToolUseBlock);
  add(use, weave.blockOrder, '"0"^^<http://www.w3.org/2001/XMLSchema#integer>');
  add(use, weave.toolName, '"Bash"');
  add(use, weave.toolUseId, '"toolu_01"');
  add(transcript, weave.hasEvent, answer);
  add(answer, a, weave.Turn);
  add(answer, a, weave.UserTurn);
  add(answer, weave.sourceLine, '"2"^^<http://www.w3.org/2001/XMLSchema#integer>');
  add(answer, weave.parentEvent, ask);
  add(answer, weave.hasContentBlock, result);
  add(result, a, weave.ToolResultBlock);
  add(result, weave.blockOrder, '"0"^^<http://www.w3.org/2001/XMLSchema#integer>');
  add(result, weave.toolUseRef, use);
  add(result, weave.toolIsError, '"true"^^<http://www.w3.org/2001/XMLSchema#boolean>');
  add(result, weave.hasContentBlock, inner);
  add(inner, a, weave.TextBlock);
  add(inner, weave.blockOrder, '"0"^^<http://www.w3.org/2001/XMLSchema#integer>');
  add(inner, weave.text, '"command not found"');
  return builder;
}

test("a tool result that states no id takes its use's, the use's node already let go when the result is built", () => {
  const spine = toolRoundTrip().build('urn:g', 's');
  assert.deepEqual(
    spine.turns.map((t) => [t.iri, t.role, t.line, t.parent]),
    [
      ['urn:t:turn/1', 'assistant', 1, undefined],
      ['urn:t:turn/2', 'user', 2, 'urn:t:turn/1'],
    ],
  );
  const [useView] = spine.turns[0].blocks;
  const [resultView] = spine.turns[1].blocks;
  assert.deepEqual([useView.kind, useView.toolName, useView.toolUseId], ['tool_use', 'Bash', 'toolu_01']);
  assert.deepEqual(
    [resultView.kind, resultView.toolUse, resultView.toolUseId, resultView.isError],
    ['tool_result', 'urn:t:block/1/0', 'toolu_01', true],
  );
  assert.deepEqual(
    resultView.blocks.map((b) => [b.kind, b.text, b.turn.iri]),
    [['text', 'command not found', 'urn:t:turn/2']],
  );
  assert.equal(spine.block('urn:t:block/2/0/0')?.turn.iri, 'urn:t:turn/2');
});

test('a block with no blocks of its own shares the one frozen empty list, and the others are as long as they are', () => {
  const spine = toolRoundTrip().build('urn:g', 's');
  const lists = spine.turns.flatMap((t) => [t.blocks, ...t.blocks.map((b) => b.blocks)]);
  assert.deepEqual(
    lists.map((l) => l.length),
    [1, 0, 1, 1],
  );
  assert.ok(Object.isFrozen(spine.turns[0].blocks[0].blocks));
});
