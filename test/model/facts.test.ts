import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readLine } from '../../src/dialect/claude-code/read.ts';
import { notificationIds, recordFact } from '../../src/dialect/claude-code/facts.ts';
import type { RecordFact } from '../../src/model/facts.ts';
import { iri } from '../../src/rdf/terms.ts';

/** What the model keeps of single records: their kind, their ids, never their text. */

function fact(record: object): RecordFact {
  const read = readLine({ lineNo: 7, offset: 0, byteLength: 0, text: JSON.stringify(record), terminated: true });
  assert.equal(read.kind, 'record');
  // Named as the spine names its event: Turn/<uuid> for a record with one.
  const uuid = (record as { uuid?: unknown }).uuid;
  const event = typeof uuid === 'string' && uuid ? iri(`urn:soul:local:Weave/Turn/${uuid}`) : iri('urn:e');
  return recordFact(read as Extract<typeof read, { kind: 'record' }>, 0, 7, event);
}

const user = (content: unknown, extra: object = {}) => ({
  type: 'user',
  uuid: 'u1',
  parentUuid: 'p1',
  message: { role: 'user', content },
  ...extra,
});

test('a queued prompt is external input; one whose attachment origin is a notification is a notification', () => {
  const queued = fact({
    type: 'attachment',
    uuid: 'a1',
    attachment: { type: 'queued_command', prompt: 'also the tax line', commandMode: 'prompt' },
  });
  assert.deepEqual([queued.step, queued.stepEvidence, queued.origin], ['message.external', 'strong_inference', undefined]);
  const notified = fact({
    type: 'attachment',
    uuid: 'a2',
    attachment: {
      type: 'queued_command',
      commandMode: 'prompt',
      origin: { kind: 'task-notification' },
      prompt: '<task-notification>\n<task-id>a77</task-id>\n<tool-use-id>toolu_9</tool-use-id>\n</task-notification>',
    },
  });
  assert.deepEqual([notified.step, notified.stepEvidence, notified.origin], ['runtime.notification', 'exact_unique', 'notification']);
  assert.deepEqual(notified.notification, { taskId: 'a77', toolUseId: 'toolu_9' });
  assert.equal(fact({ type: 'attachment', uuid: 'a3', attachment: { type: 'skill_listing', content: 'x' } }).step, 'context.injection');
});

test('user records: prompt, sdk prompt, meta, summary, commands, shell escapes, interruptions', () => {
  const typed = fact(user('Fix the bug.', { promptId: 'p9' }));
  assert.deepEqual([typed.step, typed.stepEvidence, typed.opensRun, typed.promptId], ['message.external', 'strong_inference', true, 'p9']);
  const sdk = fact(user('Fix the bug.', { promptSource: 'sdk' }));
  assert.deepEqual([sdk.step, sdk.stepEvidence, sdk.origin], ['message.external', 'exact_unique', 'external']);
  assert.equal(fact(user('<system-reminder>x</system-reminder>', { isMeta: true })).step, 'context.injection');
  assert.equal(fact(user('Summary of before.', { isCompactSummary: true })).step, 'epoch.summary');
  const command = fact(user('<command-name>/cost</command-name>'));
  assert.deepEqual([command.step, command.opensRun], ['control.command', true]);
  const output = fact(user('<local-command-stdout>$0.12</local-command-stdout>'));
  assert.deepEqual([output.step, output.opensRun], ['control.command', false]);
  assert.deepEqual(
    [fact(user('<bash-input>ls</bash-input>')).opensRun, fact(user('<bash-stdout>a</bash-stdout>')).opensRun],
    [true, false],
  );
  const stop = fact(user([{ type: 'text', text: '[Request interrupted by user]' }]));
  assert.deepEqual([stop.step, stop.opensRun], ['control.interrupt', undefined]);
});

