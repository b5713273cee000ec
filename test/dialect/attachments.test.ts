import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachmentClass, listedSkills } from '../../src/dialect/claude-code/emit/attachment.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest, WEAVE } from '../../src/ingest.ts';
import { removeDir, tempDir } from '../helpers.ts';
import { available, contentOf, emitted, RECORDS, sorted } from './helpers.ts';

/**
 * Every attachment subtype of the format reference, one line each of
 * fixtures/records/-home-ada-records-demo/33333333-….jsonl, with the exact triples it emits
 * (the envelope, which the spine tests cover, left out).
 */

const S = '33333333-3333-4333-8333-333333333333';
const FILE = `${S}.jsonl`;
const at = (n: number) => emitted(FILE, n, S);
const E = (id: string) => `:Event/${S}/${id}`;
const RUN = (id: string, event: string) => `:HookRun/${S}/${id}/${event}`;
const README = ':File/%2Fhome%2Fada%2Frecords-demo%2FREADME.md';

const attachment = (e: string, cls: string, kind: string) => [
  `${e} a weave:Attachment`,
  `${e} a weave:${cls}`,
  `${e} weave:attachmentKind "${kind}"`,
];
const hookRun = (e: string, run: string, id: string, hookEvent: string) => [
  `${e} weave:hookRun ${run}`,
  `${e} weave:toolUseId "${id}"`,
  `${e} weave:hookEvent "${hookEvent}"`,
  `${run} a weave:HookRun`,
  `${run} weave:hookEvent "${hookEvent}"`,
  `${run} weave:toolUseId "${id}"`,
];

test('the carving: edge-bearing kinds get their class, registries are deltas, every other kind is a state', () => {
  assert.deepEqual(
    [
      'queued_command',
      'hook_additional_context',
      'hook_system_message',
      'nested_memory',
      'file',
      'edited_text_file',
      'compact_file_reference',
      'directory',
      'plan_file_reference',
      'invoked_skills',
      'hook_success',
      'hook_non_blocking_error',
      'hook_blocking_error',
      'hook_cancelled',
      'hook_error_during_execution',
      'hook_stopped_continuation',
      'hook_permission_decision',
      'hook_deferred_tool',
      'deferred_tools_delta',
      'mcp_instructions_delta',
      'agent_listing_delta',
      'skill_listing',
      'task_reminder',
      'plan_mode',
      'date_change',
      'prompt_snapshot',
      'never_seen_before',
    ].map((kind) => `${kind}:${attachmentClass(kind)}`),
    [
      'queued_command:QueuedCommandAttachment',
      'hook_additional_context:HookContextAttachment',
      'hook_system_message:HookContextAttachment',
      'nested_memory:NestedMemoryAttachment',
      'file:FileRefAttachment',
      'edited_text_file:FileRefAttachment',
      'compact_file_reference:FileRefAttachment',
      'directory:FileRefAttachment',
      'plan_file_reference:FileRefAttachment',
      'invoked_skills:InvokedSkillsAttachment',
      'hook_success:HookExecAttachment',
      'hook_non_blocking_error:HookExecAttachment',
      'hook_blocking_error:HookExecAttachment',
      'hook_cancelled:HookExecAttachment',
      'hook_error_during_execution:HookExecAttachment',
      'hook_stopped_continuation:HookExecAttachment',
      'hook_permission_decision:HookExecAttachment',
      'hook_deferred_tool:HookExecAttachment',
      'deferred_tools_delta:RegistryDelta',
      'mcp_instructions_delta:RegistryDelta',
      'agent_listing_delta:RegistryDelta',
      'skill_listing:StateAttachment',
      'task_reminder:StateAttachment',
      'plan_mode:StateAttachment',
      'date_change:StateAttachment',
      'prompt_snapshot:StateAttachment',
      'never_seen_before:StateAttachment',
    ],
  );
});

