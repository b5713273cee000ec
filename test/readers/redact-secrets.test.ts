import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readdir, readFile, appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contentPolicy } from '../../src/emit/content.ts';
import { ingest } from '../../src/ingest.ts';
import { marker, redactLine } from '../../src/readers/redact.ts';
import { openStore } from '../../src/store/store.ts';
import { verify } from '../../src/verify.ts';
import { FIXTURES, removeDir, select, tempDir } from '../helpers.ts';
import { PLANTED_SECRETS } from './helpers.ts';

/**
 * Issue 25, item 5: `--redact-secrets` for users who want no secret stored at all. The session
 * graph holds every line with its secrets redacted (a malformed line's raw text too), no archive
 * is kept, and weave verify still proves every text, against the source redacted the same way.
 */

test('--redact-secrets: no file of the store holds a secret, none is archived, verify proves every text', async () => {
  const dir = await tempDir();
  try {
    const projects = join(dir, 'projects');
    await cp(join(FIXTURES, 'hardening', 'secrets'), projects, { recursive: true });
    const file = join(projects, '-home-ada-vault', '5ec2e75e-0000-4000-8000-000000000001.jsonl');
    // Line 7: not JSON, a token in it.
    await appendFile(file, '{"type": "user", "oops ghp_R8mK2pQ7vX4nL9sT1wY6zA3bC5dE0fG2hJ4k\n');
    const store = join(dir, 'store');
    await ingest([projects], { storeDir: store, soul: 'local', content: { ...contentPolicy(), redactSecrets: true } });

    const files = (await readdir(store, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
    assert.ok(!files.some((e) => e.parentPath.includes('archive')), 'no archive');
    for (const e of files) {
      const text = await readFile(join(e.parentPath, e.name), 'utf8');
      for (const s of PLANTED_SECRETS)
        for (let i = 0; i + 8 <= s.length; i++) assert.ok(!text.includes(s.slice(i, i + 8)), `${e.name} holds ${s}`);
    }

    const { store: ox } = await openStore(store);
    const prompt = select(ox, 'SELECT ?text WHERE { ?t weave:sourceLine 5 ; weave:hasContentBlock/weave:text ?text }');
    assert.deepEqual(prompt, [{ text: `No, use password=${marker('password', 14)}` }]);
    const raw = select(ox, 'SELECT ?raw WHERE { ?m a weave:MalformedLine ; weave:rawText ?raw }');
    assert.deepEqual(raw, [{ raw: `{"type": "user", "oops ${marker('github-token', 40)}` }]);

    const report = await verify({ storeDir: store });
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.sessions.map((r) => [r.lines, r.events, r.malformed, r.contents, r.mismatched]),
      // Eight texts: the malformed line's is one (weave/0.16).
      [[7, 6, 1, 8, 0]],
    );
  } finally {
    await removeDir(dir);
  }
});

test('redactLine redacts each string of a record, keeps its numbers as written, and leaves a line without a secret as it is', () => {
  const line = '{"a": "key AKIAQ3EGRV7X2LMNBC4D", "n": 123456789012345678901234567890, "b": ["x"]}';
  assert.equal(redactLine(line), `{"a":"key ${marker('aws-access-key-id', 20)}","n":123456789012345678901234567890,"b":["x"]}`);
  const clean = '{"a": "nothing\\nhere", "n": 1.0}';
  assert.equal(redactLine(clean), clean);
  assert.equal(redactLine('not json AKIAQ3EGRV7X2LMNBC4D'), `not json ${marker('aws-access-key-id', 20)}`);
});

test("--redact-secrets: a sub-agent's .meta.json is stored with its secrets redacted, as its lines are", async () => {
  const dir = await tempDir();
  try {
    const projects = join(dir, 'projects');
    await cp(join(FIXTURES, 'spine'), projects, { recursive: true });
    const token = 'ghp_M3taD3scR1pt10nT0k3nAbCdEfGhIjKlMnOp';
    const meta = join(projects, '-home-ada-weave-demo', '11111111-1111-4111-8111-111111111111', 'subagents', 'agent-a1b2c3d.meta.json');
    await writeFile(meta, JSON.stringify({ agentType: 'general-purpose', description: `Review with ${token}`, toolUseId: 'toolu_0003' }));
    const store = join(dir, 'store');
    await ingest([projects], { storeDir: store, soul: 'local', content: { ...contentPolicy(), redactSecrets: true } });

    for (const e of (await readdir(store, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()))
      assert.ok(!(await readFile(join(e.parentPath, e.name), 'utf8')).includes(token.slice(4, 20)), `${e.name} holds the token`);
    const { store: ox } = await openStore(store);
    const description = `Review with ${marker('github-token', 40)}`;
    assert.deepEqual(
      select(
        ox,
        'SELECT ?d ?json WHERE { ?t weave:launchingToolUseId "toolu_0003" ; weave:agentDescription ?d ; weave:agentMetaJson ?json }',
      ),
      [{ d: description, json: JSON.stringify({ agentType: 'general-purpose', description, toolUseId: 'toolu_0003' }) }],
    );
    assert.equal((await verify({ storeDir: store })).ok, true);
  } finally {
    await removeDir(dir);
  }
});
