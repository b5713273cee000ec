import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { removeDir, tempDir } from './helpers.ts';
import { madeOnce } from './made-once.ts';

/** A directory made once (test/made-once.ts), as the Virtuoso template database is: never seen half made. */

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));
const parent = async () => {
  const dir = await tempDir('weave-made-once-');
  dirs.push(dir);
  return dir;
};

test('a maker that fails leaves nothing at the path, and the next caller makes it whole', async () => {
  const base = await parent();
  const path = join(base, 'made');
  await assert.rejects(
    madeOnce(path, async (dir) => {
      await writeFile(join(dir, 'half'), 'half');
      throw new Error('died part-way');
    }),
    /died part-way/,
  );
  assert.deepEqual(await readdir(base), []);
  assert.equal(await madeOnce(path, async (dir) => writeFile(join(dir, 'whole'), 'whole')), path);
  assert.deepEqual(await readdir(base), ['made']);
  assert.deepEqual(await readdir(path), ['whole']);
});

test('callers in one process at once share one making', async () => {
  const path = join(await parent(), 'made');
  let made = 0;
  const make = async (dir: string) => {
    made++;
    await writeFile(join(dir, 'whole'), 'whole');
  };
  assert.deepEqual(await Promise.all([madeOnce(path, make), madeOnce(path, make), madeOnce(path, make)]), [path, path, path]);
  assert.equal(made, 1);
});

test('a directory another process put in place first is kept, and this one dropped', async () => {
  const base = await parent();
  const path = join(base, 'made');
  const got = await madeOnce(path, async (dir) => {
    await writeFile(join(dir, 'whole'), 'ours');
    // The other process renames its directory into place while this one is still making.
    await mkdir(path);
    await writeFile(join(path, 'whole'), 'theirs');
  });
  assert.equal(got, path);
  assert.equal(await readFile(join(path, 'whole'), 'utf8'), 'theirs');
  assert.deepEqual(await readdir(base), ['made']);
});

test('a directory already in place is used as it is, without making', async () => {
  const base = await parent();
  const path = join(base, 'made');
  await mkdir(path);
  await writeFile(join(path, 'whole'), 'earlier');
  assert.equal(await madeOnce(path, async () => assert.fail('made again')), path);
  assert.equal(await readFile(join(path, 'whole'), 'utf8'), 'earlier');
  assert.deepEqual(await readdir(base), ['made']);
});