test('hook_success: a hook command outcome on its hook run, with its output as texts', () => {
  const e = E('at-0001');
  const { triples, references } = at(2);
  assert.deepEqual(
    triples,
    sorted(
      attachment(e, 'HookExecAttachment', 'hook_success'),
      `${e} weave:hookName "SessionStart:startup"`,
      hookRun(e, RUN('hk-0001', 'SessionStart'), 'hk-0001', 'SessionStart'),
      `${e} weave:hookOutcome "success"`,
      `${e} weave:hookCommand "notify start"`,
      `${e} weave:exitCode 0`,
      `${e} weave:durationMs 131`,
      `${e} weave:hookFailed false`,
      available(e, 'stdout', '"session registered\\n"', 19, '/attachment/stdout'),
      available(e, 'stderr', '""', 0, '/attachment/stderr'),
      available(e, 'text', '""', 0, '/attachment/content'),
    ),
  );
  assert.deepEqual(references, [`${RUN('hk-0001', 'SessionStart')} weave:forToolUse toolUse:hk-0001`]);
});

test('hook_additional_context: each context string is a text of the hook context attachment', () => {
  const e = E('at-0002');
  assert.deepEqual(
    at(3).triples,
    sorted(
      attachment(e, 'HookContextAttachment', 'hook_additional_context'),
      `${e} weave:hookName "SessionStart"`,
      hookRun(e, RUN('SessionStart', 'SessionStart'), 'SessionStart', 'SessionStart'),
      available(e, 'text', '"Remember: tabs, not spaces."', 27, '/attachment/content/0', 0),
      available(e, 'text', '"Branch: main"', 12, '/attachment/content/1', 1),
    ),
  );
});

test('registry deltas: tools, mcp and agents, one value per name; the rest of the payload is kept', () => {
  const tools = E('at-0003');
  assert.deepEqual(
    at(4).triples,
    sorted(
      attachment(tools, 'RegistryDelta', 'deferred_tools_delta'),
      `${tools} weave:registryName "tools"`,
      `${tools} weave:addedNames "Read"`,
      `${tools} weave:addedNames "mcp__github__create_pull_request"`,
      `${tools} weave:removedNames "TodoWrite"`,
      `${tools} weave:extraJson json:{"attachment":{"addedLines":["Read","mcp__github__create_pull_request"]}}`,
    ),
  );
  const mcp = E('at-0004');
  assert.deepEqual(
    at(5).triples,
    sorted(
      attachment(mcp, 'RegistryDelta', 'mcp_instructions_delta'),
      `${mcp} weave:registryName "mcp"`,
      `${mcp} weave:addedNames "github"`,
      `${mcp} weave:extraJson json:{"attachment":{"addedBlocks":["## github\\nUse it for pull requests."]}}`,
    ),
  );
  const agents = E('at-0005');
  assert.deepEqual(
    at(6).triples,
    sorted(
      attachment(agents, 'RegistryDelta', 'agent_listing_delta'),
      `${agents} weave:registryName "agents"`,
      `${agents} weave:addedNames "general-purpose"`,
      `${agents} weave:addedNames "Explore"`,
      `${agents} weave:extraJson json:{"attachment":{"addedLines":["- general-purpose","- Explore"],"isInitial":true,"showConcurrencyNote":false}}`,
    ),
  );
});

test('skill_listing is a state attachment with its payload whole, and names the skills it lists, plugin skills whole', () => {
  const e = E('at-0006');
  const payload =
    '{"type":"skill_listing","content":"- pdf: Read and fill PDF forms\\n- xlsx: Edit spreadsheets\\n- docs:review: Review the docs\\n- docs:publish: Publish the docs","skillCount":4,"isInitial":true}';
  // A plugin's skills share the plugin's name before their colon: cut there, both were "docs", stated twice.
  assert.deepEqual(
    at(7).triples,
    sorted(
      attachment(e, 'StateAttachment', 'skill_listing'),
      available(e, 'attachmentJson', `json:${payload}`, Buffer.byteLength(payload), '/attachment'),
      `${e} weave:skillName "pdf"`,
      `${e} weave:skillName "xlsx"`,
      `${e} weave:skillName "docs:review"`,
      `${e} weave:skillName "docs:publish"`,
    ),
  );
  // 126 bytes for the two plain skills, 32 and 34 for the two lines (each with its escaped "\\n") added.
  assert.equal(Buffer.byteLength(payload), 192);
  assert.deepEqual(listedSkills({ type: 'skill_listing', names: ['a', 'b', 'a'], content: '- c: d' }), ['a', 'b']);
  assert.deepEqual(listedSkills({ type: 'skill_listing', content: '- p:s: one\n- p:s: again\n- bare:' }), ['p:s', 'bare']);
});

