import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, cp, open, readdir, readFile, rename, truncate, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { ingest } from '../../src/ingest.ts';
import { ONTOLOGY_GRAPH } from '../../src/rdf/vocab.ts';
import { archivedVersions, readManifest } from '../../src/store/manifest.ts';
import { openStore } from '../../src/store/store.ts';
import { verify } from '../../src/verify.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';
import { canonicalNQuads, type RdfTerm } from '../nquads.ts';

/**
 * Transcripts changed other than by appending, after a read (issue 25): one byte edited in place
 * (the size kept), the file cut short at any byte, or another file renamed over it, each maybe
 * followed by an append. The next ingest must give the graph one read of the files as they are
 * now gives, keep every byte read before as the file's last archived version, and verify clean.
 * CI runs a fixed seed: WEAVE_FUZZ_SEED (default 25) and WEAVE_FUZZ_CHANGE_RUNS (default 8).
 */

const RUNS = Number(process.env.WEAVE_FUZZ_CHANGE_RUNS ?? 8);
const SEED = Number(process.env.WEAVE_FUZZ_SEED ?? 25);
const FOLDERS = ['records', 'spine'];

/** The transcripts of a fixture folder, under it. */
async function transcriptsOf(folder: string): Promise<string[]> {
  const names = (await readdir(join(FIXTURES, folder), { recursive: true })).map(String);
  return names.filter((n) => n.endsWith('.jsonl') && !n.endsWith('journal.jsonl')).sort();
}

const TRANSCRIPTS = await Promise.all(FOLDERS.map(transcriptsOf));

const change = fc.record({
  folder: fc.nat(FOLDERS.length - 1),
  file: fc.nat(100),
  kind: fc.constantFrom('edit', 'truncate', 'replace'),
  /** Where in the file (a fraction of its size). */
  at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  byte: fc.constantFrom(...Buffer.from('aZ0 {"\\')),
  /** Lines of the file's start appended after the change (replayed records, or a broken line's end). */
  append: fc.nat(2),
});

function canonical(store: Awaited<ReturnType<typeof openStore>>['store']): string[] {
  return canonicalNQuads(store.match(null, null, null, null).filter((q) => q.graph.value !== ONTOLOGY_GRAPH) as unknown as RdfTerm[]);
}

test(`a transcript edited in place, cut short or replaced reads as one fresh read of it, its old bytes kept as a version (seed ${SEED}, ${RUNS} runs)`, async () => {
  await fc.assert(
    fc.asyncProperty(change, async ({ folder, file, kind, at, byte, append }) => {
      const work = await tempDir('weave-change-');
      try {
        const root = join(work, 'projects');
        await cp(join(FIXTURES, FOLDERS[folder]), root, { recursive: true });
        const name = TRANSCRIPTS[folder][file % TRANSCRIPTS[folder].length];
        const path = join(root, name);
        const store = join(work, 'store');
        await ingest([root], { storeDir: store, soul: 'local' });
        const before = await readFile(path);
        const offset = Math.floor(at * before.length);
        if (kind === 'edit') {
          const handle = await open(path, 'r+');
          await handle.write(Buffer.from([before[offset] === byte ? byte + 1 : byte]), 0, 1, offset);
          await handle.close();
        } else if (kind === 'truncate') await truncate(path, offset);
        else {
          const other = Buffer.from(before);
          other[offset] = before[offset] === byte ? byte + 1 : byte;
          await writeFile(`${path}.new`, other);
          await rename(`${path}.new`, path);
        }
        const lines = before.toString('utf8').split('\n');
        if (append) await appendFile(path, `${lines.slice(0, append).join('\n')}\n`);
        // A later time, as any write after the read has: a stamp left as it was is taken as unchanged (design.md).
        const later = new Date(Date.now() + 5000);
        await utimes(path, later, later);

        await ingest([root], { storeDir: store, soul: 'local' });
        const once = join(work, 'once');
        await ingest([root], { storeDir: once, soul: 'local' });
        assert.deepEqual(canonical((await openStore(store)).store), canonical((await openStore(once)).store));
        // The versions of the file the store keeps, in its session's stamp or, where the change moved it to another session, in the one it left.
        const versions = Object.values((await readManifest(store))!.graphs)
          .flatMap(archivedVersions)
          .filter((f) => f.path === path)
          .flatMap((f) => f.versions);
        // A change that leaves the bytes read as they were (a short file cut, then its lines appended again) is a file that grew.
        const after = await readFile(path);
        if (after.length >= before.length && after.subarray(0, before.length).equals(before)) assert.deepEqual(versions, []);
        else {
          const kept = await Promise.all(versions.map(async (v) => gunzipSync((await readFile(join(store, v.file))).subarray(0, v.bytes))));
          assert.ok(
            kept.some((bytes) => bytes.equals(before)),
            'the bytes read before are kept as a version',
          );
        }
        const report = await verify({ storeDir: store });
        assert.deepEqual([report.ok, report.versions.versions, report.files.filter((f) => f.rewritten).length], [true, versions.length, 0]);
      } finally {
        await removeDir(work);
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
});
