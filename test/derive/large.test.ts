import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { heapGrowthHeld } from '../../src/derive/heap.ts';
import { DERIVATIONS } from '../../src/derive/registry.ts';
import { keptText, StoredText, textOf } from '../../src/derive/stored-text.ts';
import { ingest } from '../../src/ingest.ts';
import { readGraphBytes, readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

/**
 * A large session is not tapped while it is read: each input its derivations read is made from
 * the graph's files after the read, one at a time (src/derive/loop.ts), so that only one is held
 * at once. What they derive is exactly what the tapped inputs give: every output the same, byte
 * for byte, with every session taken as large (a threshold of 0 bytes).
 */

/** Every derivation's output in a store: a reader's graph as its N-Quads, a file as its bytes, by manifest name. */
async function outputs(dir: string): Promise<Map<string, string>> {
  const manifest = (await readManifest(dir))!;
  const out = new Map<string, string>();
  for (const [name, entry] of Object.entries(manifest.graphs))
    if (entry.reader) out.set(name, (await readGraphBytes(dir, entry)).toString('utf8'));
  for (const [name, entry] of Object.entries(manifest.files ?? {}))
    if (entry.builtWith) out.set(name, await readFile(join(dir, entry.file), 'utf8'));
  return out;
}

test('a large session derives, from its files one input at a time, what a tapped one does', async () => {
  const paths = [join(FIXTURES, 'spine'), join(FIXTURES, 'readers')];
  const [tapped, large, run] = [await tempDir(), await tempDir(), await tempDir()];
  try {
    // The heap's growth is held while large sessions are read (src/derive/heap.ts), and only then.
    const held = { tapped: new Set<boolean>(), large: new Set<boolean>() };
    const a = await ingest(paths, {
      storeDir: tapped,
      soul: 'local',
      derivations: DERIVATIONS,
      onProgress: () => held.tapped.add(heapGrowthHeld()),
    });
    const b = await ingest(paths, {
      storeDir: large,
      soul: 'local',
      derivations: DERIVATIONS,
      largeSessionBytes: 0,
      onProgress: () => held.large.add(heapGrowthHeld()),
    });
    assert.deepEqual(held, { tapped: new Set([false]), large: new Set([true]) });
    assert.equal(heapGrowthHeld(), false);
    // So does a run of small sessions reading more than largeRunBytes in all.
    const heldInRun = new Set<boolean>();
    await ingest([paths[0]], { storeDir: run, soul: 'local', largeRunBytes: 0, onProgress: () => heldInRun.add(heapGrowthHeld()) });
    assert.deepEqual(heldInRun, new Set([true]));
    assert.equal(heapGrowthHeld(), false);
    assert.deepEqual(b.derived.ran, a.derived.ran);
    const [want, got] = [await outputs(tapped), await outputs(large)];
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
    // Each store digests secrets with its own key.
    const keyless = (text = '') => text.replace(/hmac-sha256:[0-9a-f]+/g, 'hmac');
    for (const [name, text] of want) assert.equal(keyless(got.get(name)), keyless(text), name);
    // Something to compare: the six sessions' search documents and usage rows (two in spine, four in readers), and findings.
    const names = [...want.keys()];
    assert.equal(names.filter((n) => n.startsWith('search/documents/')).length, 6);
    assert.equal(names.filter((n) => n.startsWith('usage/rows/')).length, 6);
    assert.ok((a.derived.ran['tool/error']?.findings ?? 0) > 0);
  } finally {
    await removeDir(tapped);
    await removeDir(large);
    await removeDir(run);
  }
});

/** A session whose texts are long enough to be left in the graph file when read from it (src/derive/stored-text.ts). */
async function longTexts(root: string): Promise<{ prompt: string; token: string }> {
  const session = '5e550000-0000-4000-8000-000000000001';
  const dir = join(root, '-home-ada-long');
  await mkdir(dir, { recursive: true });
  const filler = (n: number) => 'lorem ipsum '.repeat(n);
  // 42 characters: ghp_, ten digits, 26 letters and two more.
  const token = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';
  // Escapes, quotes, a backslash, a line break and characters past ASCII, each read back as written.
  const prompt = `Start here.\né😀 "quoted" \\ back\t${filler(60)} then ${token} and more`;
  const base = { isSidechain: false, userType: 'external', cwd: '/home/ada/long', sessionId: session, version: '2.1.119' };
  const uuid = (n: number) => `5e550000-0000-4000-8000-00000000000${n}`;
  const records = [
    {
      ...base,
      parentUuid: null,
      type: 'user',
      message: { role: 'user', content: prompt },
      uuid: uuid(1),
      timestamp: '2026-03-02T09:00:00.000Z',
    },
    {
      ...base,
      parentUuid: uuid(1),
      type: 'assistant',
      requestId: 'req_long1',
      message: {
        id: 'msg_long1',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-7',
        content: [{ type: 'tool_use', id: 'toolu_long1', name: 'Bash', input: { command: `echo ${filler(50)} ${token}` } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 100, output_tokens: 20 },
      },
      uuid: uuid(2),
      timestamp: '2026-03-02T09:00:02.000Z',
    },
    {
      ...base,
      parentUuid: uuid(2),
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: 'toolu_long1', type: 'tool_result', content: `${filler(70)}failed: ${token}`, is_error: true }],
      },
      uuid: uuid(3),
      timestamp: '2026-03-02T09:00:03.000Z',
    },
  ];
  await writeFile(join(dir, `${session}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return { prompt, token };
}

test('long texts read back from the graph file give a large session the findings and documents a tapped one has', async () => {
  const [source, tapped, large] = [await tempDir(), await tempDir(), await tempDir()];
  try {
    const { prompt, token } = await longTexts(source);
    const a = await ingest([source], { storeDir: tapped, soul: 'local', derivations: DERIVATIONS });
    const b = await ingest([source], { storeDir: large, soul: 'local', derivations: DERIVATIONS, largeSessionBytes: 0 });
    // The token once in the prompt, the command and the failed result; the one failed result; the one prompt.
    const found = (r: typeof a) =>
      Object.fromEntries(['secret/exposure', 'tool/error', 'human/authored'].map((n) => [n, r.derived.ran[n]?.findings]));
    assert.deepEqual(found(a), { 'secret/exposure': 3, 'tool/error': 1, 'human/authored': 1 });
    assert.deepEqual(found(b), found(a));
    const [want, got] = [await outputs(tapped), await outputs(large)];
    const keyless = (text = '') => text.replace(/hmac-sha256:[0-9a-f]+/g, 'hmac');
    for (const [name, text] of want) assert.equal(keyless(got.get(name)), keyless(text), name);
    // The prompt's document, read back from the file: every character as written, the token redacted.
    const documents = [...got].find(([name]) => name.startsWith('search/documents/'))![1];
    const texts = documents
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { text?: string })
      .map((d) => d.text);
    assert.ok(texts.includes(prompt.replace(token, '[redacted github-token, 42 chars]')), 'the prompt read back whole');
  } finally {
    for (const dir of [source, tapped, large]) await removeDir(dir);
  }
});

test('a text left in a graph file that no longer holds its line is an error naming the file', async () => {
  const dir = await tempDir();
  try {
    const path = join(dir, 'g.nq');
    const lines = ['<urn:x:s> <urn:x:p> "short" <urn:x:g> .', `<urn:x:s> <urn:x:p> "a \\"long\\" é ${'x'.repeat(600)}" <urn:x:g> .`];
    await writeFile(path, `${lines.join('\n')}\n`);
    const offset = Buffer.byteLength(lines[0]) + 1;
    const kept = keptText(lines[1].split(' ').slice(2, -2).join(' '), { path, offset, bytes: Buffer.byteLength(lines[1]) });
    assert.ok(kept instanceof StoredText);
    assert.equal(textOf(kept), `a "long" é ${'x'.repeat(600)}`);
    // A short literal is kept as its text.
    assert.equal(keptText('"short"', { path, offset: 0, bytes: 10 }), 'short');
    await writeFile(path, 'not the same file\n');
    assert.throws(() => textOf(new StoredText(path, offset, Buffer.byteLength(lines[1]))), {
      message: `${path}: the line at byte ${offset} is no longer the one read`,
    });
  } finally {
    await removeDir(dir);
  }
});