test('tool results: the ids, and what toolUseResult says about the tool', () => {
  const launched = fact(
    user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }], {
      toolUseResult: { status: 'async_launched', agentId: 'a12', isAsync: true },
    }),
  );
  assert.deepEqual(launched.toolResults, [{ toolUseId: 'toolu_1', order: 0, isError: false }]);
  assert.deepEqual([launched.step, launched.outcome], ['agent.launch_ack', { status: 'async_launched', agentId: 'a12' }]);
  const searched = fact(
    user([{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'x' }], { toolUseResult: { query: 'q', durationSeconds: 1.2345 } }),
  );
  assert.deepEqual(searched.outcome, { durationMs: 1234.5 });
  const task = fact(
    user([{ type: 'tool_result', tool_use_id: 'toolu_3', content: 'x' }], {
      toolUseResult: { retrieval_status: 'success', task: { exitCode: 2 } },
    }),
  );
  assert.deepEqual(task.outcome, { exitCode: 2 });
  const denied = fact(
    user([{ type: 'tool_result', tool_use_id: 'toolu_4', content: 'no', is_error: true }], { toolDenialKind: 'permission-rule' }),
  );
  assert.deepEqual([denied.step, denied.outcome, denied.toolResults?.[0].isError], ['control.permission', { denied: true }, true]);
  const killed = fact(user([{ type: 'tool_result', tool_use_id: 'toolu_5', content: 'x' }], { toolDenialKind: 'interrupted' }));
  assert.equal(killed.step, 'control.interrupt');
  // With two results in one record, toolUseResult cannot say which it describes.
  const two = fact(
    user(
      [
        { type: 'tool_result', tool_use_id: 'toolu_6' },
        { type: 'tool_result', tool_use_id: 'toolu_7' },
      ],
      { toolUseResult: { agentId: 'a1' } },
    ),
  );
  assert.deepEqual([two.toolResults?.length, two.outcome], [2, undefined]);
});

test('assistant records: call key, synthetic, blocks at the positions the spine numbers them', () => {
  const f = fact({
    type: 'assistant',
    uuid: 'x1',
    message: {
      id: 'msg_1',
      model: 'claude-opus-4-7',
      stop_reason: 'tool_use',
      content: [
        'stray',
        { type: 'thinking', thinking: '' },
        { type: 'text', text: 'hi' },
        { type: 'tool_use', id: 'toolu_8', name: 'Bash', input: {} },
        { type: 'redacted_thinking', data: 'x' },
      ],
    },
  });
  assert.deepEqual([f.messageId, f.synthetic, f.stopped, f.blockKey], ['msg_1', false, true, 'x1']);
  assert.deepEqual(f.blocks, [
    { order: 1, kind: 'thinking' },
    { order: 2, kind: 'text' },
    { order: 4, kind: 'redacted' },
  ]);
  assert.deepEqual(f.toolUses, [{ id: 'toolu_8', order: 3 }]);
  const synthetic = fact({ type: 'assistant', message: { id: 'u-u-i-d', model: '<synthetic>', content: 'API Error' } });
  assert.deepEqual([synthetic.synthetic, synthetic.blocks, synthetic.blockKey], [true, [{ order: 0, kind: 'text' }], 'L7']);
});

test('system subtypes, permission modes and agent progress', () => {
  assert.equal(fact({ type: 'system', uuid: 's', subtype: 'compact_boundary', logicalParentUuid: 'z' }).step, 'epoch.boundary');
  assert.equal(fact({ type: 'system', uuid: 's', subtype: 'compact_boundary', logicalParentUuid: 'z' }).logicalParent, 'z');
  assert.equal(fact({ type: 'system', uuid: 's', subtype: 'microcompact_boundary' }).step, 'control.notice');
  assert.equal(fact({ type: 'system', uuid: 's' }).step, 'control.notice');
  assert.deepEqual(
    [fact({ type: 'system', uuid: 's', subtype: 'local_command', content: '<command-name>/exit</command-name>' }).opensRun],
    [true],
  );
  assert.equal(fact({ type: 'permission-mode', permissionMode: 'plan' }).permissionMode, 'plan');
  assert.deepEqual(
    fact({ type: 'progress', uuid: 'g', data: { type: 'agent_progress', agentId: 'a5' }, parentToolUseID: 'toolu_3' }).agentProgress,
    { agentId: 'a5', toolUseId: 'toolu_3' },
  );
});

test('a notification names its task and the tool use that began it', () => {
  assert.deepEqual(
    notificationIds('<task-notification>\n<task-id> b07h5t4ng </task-id>\n<tool-use-id>toolu_test_monitor_42</tool-use-id>'),
    { taskId: 'b07h5t4ng', toolUseId: 'toolu_test_monitor_42' },
  );
  assert.deepEqual(notificationIds('no ids here'), {});
});
