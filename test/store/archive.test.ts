import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, cp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { readManifest } from '../../src/store/manifest.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
import { ONTOLOGY_GRAPH } from '../../src/rdf/vocab.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { canonicalNQuads, type RdfTerm } from '../nquads.ts';

/**
 * The archive: every byte read of every source file, compressed, in the store, so that a session
 * whose files Claude Code deleted stays in the store (marked archived-only), verifies against the
 * archive, is rebuilt from it and exported.
 */

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const PROJECT = '-home-ada-weave-demo';

/** Every source file the store names, with its archive's bytes decompressed. */
async function archived(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of Object.values((await readManifest(dir))!.graphs))
    for (const s of entry.sources ?? [])
      if (s.archive) out.set(s.path, gunzipSync((await readFile(join(dir, s.archive.file))).subarray(0, s.archive.bytes)));
  return out;
}

function quadsOf(store: OxStore): string[] {
  return canonicalNQuads(store.match(null, null, null, null).filter((q) => q.graph.value !== ONTOLOGY_GRAPH) as unknown as RdfTerm[]);
}

/** The spine fixtures copied to a folder of their own, ingested (without the readers) into a fresh store. */
async function spineCopy(): Promise<{ work: string; root: string; dir: string; files: string[] }> {
  const work = await tempDir('weave-archive-');
  const root = join(work, 'projects');
  const dir = join(work, 'store');
  await cp(join(FIXTURES, 'spine'), root, { recursive: true });
  await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
  const files = (await readdir(root, { recursive: true })).map((f) => join(root, String(f))).filter((f) => /\.(jsonl|json)$/.test(f));
  return { work, root, dir, files: files.sort() };
}

test('the archive holds every byte read of every source file, the last line too', async () => {
  const { work, dir, files } = await spineCopy();
  try {
    const copies = await archived(dir);
    assert.deepEqual([...copies.keys()].sort(), files);
    for (const path of files) assert.deepEqual(copies.get(path), await readFile(path), path);
  } finally {
    await removeDir(work);
  }
});

