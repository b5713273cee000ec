import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { anyText, promptText, titleOf } from '../../src/dialect/claude-code/prompt.ts';
import type { UserRecord } from '../../src/dialect/claude-code/records.ts';
import { contentPolicy } from '../../src/emit/content.ts';
import { FIXTURES, ingestFresh, removeDir, select, tempDir } from '../helpers.ts';

/** Every session has a title: the runtime's own, else its first prompt (else first text), shortened. */

const TITLES = `SELECT ?session ?title WHERE { ?t a weave:ClaudeCodeTranscript ; weave:sessionId ?session
  FILTER NOT EXISTS { ?t weave:parentTranscript ?p } OPTIONAL { ?t weave:title ?title } } ORDER BY ?session`;

test("every fixture session has a title; the runtime's own where it wrote one, else the first prompt typed", async () => {
  const { dir, store } = await ingestFresh([FIXTURES]);
  try {
    const rows = select(store, TITLES);
    // 28, hardening's depth, ids, malformed, odd, secrets and types sessions, model/resumed-session's two, model/agent-kinds' two, card's two
    assert.equal(rows.length, 40);
    // But fixtures/card's dddd…, whose main file is absent: what titles a session is in that file.
    assert.deepEqual(
      rows.filter((r) => !r.title).map((r) => r.session),
      ['dddddddd-dddd-4ddd-8ddd-dddddddddddd'],
    );
    const title = (prefix: string) => rows.find((r) => r.session.startsWith(prefix))!.title;
    assert.equal(title('11111111'), 'Fix README typo'); // its ai-title record
    assert.equal(title('55555555'), 'records-demo: tests'); // the custom title wins over the AI's
    assert.equal(title('22222222'), 'Legacy demo'); // a legacy summary of its own leaf
    assert.equal(title('10000000'), 'Add a cart total to the checkout page.'); // its first prompt
    // The first prompt a person typed, after injected context (a wrapper the harness wrote).
    assert.equal(title('e3e3e3e3'), 'Pick up the parser work. Initialize emojikey first.');
  } finally {
    await removeDir(dir);
  }
});

test('a prompt title is one line, cut at a word before 80 characters; none from prompts when text is not kept', async () => {
  const work = await tempDir();
  const project = join(work, '-home-ada-titles');
  await mkdir(project);
  const id = 'aaaaaaaa-0000-4000-8000-000000000001';
  const long = 'Please look at the\nparser and tell me why the lexer keeps dropping the last token of every file it reads, then fix it';
  const records = [
    {
      type: 'user',
      uuid: 'u1',
      sessionId: id,
      timestamp: '2026-01-01T00:00:00Z',
      isMeta: true,
      message: { role: 'user', content: '<local-command-caveat>Caveat</local-command-caveat>' },
    },
    {
      type: 'user',
      uuid: 'u2',
      parentUuid: 'u1',
      sessionId: id,
      timestamp: '2026-01-01T00:00:01Z',
      message: { role: 'user', content: '<command-name>/clear</command-name>' },
    },
    {
      type: 'user',
      uuid: 'u3',
      parentUuid: 'u2',
      sessionId: id,
      timestamp: '2026-01-01T00:00:02Z',
      message: { role: 'user', content: [{ type: 'text', text: long }] },
    },
  ];
  await writeFile(join(project, `${id}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  try {
    const kept = await ingestFresh([project]);
    const title = select(kept.store, TITLES)[0].title;
    assert.equal(title, 'Please look at the parser and tell me why the lexer keeps dropping the last…'); // 83 characters whole
    assert.ok(title.length <= 80);
    await removeDir(kept.dir);
    const hashed = await ingestFresh([project], { content: contentPolicy(['text=hash']) });
    assert.deepEqual(select(hashed.store, TITLES), [{ session: id }]);
    await removeDir(hashed.dir);
  } finally {
    await removeDir(work);
  }
});

test('what counts as a prompt, and the fallback text', () => {
  const user = (content: unknown, extra: object = {}) =>
    ({ type: 'user', message: { role: 'user', content }, ...extra }) as unknown as UserRecord;
  assert.equal(promptText(user('Fix the build')), 'Fix the build');
  assert.equal(promptText(user([{ type: 'tool_result', tool_use_id: 't', content: 'ok' }])), undefined);
  assert.equal(promptText(user('<system-reminder>x</system-reminder>')), undefined);
  assert.equal(promptText(user('Fix it', { isSidechain: true })), undefined);
  assert.equal(promptText(user('Fix it', { origin: { kind: 'task-notification' } })), undefined);
  assert.equal(
    promptText(
      user([
        { type: 'text', text: '<ide_opened_file>a.ts</ide_opened_file>' },
        { type: 'text', text: 'and this?' },
      ]),
    ),
    'and this?',
  );
  assert.equal(
    anyText(user('<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>')),
    'init is analyzing \n /init',
  );
  assert.equal(titleOf('init is analyzing \n /init'), 'init is analyzing /init');
  assert.equal(titleOf('x'.repeat(100)), `${'x'.repeat(79)}…`);
});

test("a title's secrets are redacted beyond the session graph: the derived graph and the state file hold none", async () => {
  const work = await tempDir();
  const project = join(work, '-home-ada-titles');
  await mkdir(project);
  const id = 'aaaaaaaa-0000-4000-8000-000000000002';
  const token = (tag: string) => `ghp_${tag.padEnd(36, 'Z')}`;
  const lines = [
    { type: 'user', uuid: 'u1', sessionId: id, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'Deploy it' } },
    { type: 'custom-title', customTitle: `Deploy ${token('CUSTOM')}`, sessionId: id },
    { type: 'ai-title', aiTitle: `AI ${token('AI')}`, sessionId: id },
    { type: 'agent-name', agentName: `agent ${token('AGENT')}`, sessionId: id },
    { type: 'summary', summary: `Summary ${token('SUMMARY')}`, leafUuid: 'u1' },
  ];
  await writeFile(join(project, `${id}.jsonl`), `${lines.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const { dir, store } = await ingestFresh([project]);
  try {
    const hidden = `[redacted github-token, 40 chars]`;
    // The transcript's last-written values (the derived graph file); each record's own stay in the session's.
    const derived = `SELECT ?p ?o WHERE { VALUES ?p { weave:agentName weave:aiTitle weave:customTitle weave:title }
      ?t a weave:ClaudeCodeTranscript ; ?p ?o } ORDER BY ?p`;
    assert.deepEqual(
      select(store, derived).map((r) => [r.p.replace(/.*#/, ''), r.o]),
      [
        ['agentName', `agent ${hidden}`],
        ['aiTitle', `AI ${hidden}`],
        ['customTitle', `Deploy ${hidden}`],
        ['title', `Deploy ${hidden}`],
      ],
    );
    for (const name of await readdir(join(dir, 'graphs'))) {
      if (name.endsWith('.nq') && !name.endsWith('.derived.nq')) continue; // the session graph is the transcript
      const text = await readFile(join(dir, 'graphs', name), 'utf8');
      for (const tag of ['CUSTOM', 'AI', 'AGENT', 'SUMMARY']) assert.ok(!text.includes(token(tag)), `${name} holds ${tag}`);
    }
  } finally {
    await removeDir(dir);
    await removeDir(work);
  }
});
