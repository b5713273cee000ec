import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { conversation } from '../../src/model/observer.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { removeDir, tempDir } from '../helpers.ts';

/**
 * A session whose graph is more text than one V8 string holds (issue 25, item 2): a 92 MB
 * transcript failed with "reading failed (RangeError)" because its derived part was built as one
 * string. The smallest input found that does the same: three lines, a prompt, one response with
 * 12,000 tool uses and the user record with their 12,000 results, each tool use id 3,200
 * characters long. An id is written 14 times into the derived part for each call, so the part is
 * about 12,000 × 50 KB = 600 MB, over V8's limit of 2^29 - 24 characters, from a 77 MB file.
 * Only the conversation model runs (the readers and the search index are not what is tested),
 * and nothing is archived. It takes about 15 s (about 3 s to fail before the fix).
 */

const SESSION = '99999999-9999-4999-8999-999999999999';
const CALLS = 12_000;
const V8_STRING_LIMIT = 2 ** 29 - 24;

/** Tool use `i`'s id: a readable start, padded to 3,200 characters. */
const idOf = (i: number) => `toolu_${i}_`.padEnd(3200, 'x');

async function writeSession(dir: string): Promise<string> {
  const project = join(dir, 'projects', '-home-ada-huge');
  await mkdir(project, { recursive: true });
  const common = { sessionId: SESSION, isSidechain: false };
  const uses = Array.from({ length: CALLS }, (_, i) => ({ type: 'tool_use', id: idOf(i), name: 'Bash', input: {} }));
  const results = Array.from({ length: CALLS }, (_, i) => ({ type: 'tool_result', tool_use_id: idOf(i), content: 'ok' }));
  const lines = [
    {
      ...common,
      type: 'user',
      uuid: 'u-1',
      parentUuid: null,
      timestamp: '2026-11-02T09:00:00.000Z',
      message: { role: 'user', content: 'go' },
    },
    {
      ...common,
      type: 'assistant',
      uuid: 'a-1',
      parentUuid: 'u-1',
      timestamp: '2026-11-02T09:00:01.000Z',
      requestId: 'req_1',
      message: { id: 'msg_1', role: 'assistant', model: 'claude-opus-4-7', content: uses, usage: { input_tokens: 1, output_tokens: 1 } },
    },
    {
      ...common,
      type: 'user',
      uuid: 'u-2',
      parentUuid: 'a-1',
      timestamp: '2026-11-02T09:00:02.000Z',
      message: { role: 'user', content: results },
    },
  ];
  const path = join(project, `${SESSION}.jsonl`);
  await writeFile(
    path,
    lines.map((l) => `${JSON.stringify(l)}\n`),
  );
  return path;
}

/** Lines of a file, counted a chunk at a time. */
async function countLines(path: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(path)) for (const byte of chunk as Buffer) if (byte === 10) n++;
  return n;
}

test('a session whose derived part is over V8 string limit is stored whole, in parts (issue 25)', async () => {
  const dir = await tempDir('weave-huge-');
  try {
    await writeSession(dir);
    const store = join(dir, 'store');
    const report = await ingest([join(dir, 'projects')], { storeDir: store, soul: 'local', derivations: [conversation], archive: false });
    assert.deepEqual(
      report.problems.map((p) => `${p.kind} ${p.message}`),
      [],
    );
    assert.equal(report.sessions, 1);
    assert.equal(report.failed, 0);
    assert.equal(report.records, 3);
    const entry = Object.values((await readManifest(store))!.graphs).find((g) => g.sessionId === SESSION && g.derived)!;
    // The conversation model of one prompt, one response and its results is 89 quads, and each
    // tool call adds 18: its three types, toolUseId, firstLine, and toolRequest, within,
    // toolResponse and resultOf each with a reifier and its evidence, resultIsError.
    assert.equal(entry.derived!.quads, 89 + 18 * CALLS);
    assert.ok(
      entry.derived!.bytes > V8_STRING_LIMIT,
      `the derived part is ${entry.derived!.bytes} bytes: over the limit the test is about`,
    );
    assert.equal(await countLines(join(store, entry.derived!.file)), entry.derived!.quads);
  } finally {
    await removeDir(dir);
  }
});
