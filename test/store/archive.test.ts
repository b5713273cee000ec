import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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
      /^ingested: 1 sessions read \(1 unchanged\) · 2 files · .* · 1 sessions read from the archive \(their files are gone\)\n$/,
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
    assert.match(verified.stdout, /\nverified: 32 lines in 5 files accounted for; 31 texts match their source \(5 not held whole\)\n$/);

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

test('a file that grows gets its new bytes appended as one more gzip member; a file rewritten gets a new archive', async () => {
  const { work, root, dir } = await spineCopy();
  try {
    const path = join(root, PROJECT, '22222222-2222-4222-8222-222222222222.jsonl');
    const first = (await readManifest(dir))!.graphs['urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222'].sources!.find(
      (s) => s.path === path,
    )!.archive!;
    // The pending last line completed, and one more line.
    await appendFile(path, '\n{"type":"mode","mode":"normal","sessionId":"22222222-2222-4222-8222-222222222222"}\n');
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    const grown = (await readManifest(dir))!.graphs['urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222'].sources!.find(
      (s) => s.path === path,
    )!.archive!;
    assert.equal(grown.file, first.file, 'the same archive file');
    assert.ok(grown.bytes > first.bytes);
    const bytes = await readFile(join(dir, grown.file));
    assert.deepEqual(
      bytes.subarray(0, first.bytes),
      (await readFile(join(dir, first.file))).subarray(0, first.bytes),
      'the first member as it was',
    );
    assert.deepEqual(gunzipSync(bytes), await readFile(path));

    // Rewritten (shorter, other bytes): a new archive file, and the old one goes.
    await writeFile(path, '{"type":"mode","mode":"plan","sessionId":"22222222-2222-4222-8222-222222222222"}\n');
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    const rewritten = (await readManifest(dir))!.graphs['urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222'].sources!.find(
      (s) => s.path === path,
    )!.archive!;
    assert.notEqual(rewritten.file, first.file);
    assert.deepEqual(gunzipSync(await readFile(join(dir, rewritten.file))), await readFile(path));
    assert.equal((await readdir(join(dir, 'archive'))).includes(first.file.slice('archive/'.length)), false);
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
    // and each session's search documents and usage rows, and the index over the documents.
    const self = (await run(WEAVE, ['verify', '--self', '--store', dir])).stdout;
    assert.ok(self.startsWith('store: 2 graphs in 16 files and 5 other files'), self);
  } finally {
    await removeDir(work);
  }
});