test('a store built before plugin skills kept their whole name (weave/0.12) reads its sessions again', async () => {
  const dir = await tempDir();
  try {
    const first = await ingest([RECORDS], { storeDir: dir, soul: 'local' });
    const file = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(file, 'utf8')) as { graphs: Record<string, { builtWith?: string }> };
    const entry = manifest.graphs[`urn:soul:local:Weave/graph/${S}`];
    assert.ok(entry.builtWith?.includes(`+${WEAVE}+`));
    entry.builtWith = entry.builtWith!.replace(`+${WEAVE}+`, '+weave/0.12+');
    await writeFile(file, JSON.stringify(manifest));
    const again = await ingest([RECORDS], { storeDir: dir, soul: 'local' });
    // The six sessions of fixtures/records: the one stamped as before is read again, the others are not.
    assert.deepEqual([first.sessions, first.skipped, again.sessions, again.skipped], [6, 0, 1, 5]);
  } finally {
    await removeDir(dir);
  }
});

test('nested_memory links the file it was read from; its text and memory type are read', () => {
  const e = E('at-0007');
  const file = ':File/%2Fhome%2Fada%2Frecords-demo%2Fsrc%2FCLAUDE.md';
  assert.deepEqual(
    at(9).triples,
    sorted(
      attachment(e, 'NestedMemoryAttachment', 'nested_memory'),
      `${e} weave:file ${file}`,
      `${file} a weave:File`,
      `${file} weave:filePath "/home/ada/records-demo/src/CLAUDE.md"`,
      `${e} weave:displayPath "src/CLAUDE.md"`,
      `${e} weave:memoryType "Project"`,
      available(e, 'text', '"Use tabs."', 9, '/attachment/content/content'),
      `${e} weave:extraJson json:{"attachment":{"content":{"path":"/home/ada/records-demo/src/CLAUDE.md"}}}`,
    ),
  );
});

