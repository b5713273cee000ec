import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { available, contentOf, emitted, fileBackup, PROJECT, sorted, whole } from './helpers.ts';

/**
 * Metadata records (no uuid: their ids come from session and line) and progress records, one line
 * each of fixtures/records/-home-ada-records-demo/55555555-….jsonl, with the exact triples.
 */

const S = '55555555-5555-4555-8555-555555555555';
const at = (n: number) => emitted(`${S}.jsonl`, n, S);
const L = (n: number) => `:Event/${S}/L${n}`;
const README = ':File/%2Fhome%2Fada%2Frecords-demo%2FREADME.md';
const file = (node: string, path: string) => [`${node} a weave:File`, `${node} weave:filePath "${path}"`];

test('summary: the title text and the leaf it describes', () => {
  const { triples, references } = at(1);
  assert.deepEqual(triples, sorted(`${L(1)} a weave:SummaryEvent`, `${L(1)} weave:summary "Tidy the docs"`));
  assert.deepEqual(references, [`${L(1)} weave:leafEvent event:m-0002 | weave:leafEventId`]);
});

test('progress: bash, hook, agent and search progress, each reporting on a tool use', () => {
  const bash = `:Event/${S}/pg-0001`;
  const bashData =
    '{"type":"bash_progress","output":"3 passing","fullOutput":"ok 1\\nok 2\\nok 3","elapsedTimeSeconds":2,"totalLines":3,"timeoutMs":120000}';
  const b = at(4);
  assert.deepEqual(
    b.triples,
    sorted(
      `${bash} a weave:ProgressEvent`,
      `${bash} weave:progressKind "bash_progress"`,
      `${bash} weave:toolUseId "bash-progress-0"`,
      whole(bash, 'progressJson', `json:${bashData}`),
    ),
  );
  assert.deepEqual(b.references, [`${bash} weave:reportsOnToolUse toolUse:toolu_5001 | weave:parentToolUseId`]);

  const hook = `:Event/${S}/pg-0002`;
  const run = `:HookRun/${S}/toolu_5001/PostToolUse`;
  const h = at(5);
  assert.deepEqual(
    h.triples,
    sorted(
      `${hook} a weave:ProgressEvent`,
      `${hook} weave:progressKind "hook_progress"`,
      // The hook event and toolUseID are its run's.
      `${hook} weave:hookName "PostToolUse:Bash"`,
      `${hook} weave:hookCommand "notify done"`,
      `${hook} weave:hookRun ${run}`,
      `${run} a weave:HookRun`,
      `${run} weave:hookEvent "PostToolUse"`,
      `${run} weave:toolUseId "toolu_5001"`,
      whole(
        hook,
        'progressJson',
        'json:{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Bash","command":"notify done"}',
      ),
    ),
  );
  assert.deepEqual(h.references, [
    `${hook} weave:reportsOnToolUse toolUse:toolu_5001 | weave:parentToolUseId`,
    `${run} weave:forToolUse toolUse:toolu_5001`,
  ]);

  const agent = `:Event/${S}/pg-0003`;
  const a = at(6);
  assert.ok(a.triples.includes(`${agent} weave:subagentId "a5e5e5e"`));
  assert.ok(a.triples.includes(`${agent} weave:progressKind "agent_progress"`));
  assert.deepEqual(a.references, [`${agent} weave:reportsOnToolUse toolUse:toolu_5001 | weave:parentToolUseId`]);

  const search = `:Event/${S}/pg-0004`;
  assert.deepEqual(
    at(7).triples,
    sorted(
      `${search} a weave:ProgressEvent`,
      `${search} weave:progressKind "query_update"`,
      `${search} weave:toolUseId "srvtoolu_5001"`,
      whole(search, 'progressJson', 'json:{"type":"query_update","query":"vitest flaky"}'),
    ),
  );
});

test('a tool output persisted to a side file: the transcript keeps only its size, so it is size_only', () => {
  const persisted = (l: string) => l.includes('weave:persistedOutput') || l.includes('/persistedOutput');
  assert.deepEqual(
    at(8).triples.filter(persisted),
    sorted(
      contentOf(`:Turn/${S}/m-0003`, 'persistedOutput', 'SizeOnly', 61600, '/toolUseResult/persistedOutputSize'),
      `:Turn/${S}/m-0003 weave:persistedOutputPath "/home/ada/.claude/projects/-home-ada-records-demo/${S}/tool-results/b5001.txt"`,
    ),
  );
  // No value: the output itself is not in the transcript.
  assert.ok(!at(8).triples.some((l) => l.startsWith(`:Turn/${S}/m-0003 weave:persistedOutput `)));
});

