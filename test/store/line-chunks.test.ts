import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readLineChunks } from '../../src/store/store.ts';
import { removeDir, tempDir } from '../helpers.ts';

/**
 * readLineChunks: a graph file searched a few MiB at a time (the links across sessions read a
 * long session's derived part so, never whole). Chunks of 8 bytes here, so that lines fall across
 * reads.
 */

async function chunks(text: string, from: number, to?: number): Promise<string[]> {
  const dir = await tempDir('weave-chunks-');
  try {
    const path = join(dir, 'g.nq');
    await writeFile(path, text);
    const out: string[] = [];
    for await (const chunk of readLineChunks(path, from, to, 8)) out.push(chunk.toString('utf8'));
    return out;
  } finally {
    await removeDir(dir);
  }
}

test('each chunk ends with a whole line, and together they are the bytes asked for', async () => {
  const text = 'aa\nbbbb\ncc\ndddddd\ne\n';
  // 8 bytes read: "aa\nbbbb\n" ends a line; then "cc\ndddd" is cut after "cc\n", "dddd" carried
  // to the last read, which ends the file.
  assert.deepEqual(await chunks(text, 0), ['aa\nbbbb\n', 'cc\n', 'dddddd\ne\n']);
});

test('a line longer than a chunk is handed out whole, and the last line needs no line break', async () => {
  assert.deepEqual(await chunks('x\n0123456789abcdefghij\nyz', 0), ['x\n', '0123456789abcdefghij\n', 'yz']);
});

test('only the bytes from `from` to `to` are read', async () => {
  const text = 'aa\nbbbb\ncc\ndddddd\ne\n';
  // From the start of "bbbb" to the end of "cc\n" (bytes 3 to 11): one read of 8 bytes.
  assert.deepEqual(await chunks(text, 3, 11), ['bbbb\ncc\n']);
  // To the end of "dddddd\n": then a read of the 7 bytes left.
  assert.deepEqual(await chunks(text, 3, 18), ['bbbb\ncc\n', 'dddddd\n']);
  // Up to a length inside a line: the part before it is the last chunk.
  assert.deepEqual(await chunks(text, 0, 5), ['aa\nbb']);
  assert.deepEqual(await chunks(text, 4, 4), []);
});

test('an empty file gives no chunk', async () => {
  assert.deepEqual(await chunks('', 0), []);
});
