import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ingest } from '../../src/ingest.ts';
import { parseManifest, readManifest, renderManifest } from '../../src/store/manifest.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

const run = promisify(execFile);
const G = 'urn:g:a';
const FILE = `graphs/${createHash('sha1').update(G).digest('hex')}.nq`;

/** A sound manifest with one session entry, as ingest writes it; `change` breaks one part. */
function manifest(change: (m: any) => void = () => undefined): string {
  const m: any = {
    format: 'weave-store/1',
    soul: 'local',
    graphs: { [G]: { file: FILE, quads: 3, sources: [{ path: '/p/a.jsonl', size: 10, mtimeMs: 1.5 }], sessionId: 'a', builtWith: 'x' } },
  };
  change(m);
  return JSON.stringify(m, null, 1);
}

test('a sound manifest parses and renders back to the same bytes', () => {
  const text = manifest();
  assert.equal(renderManifest(parseManifest(text, 'm.json')), text);
  // A versioned file, with the length of it the graph is, and the roots ingest was given.
  const versioned = manifest((m) => {
    m.roots = ['/p'];
    m.graphs[G].file = FILE.replace('.nq', '.0123456789ab.nq');
    m.graphs[G].bytes = 120;
  });
  assert.equal(renderManifest(parseManifest(versioned, 'm.json')), versioned);
});

test('a damaged manifest is one error naming the file and the field, never the values', () => {
  const cases: [string, string][] = [
    ['{"format": "weave-store/1", "soul"', "not valid JSON (Unexpected end of JSON input); the store's manifest is damaged"],
    ['[]', 'expected a JSON object, found an array'],
    [manifest((m) => (m.format = 'weave-store/2')), '"format" is not "weave-store/1" (a store of another Weave version?)'],
    [manifest((m) => delete m.soul), '"soul": expected a non-empty string, found nothing'],
    [manifest((m) => (m.graphs = [])), '"graphs": expected an object, found an array'],
    [manifest((m) => (m.owner = 'me')), 'unknown field "owner"'],
    [manifest((m) => (m.graphs[G] = 'x')), `graphs["${G}"]: expected an object, found a string`],
    [
      manifest((m) => (m.graphs[G].file = '../../etc/passwd')),
      `graphs["${G}"].file: expected graphs/<SHA-1 of the graph>[.<tag>].nq, the file named by the graph`,
    ],
    [
      manifest((m) => (m.graphs[G].file = FILE.replace('.nq', '.0123456789ab.nq').replace(/[0-9a-f]{40}/, 'f'.repeat(40)))),
      `graphs["${G}"].file: expected graphs/<SHA-1 of the graph>[.<tag>].nq, the file named by the graph`,
    ],
    [manifest((m) => (m.graphs[G].bytes = -3)), `graphs["${G}"].bytes: expected a whole number ≥ 0, found a negative number`],
    [manifest((m) => (m.roots = ['/p', ''])), '"roots": expected an array of non-empty strings, found an array'],
    [manifest((m) => (m.graphs[G].quads = '3')), `graphs["${G}"].quads: expected a whole number ≥ 0, found a string`],
    [manifest((m) => (m.graphs[G].quads = 2.5)), `graphs["${G}"].quads: expected a whole number ≥ 0, found a fraction`],
    [manifest((m) => delete m.graphs[G].quads), `graphs["${G}"].quads: expected a whole number ≥ 0, found nothing`],
    [manifest((m) => (m.graphs[G].sessionId = 7)), `graphs["${G}"].sessionId: expected a string, found a number`],
    [manifest((m) => (m.graphs[G].extra = true)), `graphs["${G}"]: unknown field "extra"`],
    [manifest((m) => (m.graphs[G].sources = {})), `graphs["${G}"].sources: expected an array, found an object`],
    [
      manifest((m) => (m.graphs[G].sources[0].size = -1)),
      `graphs["${G}"].sources[0].size: expected a whole number ≥ 0, found a negative number`,
    ],
    [manifest((m) => (m.graphs[G].sources[0].mtimeMs = null)), `graphs["${G}"].sources[0].mtimeMs: expected a number, found null`],
    [
      manifest((m) => (m.graphs[G].sources[0].path = '')),
      `graphs["${G}"].sources[0].path: expected a non-empty string, found an empty string`,
    ],
  ];
  for (const [text, problem] of cases)
    assert.throws(() => parseManifest(text, '/s/manifest.json'), { message: `/s/manifest.json: ${problem}` }, problem);
});

test('no manifest is no store; an unreadable one is an error naming it', async () => {
  const dir = await tempDir();
  try {
    assert.equal(await readManifest(dir), undefined);
    await mkdir(join(dir, 'manifest.json'));
    await assert.rejects(readManifest(dir), { message: `${join(dir, 'manifest.json')}: EISDIR: illegal operation on a directory, read` });
  } finally {
    await removeDir(dir);
  }
});

test('every reader of the store refuses a damaged manifest; ingest leaves it as it was', async () => {
  const dir = await tempDir();
  try {
    const damaged = manifest((m) => (m.graphs[G].quads = -4));
    await writeFile(join(dir, 'manifest.json'), damaged);
    const problem = `${join(dir, 'manifest.json')}: graphs["${G}"].quads: expected a whole number ≥ 0, found a negative number`;
    await assert.rejects(ingest([join(FIXTURES, 'spine')], { storeDir: dir, soul: 'local' }), { message: problem });
    assert.equal(await readFile(join(dir, 'manifest.json'), 'utf8'), damaged);
    const query = await run(join(REPO, 'bin', 'weave'), ['query', 'ASK {}', '--store', dir]).catch((e) => e);
    assert.equal(query.code, 1);
    assert.equal(query.stderr, `weave query: ${problem}\n`);
  } finally {
    await removeDir(dir);
  }
});
