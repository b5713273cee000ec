import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { discoverSessions, defaultProjectsRoot } from '../src/dialect/claude-code/discover.ts';
import { readLines } from '../src/acquire/lines.ts';
import { FIXTURES, removeDir, tempDir } from './helpers.ts';

const PROJECT = join(FIXTURES, 'spine', '-home-ada-weave-demo');
const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';

test('a project folder yields each session with its side files in all three layouts', async () => {
  const sessions = await discoverSessions([PROJECT]);
  assert.deepEqual(
    sessions.map((s) => s.sessionId),
    [S1, S2],
  );
  const [one, two] = sessions;
  assert.equal(one.main?.path, join(PROJECT, `${S1}.jsonl`));
  assert.deepEqual(
    one.subagents.map((t) => [t.layout, t.agentId, t.workflowRunId, t.metaPath?.endsWith('.meta.json')]),
    [
      ['subagents', 'a1b2c3d', undefined, true],
      ['workflow', 'a9f8e7d6c5b4a3921', 'run42', true],
    ],
  );
  assert.deepEqual(one.journals, [join(PROJECT, S1, 'subagents', 'workflows', 'wf_run42', 'journal.jsonl')]);
  // The 2.0-era agent file beside the sessions belongs to S2 by the sessionId in its records.
  assert.deepEqual(
    two.subagents.map((t) => [t.layout, t.agentId]),
    [['beside', '5e5e5e5e']],
  );
});

test('a single session file brings its sub-agent files along', async () => {
  const [session, ...rest] = await discoverSessions([join(PROJECT, `${S1}.jsonl`)]);
  assert.equal(session.sessionId, S1);
  assert.equal(session.subagents.length, 2);
  // The beside agent file of another session is found too, and grouped under its own session.
  assert.deepEqual(
    rest.map((s) => [s.sessionId, s.main, s.subagents.length]),
    [[S2, undefined, 1]],
  );
});

test('the projects root comes from CLAUDE_CONFIG_DIR, else ~/.claude', () => {
  assert.equal(defaultProjectsRoot({ CLAUDE_CONFIG_DIR: '/cfg' }), '/cfg/projects');
  assert.match(defaultProjectsRoot({}), /\.claude\/projects$/);
});

test('lines stream with exact byte offsets, CRLF, multi-byte text and an unterminated tail', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'x.jsonl');
    await writeFile(path, Buffer.from('{"a":"é"}\r\n\n{"b":2}\n{"c":', 'utf8'));
    const lines = [];
    for await (const line of readLines(path)) lines.push(line);
    assert.deepEqual(lines, [
      { lineNo: 1, offset: 0, byteLength: 10, text: '{"a":"é"}', terminated: true },
      { lineNo: 2, offset: 12, byteLength: 0, text: '', terminated: true },
      { lineNo: 3, offset: 13, byteLength: 7, text: '{"b":2}', terminated: true },
      { lineNo: 4, offset: 21, byteLength: 5, text: '{"c":', terminated: false },
    ]);
  } finally {
    await removeDir(dir);
  }
});

test('lines longer than the read buffer are joined whole', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'long.jsonl');
    const long = 'x'.repeat(3 * (1 << 20) + 17);
    await writeFile(path, `${long}\nend\n`);
    const lines = [];
    for await (const line of readLines(path)) lines.push([line.lineNo, line.offset, line.text.length]);
    assert.deepEqual(lines, [
      [1, 0, long.length],
      [2, long.length + 1, 3],
    ]);
  } finally {
    await removeDir(dir);
  }
});

test('copies of one session in two folders are two sessions, each with its own side files', async () => {
  const dir = await tempDir();
  try {
    for (const sub of ['a', 'b']) {
      await mkdir(join(dir, sub));
      await writeFile(join(dir, sub, `${S1}.jsonl`), '{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}\n');
    }
    // A 2.0-era agent file beside the second copy only.
    await writeFile(
      join(dir, 'b', 'agent-0badc0de.jsonl'),
      `{"type":"user","uuid":"w","sessionId":"${S1}","message":{"role":"user","content":"Warmup"}}\n`,
    );
    const sessions = await discoverSessions([dir]);
    assert.deepEqual(
      sessions.map((s) => [s.projectDir.slice(dir.length), s.subagents.length]),
      [
        ['/a', 0],
        ['/b', 1],
      ],
    );
    assert.equal(sessions[0].sessionId, S1);
    assert.match(sessions[1].sessionId, new RegExp(`^${S1}~[0-9a-f]{8}$`));
  } finally {
    await removeDir(dir);
  }
});
