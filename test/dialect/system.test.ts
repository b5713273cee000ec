import { test } from 'node:test';
import assert from 'node:assert/strict';
import { available, emitted, sorted } from './helpers.ts';
import { iri } from '../../src/rdf/terms.ts';

/**
 * Every system subtype, one line each of fixtures/records/-home-ada-records-demo/44444444-….jsonl,
 * with the exact triples it emits; compaction and microcompaction as activities.
 */

const S = '44444444-4444-4444-8444-444444444444';
const at = (n: number) => emitted(`${S}.jsonl`, n, S);
const E = (id: string) => `:Event/${S}/${id}`;
const system = (e: string, subtype?: string) => [`${e} a weave:SystemEvent`, ...(subtype ? [`${e} weave:subtype "${subtype}"`] : [])];

test('a system record with no subtype (1.0.x hook notices): text, level, tool use', () => {
  const e = E('sy-0001');
  assert.deepEqual(
    at(3).triples,
    sorted(
      system(e),
      `${e} weave:isMeta false`,
      `${e} weave:level "info"`,
      `${e} weave:toolUseId "toolu_4001"`,
      // Two escape characters: 36 bytes.
      available(e, 'text', '"Running \\u001B[1mPostToolUse:Bash\\u001B[22m..."', 36, '/content'),
    ),
  );
});

test('stop_hook_summary: its hook run, each hook command, and the errors', () => {
  const e = E('sy-0002');
  const run = `:HookRun/${S}/hk-4001/Stop`;
  const { triples, references } = at(5);
  assert.deepEqual(
    triples,
    sorted(
      system(e, 'stop_hook_summary'),
      `${e} weave:level "suggestion"`,
      `${e} weave:toolUseId "hk-4001"`,
      `${e} weave:hookRun ${run}`,
      `${run} a weave:HookRun`,
      `${run} weave:hookEvent "Stop"`,
      `${run} weave:toolUseId "hk-4001"`,
      `${e} weave:hookCount 2`,
      `${e} weave:hookExecution :HookExecution/${S}/sy-0002/0`,
      `:HookExecution/${S}/sy-0002/0 a weave:HookExecution`,
      `:HookExecution/${S}/sy-0002/0 weave:hookCommand "notify stop"`,
      `:HookExecution/${S}/sy-0002/0 weave:durationMs 12`,
      `${e} weave:hookExecution :HookExecution/${S}/sy-0002/1`,
      `:HookExecution/${S}/sy-0002/1 a weave:HookExecution`,
      `:HookExecution/${S}/sy-0002/1 weave:hookCommand "check-tests"`,
      available(e, 'hookError', '"check-tests: 3 failing"', 22, '/hookErrors/0', 0),
      `${e} weave:preventedContinuation false`,
      `${e} weave:hookStopReason ""`,
      `${e} weave:hookHasOutput true`,
    ),
  );
  assert.deepEqual(references, [`${run} weave:forToolUse toolUse:hk-4001`]);
});

test('turn_duration: the measured duration and message count', () => {
  const e = E('sy-0003');
  assert.deepEqual(
    at(6).triples,
    sorted(system(e, 'turn_duration'), `${e} weave:isMeta false`, `${e} weave:durationMs 97064`, `${e} weave:messageCount 48`),
  );
});

test('api_error: retry attempt, delay and maximum, the error and its cause', () => {
  const e = E('sy-0004');
  assert.deepEqual(
    at(7).triples,
    sorted(
      system(e, 'api_error'),
      `${e} weave:level "error"`,
      `${e} weave:retryAttempt 1`,
      `${e} weave:maxRetries 10`,
      `${e} weave:retryDelayMs 563.5`,
      `${e} weave:errorJson json:{"cause":{"code":"ConnectionRefused"}}`,
      `${e} weave:errorCause json:{"code":"ConnectionRefused","path":"https://api.anthropic.com/v1/messages","errno":0}`,
    ),
  );
});

test('local_command names the command; away_summary, informational, bridge_status and scheduled_task_fire keep their text', () => {
  const command = E('sy-0005');
  assert.deepEqual(
    at(8).triples,
    sorted(
      system(command, 'local_command'),
      `${command} weave:isMeta false`,
      `${command} weave:level "info"`,
      `${command} weave:commandName "/mcp"`,
      available(
        command,
        'text',
        '"<command-name>/mcp</command-name>\\n<command-message>mcp</command-message>\\n<command-args></command-args>"',
        102,
        '/content',
      ),
    ),
  );
  const away = E('sy-0006');
  assert.deepEqual(
    at(9).triples,
    sorted(
      system(away, 'away_summary'),
      `${away} weave:isMeta false`,
      available(away, 'text', '"Goal: tidy docs. Next: run lint."', 32, '/content'),
    ),
  );
  const info = E('sy-0007');
  assert.deepEqual(
    at(10).triples,
    sorted(
      system(info, 'informational'),
      `${info} weave:level "info"`,
      available(info, 'text', '"A new version is available"', 26, '/content'),
    ),
  );
  const bridge = E('sy-0008');
  assert.deepEqual(
    at(11).triples,
    sorted(
      system(bridge, 'bridge_status'),
      `${bridge} weave:isMeta false`,
      `${bridge} weave:url "https://claude.ai/code/session_01Demo"`,
      available(bridge, 'text', '"/remote-control is active."', 26, '/content'),
    ),
  );
  const fire = E('sy-0009');
  assert.deepEqual(
    at(12).triples,
    sorted(
      system(fire, 'scheduled_task_fire'),
      `${fire} weave:isMeta false`,
      available(fire, 'text', '"Running scheduled task: nightly lint"', 36, '/content'),
    ),
  );
});