test('file-history-snapshot: each tracked file a node, each backup with its version, file and time', () => {
  const e = L(9);
  const newFile = ':File/%2Fhome%2Fada%2Frecords-demo%2FNEW.md';
  // A backup is named by its session and what the snapshot says of it, so snapshots that list it again share it.
  const backups = JSON.parse(readFileSync(join(PROJECT, `${S}.jsonl`), 'utf8').split('\n')[8]).snapshot.trackedFileBackups;
  const b1 = fileBackup(S, '/home/ada/records-demo/README.md', backups['/home/ada/records-demo/README.md']);
  const b2 = fileBackup(S, '/home/ada/records-demo/NEW.md', backups['/home/ada/records-demo/NEW.md']);
  assert.deepEqual(
    at(9).triples,
    sorted(
      `${e} a weave:FileHistorySnapshot`,
      `${e} weave:snapshotMessageId "m-0001"`,
      `${e} weave:isSnapshotUpdate false`,
      `${e} weave:snapshotOfMessageId "m-0001"`,
      `${e} weave:snapshotTime 2026-11-05T08:00:01.000Z^^dateTime`,
      `${e} weave:tracksFile ${README}`,
      file(README, '/home/ada/records-demo/README.md'),
      `${e} weave:hasFileBackup ${b1}`,
      `${b1} a weave:FileBackup`,
      `${b1} weave:file ${README}`,
      `${b1} weave:backupFileName "3f2a@v1"`,
      `${b1} weave:backupVersion 1`,
      `${b1} weave:backupTime 2026-11-05T08:00:08.000Z^^dateTime`,
      `${e} weave:tracksFile ${newFile}`,
      file(newFile, '/home/ada/records-demo/NEW.md'),
      `${e} weave:hasFileBackup ${b2}`,
      `${b2} a weave:FileBackup`,
      `${b2} weave:file ${newFile}`,
      // backupFileName null: the file did not exist before the turn.
      `${b2} weave:fileExisted false`,
      `${b2} weave:backupVersion 1`,
      `${b2} weave:backupTime 2026-11-05T08:00:08.500Z^^dateTime`,
    ),
  );
});

test('file-history-delta: a snapshot of one tracked file', () => {
  const e = L(10);
  assert.deepEqual(
    at(10).triples,
    sorted(
      `${e} a weave:FileHistoryDelta`,
      `${e} a weave:FileHistorySnapshot`,
      `${e} weave:snapshotMessageId "m-0003"`,
      `${e} weave:baseSnapshotMessageId "m-0001"`,
      `${e} weave:backupJson json:{"backupFileName":"3f2a@v2","version":2}`,
      `${e} weave:tracksFile ${README}`,
      file(README, '/home/ada/records-demo/README.md'),
    ),
  );
});

test('queue-operation: the operation and the queued content', () => {
  const e = L(11);
  const content = '"<task-notification>\\n<task-id>a5e5e5e</task-id>\\n<status>completed</status>\\n</task-notification>"';
  assert.deepEqual(
    at(11).triples,
    sorted(`${e} a weave:QueueOperation`, `${e} weave:queueOperation "enqueue"`, available(e, 'text', content, 94, '/content')),
  );
  assert.deepEqual(at(12).triples, sorted(`${L(12)} a weave:QueueOperation`, `${L(12)} weave:queueOperation "dequeue"`));
});