test('a session whose files are deleted stays: read from the archive, marked archived-only, verified, rebuilt and exported', async () => {
  const { work, root, dir } = await spineCopy();
  try {
    const before = quadsOf((await openStore(dir)).store);
    const transcripts = before.filter((q) => q.includes('#sourcePath>')).map((q) => q.split(' ')[0]);
    const session2 = join(root, PROJECT, '22222222-2222-4222-8222-222222222222.jsonl');
    const beside = join(root, PROJECT, 'agent-5e5e5e5e.jsonl');
    // Claude Code deletes the session 2222… (its file and the agent file beside it that it owns).
    await rm(session2);
    await rm(beside);
    const again = await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    assert.match(
      again.stdout,
      /^ingested: 1 session read \(1 unchanged\) · 2 files · .* · 1 session read from the archive \(their files are gone\)\n$/,
    );
    const after = quadsOf((await openStore(dir)).store);
    const marked = transcripts.filter((t) =>
      before.some(
        (q) =>
          q.startsWith(`${t} <https://repolex.ai/ontology/weave#sourcePath> "${session2}"`) ||
          q.startsWith(`${t} <https://repolex.ai/ontology/weave#sourcePath> "${beside}"`),
      ),
    );
    assert.equal(marked.length, 2);
    // The graph is as it was, and says which transcripts are read from the archive alone.
    const marks = marked.map(
      (t) =>
        `${t} <https://repolex.ai/ontology/weave#archivedOnly> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> <urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222> .`,
    );
    assert.deepEqual(after, [...before, ...marks].sort());
    // Unchanged since: the next run reads nothing, and does not look at the archived-only session again.
    assert.match((await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect'])).stdout, /^ingested: 0 sessions read \(1 unchanged\)/);

    const verified = await run(WEAVE, ['verify', '--store', dir]);
    assert.match(verified.stdout, /\n2 file\(s\) the store was built from are gone: checked against the archive's copy\n/);
    // 38 texts: the records' 31, 1111…'s AI title, 2222…'s summary and malformed line, and each
    // sub-agent's .meta.json (two of them) as its description and its JSON.
    assert.match(verified.stdout, /\nverified: 32 lines in 5 files accounted for; 38 texts match their source \(5 not held whole\)\n$/);

    // With every source gone, a rebuild reads each session from the archive alone, to the same graphs.
    await rm(root, { recursive: true });
    const rebuilt = await run(WEAVE, ['ingest', '--rebuild', '--store', dir, '--no-detect']);
    assert.match(rebuilt.stdout, /^ingested: 2 sessions read \(0 unchanged\) · 5 files · /);
    const all = quadsOf((await openStore(dir)).store);
    const allMarks = transcripts.map(
      (t) =>
        `${t} <https://repolex.ai/ontology/weave#archivedOnly> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> ${t.includes('11111111') ? '<urn:soul:local:Weave/graph/11111111-1111-4111-8111-111111111111>' : '<urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222>'} .`,
    );
    assert.deepEqual(all, [...before, ...allMarks].sort());
    assert.match(
      (await run(WEAVE, ['verify', '--store', dir])).stdout,
      /\n5 file\(s\) the store was built from are gone: checked against the archive's copy\n(.*\n)?verified: 32 lines in 5 files/,
    );
    const exported = (await run(WEAVE, ['export', '--format', 'nquads', '--store', dir], { maxBuffer: 64e6 })).stdout;
    assert.equal(exported.split('\n').filter((l) => l.includes('#archivedOnly> "true"')).length, transcripts.length);
  } finally {
    await removeDir(work);
  }
});

test('a project folder renamed: each file is read once, at its new path; none comes back from the archive beside it', async () => {
  const { work, root, dir } = await spineCopy();
  try {
    await rename(join(root, PROJECT), join(root, '-home-ada-weave-moved'));
    const again = await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    // The two sessions' five transcripts (main, a sub-agent, a workflow agent; main, an agent beside it), none from the archive;
    // 1,565 quads since a call's one-hour cache writes are stated (one record says 0 of them).
    assert.match(again.stdout, /^ingested: 2 sessions read \(0 unchanged\) · 5 files · 30 records · 1,565 quads · /);
    assert.doesNotMatch(again.stdout, /from the archive/);
    const fresh = join(work, 'fresh');
    await run(WEAVE, ['ingest', root, '--store', fresh, '--no-detect']);
    assert.deepEqual(quadsOf((await openStore(dir)).store), quadsOf((await openStore(fresh)).store));
    const status = JSON.parse((await run(WEAVE, ['status', '--store', dir, '--json'])).stdout);
    assert.deepEqual(status.sources, { files: 8, transcripts: 5, gone: 0 });
  } finally {
    await removeDir(work);
  }
});

test('a file that grows gets its new bytes appended as one more gzip member; one cut short or replaced gets a new archive, and the old stays as a version (issue 25)', async () => {
  const { work, root, dir } = await spineCopy();
  try {
    const path = join(root, PROJECT, '22222222-2222-4222-8222-222222222222.jsonl');
    const graph = 'urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222';
    const stampOf = async () => (await readManifest(dir))!.graphs[graph].sources!.find((s) => s.path === path)!;
    const first = (await stampOf()).archive!;
    // The pending last line completed, and one more line.
    await appendFile(path, '\n{"type":"mode","mode":"normal","sessionId":"22222222-2222-4222-8222-222222222222"}\n');
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    const grownStamp = await stampOf();
    const grown = grownStamp.archive!;
    assert.equal(grown.file, first.file, 'the same archive file');
    assert.ok(grown.bytes > first.bytes);
    const bytes = await readFile(join(dir, grown.file));
    assert.deepEqual(
      bytes.subarray(0, first.bytes),
      (await readFile(join(dir, first.file))).subarray(0, first.bytes),
      'the first member as it was',
    );
    const grownText = await readFile(path);
    assert.deepEqual(gunzipSync(bytes), grownText);
    // Lines 1–7, the pending line 8 completed, and line 9.
    assert.deepEqual([grownStamp.lines, grownStamp.versions], [9, undefined]);

    // Cut short (one line, other bytes; the same file on the disk): a new archive file, and the old one stays as version 1.
    await writeFile(path, '{"type":"mode","mode":"plan","sessionId":"22222222-2222-4222-8222-222222222222"}\n');
    const cut = await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    assert.match(
      cut.stderr,
      new RegExp(`weave ingest: note: ${path}: truncated; the 9 lines read before are kept in the archive as version 1\n`),
    );
    const cutStamp = await stampOf();
    assert.notEqual(cutStamp.archive!.file, first.file);
    assert.deepEqual(gunzipSync(await readFile(join(dir, cutStamp.archive!.file))), await readFile(path));
    assert.deepEqual(cutStamp.versions, [{ ...grown, lines: 9 }]);
    assert.deepEqual(gunzipSync(await readFile(join(dir, first.file))), grownText, 'version 1 holds every byte read before');

    // Replaced (another file renamed over it): version 2 is the one line read of the file cut short.
    await writeFile(
      `${path}.new`,
      '{"type":"mode","mode":"auto","sessionId":"22222222-2222-4222-8222-222222222222"}\n{"type":"mode","mode":"plan","sessionId":"22222222-2222-4222-8222-222222222222"}\n',
    );
    await rename(`${path}.new`, path);
    const replaced = await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    assert.match(
      replaced.stderr,
      new RegExp(`weave ingest: note: ${path}: replaced; the 1 line read before is kept in the archive as version 2\n`),
    );
    const replacedStamp = await stampOf();
    assert.deepEqual(replacedStamp.versions, [
      { ...grown, lines: 9 },
      { ...cutStamp.archive!, lines: 1 },
    ]);
    // The graph follows the file as it is now; status and verify count the versions kept.
    const status = JSON.parse((await run(WEAVE, ['status', '--store', dir, '--json'])).stdout);
    assert.deepEqual(status.versions, { files: 1, versions: 2, lines: 10 });
    const verified = await run(WEAVE, ['verify', '--store', dir, '--no-daemon']);
    assert.match(
      verified.stdout,
      /\n2 earlier version\(s\) of 1 file\(s\) kept in the archive \(10 lines read of them\); the graph holds the files as they are now\n/,
    );
    assert.match(verified.stdout, /\nverified: /);
    // Read again keeping no archive: the file loses its archive whole, versions too.
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect', '--force', '--no-archive']);
    assert.deepEqual([(await stampOf()).archive, (await stampOf()).versions], [undefined, undefined]);
    const left = await readdir(join(dir, 'archive'));
    for (const file of [first.file, cutStamp.archive!.file, replacedStamp.archive!.file])
      assert.equal(left.includes(file.slice('archive/'.length)), false, file);
  } finally {
    await removeDir(work);
  }
});

test('--no-archive keeps no copy; the next ingest with the archive on copies the unchanged sessions in without reading them', async () => {
  const work = await tempDir('weave-archive-');
  try {
    const root = join(work, 'projects');
    const dir = join(work, 'store');
    await cp(join(FIXTURES, 'spine'), root, { recursive: true });
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect', '--no-archive']);
    assert.equal((await readdir(dir)).includes('archive'), false);
    const graphs = (await readManifest(dir))!.graphs;
    assert.ok(Object.values(graphs).every((e) => !e.found && (e.sources ?? []).every((s) => !s.archive)));
    const files = Object.values(graphs).map((e) => e.file);

    const again = await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    assert.match(again.stdout, /^ingested: 0 sessions read \(2 unchanged\) · .* · 0\.0 MB archived\n$/);
    const now = (await readManifest(dir))!.graphs;
    assert.deepEqual(
      Object.values(now).map((e) => e.file),
      files,
      'the graphs stay',
    );
    const copies = await archived(dir);
    const sources = (await readdir(root, { recursive: true })).map((f) => join(root, String(f))).filter((f) => /\.(jsonl|json)$/.test(f));
    assert.deepEqual([...copies.keys()].sort(), sources.sort());
    for (const path of sources) assert.deepEqual(copies.get(path), await readFile(path), path);
    // Each session graph in three files (spine, derived part, state), eight sources archived, two sessions as found;
    // and each session's search documents and usage rows, the index over the documents, and the links pass's scans.
    const self = (await run(WEAVE, ['verify', '--self', '--store', dir])).stdout;
    assert.ok(self.startsWith('store: 2 graphs in 16 files and 6 other files'), self);
  } finally {
    await removeDir(work);
  }
});

test('a journal that grew is archived whole again, its old copy dropped, not kept as a version: only a change that loses bytes read keeps one', async () => {
  const { work, root, dir } = await spineCopy();
  try {
    const graph = 'urn:soul:local:Weave/graph/11111111-1111-4111-8111-111111111111';
    const journalStamp = async () => (await readManifest(dir))!.graphs[graph].sources!.find((s) => s.path.endsWith('/journal.jsonl'))!;
    const path = (await journalStamp()).path;
    const before = await readFile(path);
    await appendFile(path, before.subarray(0, before.indexOf('\n') + 1));
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    const grown = await journalStamp();
    assert.equal(grown.versions, undefined);
    assert.deepEqual(gunzipSync(await readFile(join(dir, grown.archive!.file))), await readFile(path));
    // Rewritten (its first byte another): the copy before stays, as version 1.
    const now = await readFile(path);
    await writeFile(path, Buffer.concat([Buffer.from(' '), now.subarray(1)]));
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    const rewritten = await journalStamp();
    assert.deepEqual(rewritten.versions, [{ ...grown.archive!, lines: 0 }]);
  } finally {
    await removeDir(work);
  }
});