test('file, edited_text_file, compact_file_reference, directory and plan_file_reference link a file node by path', () => {
  const file = E('at-0008');
  assert.deepEqual(
    at(10).triples,
    sorted(
      attachment(file, 'FileRefAttachment', 'file'),
      `${file} weave:file ${README}`,
      `${README} a weave:File`,
      `${README} weave:filePath "/home/ada/records-demo/README.md"`,
      `${file} weave:displayPath "README.md"`,
      available(file, 'text', '"# Demo\\n"', 7, '/attachment/content/file/content'),
      `${file} weave:extraJson json:{"attachment":{"content":{"type":"text","file":{"filePath":"/home/ada/records-demo/README.md","numLines":1,"startLine":1,"totalLines":1}}}}`,
    ),
  );
  const edited = E('at-0013');
  const main = ':File/%2Fhome%2Fada%2Frecords-demo%2Fsrc%2Fmain.ts';
  assert.deepEqual(
    at(17).triples,
    sorted(
      attachment(edited, 'FileRefAttachment', 'edited_text_file'),
      `${edited} weave:file ${main}`,
      `${main} a weave:File`,
      `${main} weave:filePath "/home/ada/records-demo/src/main.ts"`,
      // "1→let x = 1;": the arrow is three bytes.
      available(edited, 'text', '"1\u2192let x = 1;"', 14, '/attachment/snippet'),
    ),
  );
  // The same path, the same node, as in line 10.
  const compact = E('at-0014');
  assert.deepEqual(
    at(18).triples,
    sorted(
      attachment(compact, 'FileRefAttachment', 'compact_file_reference'),
      `${compact} weave:file ${README}`,
      `${README} a weave:File`,
      `${README} weave:filePath "/home/ada/records-demo/README.md"`,
      `${compact} weave:displayPath "README.md"`,
    ),
  );
  const dir = E('at-0015');
  const src = ':File/%2Fhome%2Fada%2Frecords-demo%2Fsrc';
  assert.deepEqual(
    at(19).triples,
    sorted(
      attachment(dir, 'FileRefAttachment', 'directory'),
      `${dir} weave:file ${src}`,
      `${src} a weave:File`,
      `${src} weave:filePath "/home/ada/records-demo/src"`,
      `${dir} weave:displayPath "src"`,
      available(dir, 'text', '"CLAUDE.md\\nmain.ts\\n"', 18, '/attachment/content'),
    ),
  );
  const plan = E('at-0016');
  const planFile = ':File/%2Fhome%2Fada%2F.claude%2Fplans%2Ftidy-readme.md';
  assert.deepEqual(
    at(20).triples,
    sorted(
      attachment(plan, 'FileRefAttachment', 'plan_file_reference'),
      `${plan} weave:file ${planFile}`,
      `${planFile} a weave:File`,
      `${planFile} weave:filePath "/home/ada/.claude/plans/tidy-readme.md"`,
      available(plan, 'text', '"# Plan\\n1. Tidy"', 14, '/attachment/planContent'),
    ),
  );
});

test("hook_blocking_error and hook_non_blocking_error are failed outcomes of their tool use's hook runs", () => {
  const blocking = E('at-0009');
  const pre = RUN('toolu_3001', 'PreToolUse');
  const { triples, references } = at(12);
  assert.deepEqual(
    triples,
    sorted(
      attachment(blocking, 'HookExecAttachment', 'hook_blocking_error'),
      `${blocking} weave:hookName "PreToolUse:Edit"`,
      hookRun(blocking, pre, 'toolu_3001', 'PreToolUse'),
      `${blocking} weave:hookOutcome "blocking_error"`,
      `${blocking} weave:hookFailed true`,
      `${blocking} weave:hookCommand "guard readme"`,
      available(blocking, 'hookError', '"README is frozen"', 16, '/attachment/blockingError/blockingError'),
    ),
  );
  assert.deepEqual(references, [`${pre} weave:forToolUse toolUse:toolu_3001`]);

  const nonBlocking = E('at-0010');
  assert.deepEqual(
    at(13).triples,
    sorted(
      attachment(nonBlocking, 'HookExecAttachment', 'hook_non_blocking_error'),
      `${nonBlocking} weave:hookName "PostToolUse:Edit"`,
      hookRun(nonBlocking, RUN('toolu_3001', 'PostToolUse'), 'toolu_3001', 'PostToolUse'),
      `${nonBlocking} weave:hookOutcome "non_blocking_error"`,
      `${nonBlocking} weave:hookFailed true`,
      `${nonBlocking} weave:hookCommand "npm run lint"`,
      `${nonBlocking} weave:exitCode 1`,
      `${nonBlocking} weave:durationMs 75`,
      available(nonBlocking, 'stderr', '"lint: 2 warnings"', 16, '/attachment/stderr'),
      available(nonBlocking, 'stdout', '""', 0, '/attachment/stdout'),
    ),
  );
});

