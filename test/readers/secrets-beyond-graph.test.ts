import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ingest } from '../../src/ingest.ts';
import { marker } from '../../src/readers/redact.ts';
import { SearchIndex } from '../../src/search/index.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';
import { PLANTED_SECRETS } from './helpers.ts';

/**
 * Issue 25, item 5: secrets travelled beyond the session graph, into the search documents and
 * index (texts, a title, a timestamp field holding a key), the session's state file (the first
 * prompt, kept for the title) and the title itself. fixtures/hardening/secrets plants an AWS key,
 * a GitHub token, a password and a private key in a typed prompt (which is also the session's
 * title), an Anthropic key in a command, the token in a tool error, the password in a
 * correction, and the AWS key in a record's timestamp.
 */

const FIXTURE = join(FIXTURES, 'hardening', 'secrets');

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The secrets (as 8-character runs of one) a text holds. */
function heldIn(text: string): string[] {
  const held = new Set<string>();
  for (const s of PLANTED_SECRETS) for (let i = 0; i + 8 <= s.length; i++) if (text.includes(s.slice(i, i + 8))) held.add(s);
  return [...held];
}

test('no file of the store but the session graph and the archive holds a secret: search texts, index, state, title are redacted', async () => {
  const dir = await tempDir();
  try {
    await ingest([FIXTURE], { storeDir: dir, soul: 'local' });
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
      graphs: Record<string, { file: string; reader?: string }>;
    };
    const sessionGraph = Object.entries(manifest.graphs).find(([name, e]) => !e.reader && name.endsWith('000000000001'))![1].file;

    const holding: Record<string, string[]> = {};
    for (const path of await files(dir)) {
      const name = relative(dir, path);
      const bytes = await readFile(path);
      const text = name.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
      const held = heldIn(text);
      if (held.length) holding[name.startsWith('archive/') ? 'archive' : name === sessionGraph ? 'session graph' : name] = held;
    }
    // The transcript itself, as the user chose to keep it (SECURITY.md): every secret; nothing else any.
    assert.deepEqual(holding, { 'session graph': PLANTED_SECRETS, archive: PLANTED_SECRETS });

    // What search shows: the title and the prompt with each secret replaced by its kind and length.
    const index = await SearchIndex.open(dir);
    const { hits } = await index.search('deploy', { limit: 5 });
    assert.deepEqual(
      hits.map((h) => [h.kind, h.title, h.snippet]),
      [
        [
          'text',
          `Deploy it. AWS key ${marker('aws-access-key-id', 20)}, GitHub [redacted…`,
          `Deploy it. AWS key ${marker('aws-access-key-id', 20)}, GitHub ${marker('github-token', 40)}, db password: ${marker('password', 14)} and the deploy k…`,
        ],
        [
          'tool input',
          `Deploy it. AWS key ${marker('aws-access-key-id', 20)}, GitHub [redacted…`,
          // Shorter than a snippet: the whole input.
          `{"command":"ANTHROPIC_API_KEY=${marker('anthropic-api-key', 82)} ./deploy.sh"}`,
        ],
      ],
    );
    // The key is no term of the index; where a key was is.
    assert.equal((await index.search('AKIAQ3EGRV7X2LMNBC4D', { limit: 5 })).hits.length, 0);
    assert.equal((await index.search('redacted', { limit: 10 })).hits.length, 4);
  } finally {
    await removeDir(dir);
  }
});
