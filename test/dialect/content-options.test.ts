import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openStore } from '../../src/store/store.ts';
import { removeDir, REPO, select, tempDir } from '../helpers.ts';
import { PROJECT } from './helpers.ts';

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const FILE = join(PROJECT, '88888888-8888-4888-8888-888888888888.jsonl');

test('weave ingest --content and --text-limit reach the emitter; another policy rebuilds the store', async () => {
  const dir = await tempDir();
  try {
    await run(WEAVE, ['ingest', FILE, '--store', dir, '--content', 'signature=keep', '--content', 'media=omit', '--text-limit', '100']);
    let { store } = await openStore(dir);
    // Each text's state as queries/stored-texts.rq answers it (a text kept whole in its usual place has no Content node).
    const texts = await readFile(join(REPO, 'queries', 'stored-texts.rq'), 'utf8');
    const state = (node: string) => {
      const [block, property] = [node.slice(0, node.lastIndexOf('/')), node.slice(node.lastIndexOf('/') + 1)];
      const rows = select(store, texts).filter(
        (r) =>
          r.subject === `urn:soul:local:Weave/ContentBlock/88888888-8888-4888-8888-888888888888/${block}` &&
          r.property.endsWith(`#${property}`),
      );
      return select(store, `SELECT ?n WHERE { <${rows[0].state}> skos:notation ?n }`)[0].n;
    };
    assert.deepEqual(['c-0002/0/signature', 'c-0001/1/mediaData', 'c-0005/0/text'].map(state), ['available', 'omitted', 'truncated']);

    const again = await run(WEAVE, ['ingest', FILE, '--store', dir]);
    assert.match(again.stdout, /^ingested: 1 session read \(0 unchanged\)/m);
    ({ store } = await openStore(dir));
    assert.deepEqual(['c-0002/0/signature', 'c-0001/1/mediaData', 'c-0005/0/text'].map(state), ['omitted', 'hash_only', 'available']);

    await assert.rejects(
      run(WEAVE, ['ingest', FILE, '--store', dir, '--content', 'pictures=keep']),
      (e: { code: number; stderr: string }) => {
        assert.equal(e.code, 2);
        assert.match(e.stderr, /^weave ingest: unknown content kind "pictures" in "pictures=keep"; kinds are text, thinking, signature/);
        return true;
      },
    );
  } finally {
    await removeDir(dir);
  }
});