test('the other hook outcomes: cancelled, error during execution, stopped continuation, permission decision, deferred tool', () => {
  const cancelled = E('at-0018');
  assert.deepEqual(
    at(22).triples,
    sorted(
      attachment(cancelled, 'HookExecAttachment', 'hook_cancelled'),
      `${cancelled} weave:hookName "PostToolUse:Edit"`,
      hookRun(cancelled, RUN('toolu_3001', 'PostToolUse'), 'toolu_3001', 'PostToolUse'),
      `${cancelled} weave:hookOutcome "cancelled"`,
      `${cancelled} weave:hookFailed true`,
      `${cancelled} weave:hookCommand "slow check"`,
      `${cancelled} weave:durationMs 60000`,
      `${cancelled} weave:timedOut true`,
    ),
  );
  const crashed = E('at-0019');
  assert.deepEqual(
    at(23).triples,
    sorted(
      attachment(crashed, 'HookExecAttachment', 'hook_error_during_execution'),
      `${crashed} weave:hookName "Stop"`,
      hookRun(crashed, RUN('hk-0002', 'Stop'), 'hk-0002', 'Stop'),
      `${crashed} weave:hookOutcome "error_during_execution"`,
      `${crashed} weave:hookFailed true`,
      `${crashed} weave:hookCommand "missing-tool"`,
      `${crashed} weave:durationMs 3`,
      available(crashed, 'text', '"spawn missing-tool ENOENT"', 25, '/attachment/content'),
    ),
  );
  const stopped = E('at-0020');
  assert.deepEqual(
    at(24).triples,
    sorted(
      attachment(stopped, 'HookExecAttachment', 'hook_stopped_continuation'),
      `${stopped} weave:hookName "Stop"`,
      hookRun(stopped, RUN('hk-0002', 'Stop'), 'hk-0002', 'Stop'),
      `${stopped} weave:hookOutcome "stopped_continuation"`,
      `${stopped} weave:hookFailed false`,
      available(stopped, 'text', '"Tests must pass first"', 21, '/attachment/message'),
    ),
  );
  const decision = E('at-0021');
  assert.deepEqual(
    at(25).triples,
    sorted(
      attachment(decision, 'HookExecAttachment', 'hook_permission_decision'),
      hookRun(decision, RUN('toolu_3001', 'PermissionRequest'), 'toolu_3001', 'PermissionRequest'),
      `${decision} weave:hookOutcome "permission_decision"`,
      `${decision} weave:hookFailed false`,
      `${decision} weave:permissionDecision "allow"`,
    ),
  );
  const deferred = E('at-0022');
  assert.deepEqual(
    at(26).triples,
    sorted(
      attachment(deferred, 'HookExecAttachment', 'hook_deferred_tool'),
      `${deferred} weave:hookName "PreToolUse:Edit"`,
      hookRun(deferred, RUN('toolu_3001', 'PreToolUse'), 'toolu_3001', 'PreToolUse'),
      `${deferred} weave:hookOutcome "deferred_tool"`,
      `${deferred} weave:hookFailed false`,
      `${deferred} weave:toolName "Edit"`,
      `${deferred} weave:permissionMode "default"`,
      available(deferred, 'toolInput', 'json:{"file_path":"/home/ada/records-demo/README.md"}', 48, '/attachment/toolInput'),
    ),
  );
});

test('hook_system_message is hook context', () => {
  const e = E('at-0017');
  assert.deepEqual(
    at(21).triples,
    sorted(
      attachment(e, 'HookContextAttachment', 'hook_system_message'),
      `${e} weave:hookName "Stop"`,
      hookRun(e, RUN('hk-0002', 'Stop'), 'hk-0002', 'Stop'),
      available(e, 'text', '"Lint is slow today"', 18, '/attachment/content'),
    ),
  );
});

test('invoked_skills links one Skill node per skill, with its body as text', () => {
  const e = E('at-0011');
  assert.deepEqual(
    at(15).triples,
    sorted(
      attachment(e, 'InvokedSkillsAttachment', 'invoked_skills'),
      `${e} weave:invokedSkill :Skill/pdf`,
      ':Skill/pdf a weave:Skill',
      ':Skill/pdf weave:skillName "pdf"',
      ':Skill/pdf weave:skillPath "/home/ada/.claude/skills/pdf/SKILL.md"',
      available(e, 'text', '"# PDF\\nFill forms."', 17, '/attachment/skills/0/content', 0),
    ),
  );
});

