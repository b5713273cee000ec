import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { excerpt, marker } from '../../src/readers/redact.ts';
import { storeSecretKey } from '../../src/readers/secret/key.ts';
import { openStore } from '../../src/store/store.ts';
import { checkStore } from '../../src/store/check.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { lockStore, openStoreForWriting } from '../../src/store/writer.ts';
import { FIXTURES, removeDir, select, tempDir } from '../helpers.ts';

/**
 * Issue 15, defect 5: reader graphs copied secrets (human/authored quoted the whole prompt,
 * tool/error the error line) and secret/exposure kept an unsalted SHA-256 prefix. The fixture
 * fixtures/hardening/secrets plants an AWS key, a GitHub token, a password and a private key in
 * a typed prompt, an Anthropic key in a command, the GitHub token in a tool error, and the
 * password in a correction.
 */

const FIXTURE = join(FIXTURES, 'hardening', 'secrets');
const AWS = 'AKIAQ3EGRV7X2LMNBC4D';
const GH = 'ghp_R8mK2pQ7vX4nL9sT1wY6zA3bC5dE0fG2hJ4k';
const PW = 'Tr0ub4dor&3xyz';
const KEY =
  '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----';
const ANT = 'sk-ant-api03-Zq8Wm2Xr5Tn7Yp1Ks4Lv6Hb9Jd3Fg0Qa2Ws5Ed8Rf1Tg4Yh7Uj0Ik3Ol6Pz9Xc2Vb5Nm8';
const SECRETS = [AWS, GH, PW, KEY, ANT];

test('reader graphs quote no secret: quotes, their context and finding texts are redacted with the kind and length', async () => {
  const source = await readFile(join(FIXTURE, '-home-ada-vault', '5ec2e75e-0000-4000-8000-000000000001.jsonl'), 'utf8');
  for (const s of SECRETS) assert.ok(source.includes(JSON.stringify(s).slice(1, -1)), 'the fixture plants each secret');
  const dir = await tempDir();
  try {
    await ingest([FIXTURE], { storeDir: dir, soul: 'local' });
    const report = await detect({ storeDir: dir });
    assert.deepEqual(report.findings, {
      'emojikey/harvest': 0,
      'human/authored': 3,
      'tool/error': 1,
      // The AWS key, token, password and private key in the typed prompt, the password in the
      // correction (prompts are read since reader version 3), the Anthropic key in a command, the
      // token in the tool error.
      'secret/exposure': 7,
      'agent/correction': 1,
    });

    // No reader graph holds any secret, nor a run of 8 of its characters.
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
      graphs: Record<string, { file: string; reader?: string }>;
    };
    const readerFiles = Object.values(manifest.graphs)
      .filter((e) => e.reader)
      .map((e) => e.file);
    assert.equal(readerFiles.length, 5 + 5);
    for (const file of readerFiles) {
      const text = await readFile(join(dir, file), 'utf8');
      for (const s of SECRETS)
        for (let i = 0; i + 8 <= s.length; i++) {
          const run = s.slice(i, i + 8);
          if (/^[-A-Z ]+$/.test(run)) continue; // the PEM armour's words are not the key
          assert.ok(!text.includes(run.replace(/\n/g, '\\n')), `${file} holds "${run}" of a secret`);
        }
    }

    const { store } = await openStore(dir);
    const quotes = select(
      store,
      `SELECT ?type ?exact ?prefix ?suffix WHERE {
      ?a weave:eventType ?type ; oa:hasTarget/oa:hasSelector ?q . ?q oa:exact ?exact ; oa:prefix ?prefix ; oa:suffix ?suffix } ORDER BY ?type ?exact`,
    );
    assert.deepEqual(
      quotes.map((q) => [q.type, q.prefix, q.exact, q.suffix]),
      [
        ['agent/correction', '', 'No,', ` use password=${marker('password', 14)}`],
        [
          'human/authored',
          '',
          `Deploy it. AWS key ${marker('aws-access-key-id', 20)}, GitHub ${marker('github-token', 40)}, db password: ${marker('password', 14)} and the deploy key:\n${marker('private-key', [...KEY].length)}`,
          '',
        ],
        ['human/authored', '', `No, use password=${marker('password', 14)}`, ''],
        ['human/authored', '', 'Thanks.', ''],
        ['tool/error', '', `Error: push rejected for ${marker('github-token', 40)} (bad credentials)`, '\nexit 1'],
      ],
    );
    // A timestamp that is no time (it holds the AWS key here) is not copied as the annotation's time.
    const times = select(
      store,
      'SELECT ?exact ?time WHERE { ?a oa:hasTarget/oa:hasSelector/oa:exact ?exact . OPTIONAL { ?a prov:generatedAtTime ?time } } ORDER BY ?exact',
    );
    assert.deepEqual(
      times.find((t) => t.exact === 'Thanks.'),
      { exact: 'Thanks.' },
    );
    const lines = select(store, 'SELECT ?line WHERE { ?b weave:errorLine ?line }');
    assert.deepEqual(
      lines.map((l) => l.line),
      [`Error: push rejected for ${marker('github-token', 40)} (bad credentials)`],
    );

    // The secret reader: kind, length and an HMAC under the store's own key, never a bare hash.
    const key = Buffer.from((await readFile(join(dir, 'secret.key'), 'utf8')).trim(), 'hex');
    const hmac = (s: string) => `hmac-sha256:${createHmac('sha256', key).update(s).digest('hex').slice(0, 16)}`;
    const found = select(
      store,
      'SELECT ?kind ?len ?digest WHERE { ?b weave:secretKind ?kind ; weave:secretLength ?len ; weave:secretDigest ?digest } ORDER BY ?kind',
    );
    assert.deepEqual(
      found.map((f) => [f.kind, f.len, f.digest]),
      [
        ['anthropic-api-key', String(ANT.length), hmac(ANT)],
        ['aws-access-key-id', '20', hmac(AWS)],
        ['github-token', '40', hmac(GH)],
        ['github-token', '40', hmac(GH)],
        ['password', '14', hmac(PW)],
        ['password', '14', hmac(PW)],
        ['private-key', String([...KEY].length), hmac(KEY)],
      ],
    );
  } finally {
    await removeDir(dir);
  }
});

