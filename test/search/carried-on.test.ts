import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { SearchIndex } from '../../src/search/index.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

/**
 * A session read on from an earlier read (only its appended lines) keeps the search index as
 * one read of the whole file makes it: the documents of the new lines added, the earlier ones
 * kept, and a tool result named by its tool use even when that use was read the first time.
 */
const PROJECT = '-home-ada-weave-demo';
const FILE = '11111111-1111-4111-8111-111111111111.jsonl';

test('a read carried on leaves the search index as one whole read does', async () => {
  const dir = await tempDir();
  try {
    const lines = (await readFile(join(FIXTURES, 'spine', PROJECT, FILE), 'utf8')).split('\n').filter(Boolean);
    // Lines 1–5 end with the Bash tool use (toolu_0001); its result is line 6.
    const root = join(dir, 'projects');
    await mkdir(join(root, PROJECT), { recursive: true });
    await writeFile(join(root, PROJECT, FILE), `${lines.slice(0, 5).join('\n')}\n`);
    const carried = join(dir, 'carried');
    await ingest([root], { storeDir: carried, soul: 'local' });
    await appendFile(join(root, PROJECT, FILE), `${lines.slice(5).join('\n')}\n`);
    const report = await ingest([root], { storeDir: carried, soul: 'local' });
    assert.equal(report.carriedOn, 1, 'the second read carried the session on');
    const whole = join(dir, 'whole');
    await ingest([root], { storeDir: whole, soul: 'local' });

    const hits = async (store: string, text: string) =>
      (await (await SearchIndex.open(store)).search(text)).hits.map((h) => [h.block, h.kind, h.tool ?? '', h.title ?? '']);
    for (const text of ['a.ts', 'ls src', 'README typo', 'Fixed'])
      assert.deepEqual(await hits(carried, text), await hits(whole, text), text);
    // The result of line 6 is named by the tool use read the first time.
    assert.deepEqual(
      (await hits(carried, 'a.ts')).filter(([, kind]) => kind === 'tool result').map(([, , tool]) => tool),
      ['Bash'],
    );
  } finally {
    await removeDir(dir);
  }
});