test('queued_command: the prompt, its origin kind and server, and the record that queued it', () => {
  const e = E('at-0012');
  const { triples, references } = at(16);
  assert.deepEqual(
    triples,
    sorted(
      attachment(e, 'QueuedCommandAttachment', 'queued_command'),
      available(e, 'text', '"also update CHANGELOG"', 21, '/attachment/prompt'),
      `${e} weave:commandMode "prompt"`,
      `${e} weave:origin json:{"kind":"channel","server":"slack"}`,
      `${e} weave:originKind "channel"`,
      `${e} weave:originServer "slack"`,
      `${e} weave:promptOrigin :PromptOrigin/channel/slack`,
      ':PromptOrigin/channel/slack a weave:PromptOrigin',
      ':PromptOrigin/channel/slack weave:originKind "channel"',
      ':PromptOrigin/channel/slack weave:originServer "slack"',
    ),
  );
  assert.deepEqual(references, [`${e} weave:sourceEvent event:u-3001 | weave:sourceEventId`]);
});

test('a queued prompt with an image is content blocks, the image kept as its digest', () => {
  const e = E('at-0026');
  const text = `:ContentBlock/${S}/at-0026/0`;
  const image = `:ContentBlock/${S}/at-0026/1`;
  // printf PNGDATA | sha256sum
  const sha = '2d4566582844690f8634a8b2534ea5221560038c6c0650c99140759bad603ae2';
  assert.deepEqual(
    at(30).triples,
    sorted(
      attachment(e, 'QueuedCommandAttachment', 'queued_command'),
      `${e} weave:commandMode "prompt"`,
      `${e} weave:origin json:{"kind":"human"}`,
      `${e} weave:originKind "human"`,
      `${e} weave:promptOrigin :PromptOrigin/human`,
      ':PromptOrigin/human a weave:PromptOrigin',
      ':PromptOrigin/human weave:originKind "human"',
      `${e} weave:extraJson json:{"attachment":{"imagePasteIds":[1]}}`,
      `${e} weave:hasContentBlock ${text}`,
      `${text} a weave:ContentBlock`,
      `${text} a weave:TextBlock`,
      `${text} weave:blockOrder 0`,
      available(text, 'text', '"and this screenshot"', 19, '/attachment/prompt/0/text'),
      `${e} weave:hasContentBlock ${image}`,
      `${image} a weave:ContentBlock`,
      `${image} a weave:ImageBlock`,
      `${image} weave:blockOrder 1`,
      `${image} weave:sourceType "base64"`,
      `${image} weave:mediaType "image/png"`,
      `${image} weave:byteLength 7`,
      `${image} weave:sha256 "${sha}"`,
      contentOf(image, 'mediaData', 'HashOnly', 7, '/attachment/prompt/1/source/data', { sha256: sha }),
    ),
  );
});

test('value-only kinds and a kind never seen are one state attachment with the payload whole', () => {
  const reminder = E('at-0023');
  assert.deepEqual(
    at(27).triples,
    sorted(
      attachment(reminder, 'StateAttachment', 'task_reminder'),
      available(reminder, 'attachmentJson', 'json:{"type":"task_reminder","content":[],"itemCount":0}', 51, '/attachment'),
    ),
  );
  const date = E('at-0024');
  assert.deepEqual(
    at(28).triples,
    sorted(
      attachment(date, 'StateAttachment', 'date_change'),
      available(date, 'attachmentJson', 'json:{"type":"date_change","newDate":"2026-11-04"}', 45, '/attachment'),
    ),
  );
  const unknown = E('at-0025');
  assert.deepEqual(
    at(29).triples,
    sorted(
      attachment(unknown, 'StateAttachment', 'hologram_projection'),
      available(unknown, 'attachmentJson', 'json:{"type":"hologram_projection","beam":{"x":1}}', 45, '/attachment'),
    ),
  );
});