test('last-prompt, permission-mode, mode, agent-setting, pr-link, ai-title, custom-title, agent-name', () => {
  const last = at(13);
  assert.deepEqual(last.triples, sorted(`${L(13)} a weave:LastPromptEvent`, `${L(13)} weave:lastPrompt "Run the tests"`));
  assert.deepEqual(last.references, [`${L(13)} weave:leafEvent event:m-0003 | weave:leafEventId`]);
  assert.deepEqual(at(14).triples, sorted(`${L(14)} a weave:PermissionModeEvent`, `${L(14)} weave:permissionMode "acceptEdits"`));
  assert.deepEqual(at(15).triples, sorted(`${L(15)} a weave:ModeEvent`, `${L(15)} weave:mode "normal"`));
  assert.deepEqual(at(16).triples, sorted(`${L(16)} a weave:AgentSettingEvent`, `${L(16)} weave:agentSetting "claude"`));
  assert.deepEqual(
    at(17).triples,
    sorted(
      `${L(17)} a weave:PrLinkEvent`,
      `${L(17)} weave:prNumber 42`,
      `${L(17)} weave:prUrl "https://github.com/ada/records-demo/pull/42"`,
      `${L(17)} weave:prRepository "ada/records-demo"`,
    ),
  );
  assert.deepEqual(at(19).triples, sorted(`${L(19)} a weave:AiTitleEvent`, `${L(19)} weave:aiTitle "Run the tests (draft)"`));
  assert.deepEqual(at(21).triples, sorted(`${L(21)} a weave:CustomTitleEvent`, `${L(21)} weave:customTitle "records-demo: tests"`));
  assert.deepEqual(at(22).triples, sorted(`${L(22)} a weave:AgentNameEvent`, `${L(22)} weave:agentName "records-demo: tests"`));
});

test('worktree-state, bridge-session and cost-state: typed, the rest kept in extraJson', () => {
  assert.deepEqual(
    at(23).triples,
    sorted(
      `${L(23)} a weave:WorktreeStateEvent`,
      `${L(23)} weave:worktreePath "/home/ada/records-demo/.claude/worktrees/tests"`,
      `${L(23)} weave:worktreeName "tests"`,
      `${L(23)} weave:worktreeBranch "worktree-tests"`,
      `${L(23)} weave:originalCwd "/home/ada/records-demo"`,
      `${L(23)} weave:originalBranch "main"`,
      `${L(23)} weave:originalHeadCommit "0a1b2c3"`,
      `${L(23)} weave:extraJson json:{"worktreeSession":{"sessionId":"${S}"}}`,
    ),
  );
  assert.deepEqual(
    at(24).triples,
    sorted(
      `${L(24)} a weave:BridgeSessionEvent`,
      `${L(24)} weave:bridgeSessionId "cse_01Demo"`,
      `${L(24)} weave:lastSequenceNum 3`,
      `${L(24)} weave:extraJson json:{"ownerAccountUuid":"acct-0001","ownerOrganizationUuid":"org-0001"}`,
    ),
  );
  assert.deepEqual(
    at(25).triples,
    sorted(
      `${L(25)} a weave:CostStateEvent`,
      `${L(25)} weave:totalCostUsd 1.25`,
      `${L(25)} weave:totalApiDurationMs 61000`,
      `${L(25)} weave:totalApiDurationWithoutRetriesMs 60000`,
      `${L(25)} weave:totalToolDurationMs 5000`,
      `${L(25)} weave:totalDurationMs 900000`,
      `${L(25)} weave:linesAdded 10`,
      `${L(25)} weave:linesRemoved 2`,
      `${L(25)} weave:hasUnknownModelCost false`,
      `${L(25)} weave:modelUsageJson json:{"claude-opus-4-6":{"inputTokens":3,"outputTokens":4,"costUSD":1.25}}`,
      `${L(25)} weave:extraJson json:{"startTime":1793865600000}`,
    ),
  );
});

test('newer kinds get their class with every field kept; a kind never seen is a plain event', () => {
  assert.deepEqual(at(26).triples, sorted(`${L(26)} a weave:FrameLinkEvent`, `${L(26)} weave:extraJson json:{"artifactCount":1}`));
  assert.deepEqual(
    at(27).triples,
    sorted(`${L(27)} a weave:ContinuedInEvent`, `${L(27)} weave:extraJson json:{"continuedIn":"99999999-9999-4999-8999-999999999999"}`),
  );
  assert.deepEqual(at(28).triples, sorted(`${L(28)} a weave:AtisLatchEvent`, `${L(28)} weave:extraJson json:{"atis":""}`));
  assert.deepEqual(at(29).triples, [`${L(29)} weave:extraJson json:{"beam":2}`]);
});