test('microcompact_boundary: a microcompaction that used the record before it and cleared tool outputs', () => {
  const e = E('sy-0010');
  const c = `:Compaction/${S}/sy-0010`;
  const { triples, references } = at(13);
  assert.deepEqual(
    triples,
    sorted(
      system(e, 'microcompact_boundary'),
      `${e} weave:isMeta false`,
      `${e} weave:level "info"`,
      available(e, 'text', '"Context microcompacted"', 22, '/content'),
      `${c} a weave:Compaction`,
      `${c} a weave:Microcompaction`,
      `${c} a prov:Activity`,
      `${c} prov:generated ${e}`,
      `${c} prov:endedAtTime 2026-11-04T09:00:13.000Z^^dateTime`,
      `${c} weave:tailEventId "sy-0009"`,
      `${c} weave:compactionTrigger "auto"`,
      `${c} weave:preTokens 71221`,
      `${c} weave:tokensSaved 40455`,
      `${c} weave:clearedToolUseId "toolu_4001"`,
      `${c} weave:compactionJson json:{"trigger":"auto","preTokens":71221,"tokensSaved":40455,"compactedToolIds":["toolu_4001"],"clearedAttachmentUUIDs":[]}`,
    ),
  );
  assert.deepEqual(references, [`${c} prov:used event:sy-0009`, `${c} weave:clearedToolUse toolUse:toolu_4001`]);
});

test('compact_boundary: a compaction with trigger, tokens before and after, using its logical parent', () => {
  const e = E('sy-0011');
  const c = `:Compaction/${S}/sy-0011`;
  const { triples, references } = at(15);
  assert.deepEqual(
    triples,
    sorted(
      system(e, 'compact_boundary'),
      `${e} weave:isMeta false`,
      `${e} weave:level "info"`,
      available(e, 'text', '"Conversation compacted"', 22, '/content'),
      `${c} a weave:Compaction`,
      `${c} a prov:Activity`,
      `${c} prov:generated ${e}`,
      `${c} prov:endedAtTime 2026-11-04T09:00:16.000Z^^dateTime`,
      `${c} weave:tailEventId "a-4002"`,
      `${c} weave:compactionTrigger "manual"`,
      `${c} weave:preTokens 142431`,
      `${c} weave:postTokens 9000`,
      `${c} weave:durationMs 5123`,
      `${c} weave:compactionJson json:{"trigger":"manual","preTokens":142431,"postTokens":9000,"durationMs":5123,"preservedSegment":{"headUuid":"u-4001","anchorUuid":"a-4002","tailUuid":"a-4002"}}`,
    ),
  );
  assert.deepEqual(references, [`${c} prov:used event:a-4002`, `${e} weave:logicalParentEvent event:a-4002 | weave:logicalParentEventId`]);
});

test('model_refusal_fallback keeps its logical parent; the compact summary turn says what it is', () => {
  const e = E('sy-0012');
  assert.deepEqual(
    at(17).triples,
    sorted(
      system(e, 'model_refusal_fallback'),
      `${e} weave:level "warning"`,
      available(e, 'text', '"Switched to a fallback model"', 28, '/content'),
    ),
  );
  // The logical parent is a reference, stated as an id only where it names no record of the session.
  assert.deepEqual(at(17).references, [`${e} weave:logicalParentEvent event:u-4003 | weave:logicalParentEventId`]);
  const summary = at(16).triples;
  assert.ok(summary.includes(`:Turn/${S}/u-4003 weave:isCompactSummary true`));
  assert.ok(summary.includes(`:Turn/${S}/u-4003 weave:isVisibleInTranscriptOnly true`));
});

test('a field of an unexpected type is kept in extraJson, not dropped', () => {
  const line = '{"type":"system","subtype":"turn_duration","durationMs":"slow","messageCount":3,"uuid":"sy-9999"}';
  const read = JSON.parse(line);
  assert.equal(read.durationMs, 'slow');
  return import('../../src/dialect/claude-code/emit/spine.ts').then(({ emitSpine }) => {
    const out = emitSpine({ record: read }, iri('urn:soul:local:Weave/Event/sy-9999'), {
      soul: 'local',
      transcript: iri('urn:soul:local:Weave/Transcript/x'),
      lineNo: 1,
      offset: 0,
    });
    const lines = out.triples.map((t) => `${t.p} ${t.o}`);
    assert.ok(
      lines.includes(
        '<https://repolex.ai/ontology/weave#extraJson> "{\\"durationMs\\":\\"slow\\"}"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON>',
      ),
    );
    assert.ok(lines.includes('<https://repolex.ai/ontology/weave#messageCount> "3"^^<http://www.w3.org/2001/XMLSchema#integer>'));
    assert.ok(!lines.some((l) => l.startsWith('<https://repolex.ai/ontology/weave#durationMs>')));
  });
});
