import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { ingest } from '../src/ingest.ts';
import { sessionGraphIri } from '../src/rdf/iri.ts';
import { SearchIndex } from '../src/search/index.ts';
import { readManifest } from '../src/store/manifest.ts';
import { openStore } from '../src/store/store.ts';
import { verify } from '../src/verify.ts';
import { FIXTURES, removeDir, REPO, select, tempDir } from './helpers.ts';

/**
 * Issue 25, items 1 and 3: a transcript changed other than by appending is seen, by ingest and by
 * verify, and what was read of it before stays in the archive.
 */

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const S4 = '44444444-4444-4444-8444-444444444444';
const PROJECT = '-home-ada-records-demo';
/** Line 14 of the S4 fixture, bytes 4,870–5,362: past the first 4 KiB. */
const BEFORE = '"text":"Two entries: README.md and src."';
const AFTER = '"text":"Two entries: XXXXXXXXX and src."';

async function copyAndIngest(): Promise<{ work: string; dir: string; path: string }> {
  const work = await tempDir();
  const dir = await tempDir();
  await cp(join(FIXTURES, 'records'), work, { recursive: true });
  await ingest([work], { storeDir: dir, soul: 'local' });
  return { work, dir, path: join(work, PROJECT, `${S4}.jsonl`) };
}

/** The texts of S4's graph that hold `words`. */
async function textsWith(dir: string, words: string): Promise<number> {
  const { store } = await openStore(dir);
  const rows = select(
    store,
    `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${sessionGraphIri('local', S4)}> { ?b weave:text ?t FILTER(CONTAINS(?t, ${JSON.stringify(words)})) } }`,
  );
  return Number(rows[0].n);
}

/** The S4 fixture ingested, then its line 14 edited in place: same size, past the first 4 KiB. */
async function edited(): Promise<{ work: string; dir: string; path: string; text: string }> {
  const { work, dir, path } = await copyAndIngest();
  const text = await readFile(path, 'utf8');
  assert.equal(Buffer.byteLength(text.slice(0, text.indexOf(BEFORE))), 5071, 'the text sits past the first 4 KiB');
  await writeFile(path, text.replace(BEFORE, AFTER));
  assert.equal((await readFile(path)).length, 6872, 'the same size');
  return { work, dir, path, text };
}

test('weave verify fails on a transcript edited in place past its first 4 KiB, same size: its bytes read changed, its text differs by SHA-256', async () => {
  const { work, dir } = await edited();
  try {
    // verify: the file's bytes read are not its bytes now, and the text held whole differs by its SHA-256.
    const report = await verify({ storeDir: dir });
    const file = report.files.find((f) => f.session === S4)!;
    assert.deepEqual(
      [report.ok, file.rewritten, file.changedSinceIngest, file.mismatches.map((m) => [m.lineNo, m.pointer, m.message])],
      [false, true, false, [[14, '/message/content/0/text', 'the SHA-256 differs']]],
    );
    const cli = await run(WEAVE, ['verify', '--store', dir, '--no-daemon']).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    assert.equal(cli.code, 1);
    assert.match(cli.stdout, /44444444-4444-4444-8444-444444444444\.jsonl: its bytes ingest read have changed since/);
    assert.match(cli.stdout, /\.jsonl:14: \/message\/content\/0\/text the SHA-256 differs/);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('weave ingest reads again a transcript edited in place past its first 4 KiB, same size: the new text in the graph and the search index, the old gone, the old bytes archived', async () => {
  const { work, dir, path, text } = await edited();
  try {
    const again = await ingest([work], { storeDir: dir, soul: 'local' });
    assert.deepEqual([again.sessions, again.carriedOn], [1, 0], 'read whole, not carried on');
    assert.deepEqual([await textsWith(dir, 'XXXXXXXXX and src.'), await textsWith(dir, 'README.md and src.')], [1, 0]);
    const snippets = (await (await SearchIndex.open(dir)).search('Two entries', { session: S4 })).hits.map((h) => h.snippet);
    assert.deepEqual(snippets, ['Two entries: XXXXXXXXX and src.']);
    assert.equal((await verify({ storeDir: dir })).ok, true, 'verified once read again');
    // What was read before stays in the archive, as version 1 (its 18 lines).
    const stamp = (await readManifest(dir))!.graphs[sessionGraphIri('local', S4)].sources!.find((s) => s.path === path)!;
    assert.deepEqual(
      stamp.versions?.map((v) => v.lines),
      [18],
    );
    assert.equal(gunzipSync(await readFile(join(dir, stamp.versions![0].file))).toString('utf8'), text);
    assert.equal(gunzipSync(await readFile(join(dir, stamp.archive!.file))).toString('utf8'), text.replace(BEFORE, AFTER));
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('a store from before digests were kept: a grown transcript is read whole once, its archive appended to, not set aside; the next append carries on', async () => {
  const { work, dir, path } = await copyAndIngest();
  try {
    // The manifest as an older Weave wrote it: no digest on any source stamp or graph part.
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    for (const entry of Object.values(manifest.graphs) as Record<string, unknown>[]) {
      delete entry.digest;
      for (const part of ['derived', 'state']) delete (entry[part] as Record<string, unknown> | undefined)?.digest;
      for (const source of (entry.sources ?? []) as Record<string, unknown>[]) delete source.digest;
    }
    await writeFile(manifestPath, JSON.stringify(manifest, null, 1));
    const text = await readFile(path, 'utf8');
    const line = text.slice(0, text.indexOf('\n') + 1);
    await writeFile(path, text + line);
    const once = await ingest([work], { storeDir: dir, soul: 'local' });
    assert.deepEqual([once.sessions, once.carriedOn, once.failed], [1, 0, 0], 'read whole once');
    const stamp = (await readManifest(dir))!.graphs[sessionGraphIri('local', S4)].sources!.find((s) => s.path === path)!;
    assert.deepEqual([stamp.versions, stamp.digest?.bytes], [undefined, 6872 + Buffer.byteLength(line)]);
    assert.equal(gunzipSync(await readFile(join(dir, stamp.archive!.file))).toString('utf8'), text + line);
    await writeFile(path, text + line + line);
    const next = await ingest([work], { storeDir: dir, soul: 'local' });
    assert.deepEqual([next.sessions, next.carriedOn], [1, 1]);
    assert.equal((await verify({ storeDir: dir })).ok, true);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});