test('excerpt redacts the part of a secret inside the window, however the window cuts it', () => {
  const text = `key=${GH} end`;
  const at = text.indexOf(GH);
  assert.equal(excerpt(text, 0, text.length), `key=${marker('github-token', 40)} end`);
  assert.equal(excerpt(text, 0, at + 4), `key=${marker('github-token', 4)}`);
  assert.equal(excerpt(text, at + 30, text.length), `${marker('github-token', 10)} end`);
  assert.equal(excerpt('nothing here', 3, 7), 'hing');
});

test("the store's secret key: made once by the store writer with mode 0600, named in the manifest, narrowed to 0600 if found wider", async () => {
  const dir = await tempDir();
  try {
    const lock = await lockStore(dir);
    try {
      const writer = await openStoreForWriting(dir, 'local');
      const key = await storeSecretKey(writer);
      assert.equal(key.length, 32);
      assert.ok((await storeSecretKey(writer)).equals(key), 'a second use reads the same key');
      await writer.close();
      const path = join(dir, 'secret.key');
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      const entry = (await readManifest(dir))!.files!['secret.key'];
      assert.deepEqual([entry.file, entry.bytes], ['secret.key', 65]);
      assert.equal((await checkStore(dir)).ok, true);
      await chmod(path, 0o644);
      const again = await openStoreForWriting(dir, 'local');
      assert.ok((await storeSecretKey(again)).equals(key));
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      await writeFile(path, 'not a key\n');
      await assert.rejects(storeSecretKey(again), /secret\.key: not a Weave secret key \(64 hex digits\)/);
      // The store's own check notices a key that is not the one it named.
      await writeFile(path, `${'0'.repeat(64)}\n`);
      assert.match((await checkStore(dir)).problems.join('\n'), /secret\.key: its bytes are not those the manifest names/);
    } finally {
      await lock.release();
    }
  } finally {
    await removeDir(dir);
  }
});
