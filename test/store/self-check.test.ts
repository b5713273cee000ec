import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { appendFile, copyFile, cp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readManifest, renderManifest, storeFilesOf } from '../../src/store/manifest.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * `weave verify` checks the store against itself before any source: a store that lost graphs,
 * files or bytes never verifies clean, while what a killed writer leaves is only noted, and goes
 * with the next writer.
 */

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const SPINE = join(FIXTURES, 'spine');
const S1 = sessionGraphIri('local', '11111111-1111-4111-8111-111111111111');
const S2 = sessionGraphIri('local', '22222222-2222-4222-8222-222222222222');

type Outcome = { code: number; stdout: string; stderr: string };
const weave = (args: string[]): Promise<Outcome> =>
  run(WEAVE, args).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

/** The spine fixtures ingested (the readers too: reader graphs name their session), in a fresh store. */
async function spineStore(): Promise<string> {
  const dir = await tempDir('weave-self-');
  await run(WEAVE, ['ingest', SPINE, '--store', dir]);
  return dir;
}

async function editManifest(dir: string, change: (m: any) => void): Promise<void> {
  const manifest = (await readManifest(dir))!;
  change(manifest);
  await writeFile(join(dir, 'manifest.json'), renderManifest(manifest));
}

test('a clean store checks clean, alone and before its sources', async () => {
  const dir = await spineStore();
  try {
    const manifest = (await readManifest(dir))!;
    const graphs = Object.keys(manifest.graphs).length;
    const files = Object.values(manifest.graphs).reduce((n, e) => n + storeFilesOf(e).length, 0);
    // Besides a file per graph: each session graph's derived part and state; 1111… archives three
    // transcripts, two .meta.json and a journal, 2222… two transcripts; and each session as it was found.
    assert.equal(files, graphs + 2 * 2 + 6 + 2 + 2);
    // And the derivations' files: the links pass's scans, each session's search documents, the index over them, the readers' secret key, each session's usage rows.
    assert.deepEqual(Object.keys(manifest.files!).sort(), [
      'links/scans',
      'search/documents/11111111-1111-4111-8111-111111111111',
      'search/documents/22222222-2222-4222-8222-222222222222',
      'search/index',
      'secret.key',
      'usage/rows/11111111-1111-4111-8111-111111111111',
      'usage/rows/22222222-2222-4222-8222-222222222222',
    ]);
    const self = await weave(['verify', '--self', '--store', dir]);
    assert.deepEqual(self, {
      code: 0,
      stdout: `store: ${graphs} graphs in ${files} files and ${Object.keys(manifest.files!).length} other files, each of the length and digests the manifest names, with the quads it counts; no file it does not name\n`,
      stderr: '',
    });
    assert.equal((await weave(['verify', '--store', dir])).code, 0);
  } finally {
    await removeDir(dir);
  }
});

test('a store that lost a graph entry, a file, the end of a file, or quads never verifies clean', async () => {
  const dir = await spineStore();
  const damaged = await tempDir('weave-self-');
  try {
    const manifest = (await readManifest(dir))!;
    const s1 = manifest.graphs[S1];
    const s2 = manifest.graphs[S2];
    const cases: [string, (d: string) => Promise<void>, string[]][] = [
      [
        'an entry lost (the file stays)',
        (d) => editManifest(d, (m) => delete m.graphs[S1]),
        [
          ...storeFilesOf(s1).map((f) => `${f.file}: a file the manifest does not name (a graph the store lost?)`),
          ...Object.entries(manifest.graphs)
            .filter(([, e]) => e.reader && e.sessionId === '11111111-1111-4111-8111-111111111111')
            .map(
              ([g, e]) =>
                `${g}: findings of the reader ${e.reader} for session 11111111-1111-4111-8111-111111111111, whose graph is not in the store`,
            ),
        ],
      ],
      ['a file lost', (d) => rm(join(d, s2.file)), [`${s2.file}: missing (a file of ${S2})`]],
      [
        'the end of a file lost',
        (d) => truncate(join(d, s2.file), s2.bytes! - 10),
        [`${s2.file}: ${s2.bytes! - 10} bytes, the manifest names ${s2.bytes} (a file of ${S2} lost its end)`],
      ],
      [
        'a quad count that is not the file',
        (d) => editManifest(d, (m) => (m.graphs[S2].quads += 1)),
        [`${S2}: ${s2.quads} quads in its files, the manifest counts ${s2.quads + 1}`],
      ],
    ];
    for (const [what, damage, problems] of cases) {
      await rm(damaged, { recursive: true, force: true });
      await cp(dir, damaged, { recursive: true });
      await damage(damaged);
      const self = await weave(['verify', '--self', '--store', damaged]);
      assert.equal(self.code, 1, what);
      const lines = self.stdout.trimEnd().split('\n');
      assert.deepEqual(
        [...lines.slice(0, -1).sort(), lines.at(-1)],
        [...problems.sort(), `store NOT consistent: ${problems.length} problem(s)`],
        what,
      );
    }
    // The plain command fails on the lost entry too, and says which transcripts the store lacks.
    await rm(damaged, { recursive: true, force: true });
    await cp(dir, damaged, { recursive: true });
    await editManifest(damaged, (m) => delete m.graphs[S1]);
    const plain = await weave(['verify', '--store', damaged]);
    assert.equal(plain.code, 1);
    assert.match(
      plain.stdout,
      new RegExp(`\n${SPINE}/-home-ada-weave-demo/11111111-1111-4111-8111-111111111111.jsonl: not in the store\n`),
    );
    assert.match(
      plain.stdout,
      /\nNOT verified: \d+ lines unaccounted for, 0 texts differ, 3 files not in the store, the store not consistent\n$/,
    );
  } finally {
    await removeDir(dir);
    await removeDir(damaged);
  }
});

test('a graph part with one byte changed, its length and quads the same, never verifies clean: its digest differs (issue 25)', async () => {
  const dir = await spineStore();
  const damaged = await tempDir('weave-self-');
  try {
    const s1 = (await readManifest(dir))!.graphs[S1];
    for (const file of [s1.file, s1.derived!.file, s1.state!.file]) {
      await rm(damaged, { recursive: true, force: true });
      await cp(dir, damaged, { recursive: true });
      const bytes = await readFile(join(damaged, file));
      // One letter of the part's first "weave" (an IRI's, or the state's) becomes another.
      const at = bytes.indexOf('weave');
      assert.ok(at >= 0, file);
      bytes[at] = 'W'.charCodeAt(0);
      await writeFile(join(damaged, file), bytes);
      const self = await weave(['verify', '--self', '--store', damaged]);
      assert.deepEqual(
        [self.code, self.stdout],
        [
          1,
          `${file}: its bytes are not those the manifest names (its digest differs; a file of ${S1})\nstore NOT consistent: 1 problem(s)\n`,
        ],
        file,
      );
    }
  } finally {
    await removeDir(dir);
    await removeDir(damaged);
  }
});

test('a plain verify fails when a transcript in the folders the store was read from is not in it', async () => {
  const work = await tempDir('weave-self-');
  const dir = await tempDir('weave-self-');
  try {
    await cp(SPINE, work, { recursive: true });
    await run(WEAVE, ['ingest', work, '--store', dir, '--no-detect']);
    assert.equal((await weave(['verify', '--store', dir])).code, 0);
    // A session written after the ingest: the store does not have it.
    const late = join(work, '-home-ada-weave-demo', '99999999-9999-4999-8999-999999999999.jsonl');
    await copyFile(join(work, '-home-ada-weave-demo', '22222222-2222-4222-8222-222222222222.jsonl'), late);
    const plain = await weave(['verify', '--store', dir]);
    assert.equal(plain.code, 1);
    assert.match(plain.stdout, new RegExp(`\n${late}: not in the store\n`));
    assert.match(plain.stdout, /\nNOT verified: \d+ lines unaccounted for, 0 texts differ, 1 file not in the store\n$/);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('what a killed writer left is noted, not a problem, and goes with the next writer', async () => {
  const dir = await spineStore();
  try {
    const manifest = (await readManifest(dir))!;
    const s2 = manifest.graphs[S2];
    // A writer killed while it held the lock: its lock stays, with its leftovers.
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test', 'store', 'hold-lock.ts'), dir], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    const since = JSON.parse(await readFile(join(dir, 'lock'), 'utf8')).since;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const unfinished = s2.file.replace(/\.[0-9a-f]{12}\.nq$/, '.0123456789ab.nq');
    const temp = `${s2.file.replace(/\.[0-9a-f]{12}\.nq$/, '.nq')}.${child.pid}.0.tmp`;
    await copyFile(join(dir, s2.file), join(dir, unfinished));
    await writeFile(join(dir, temp), '<urn:a> <urn:b> "cut');
    const cutOff = '<urn:a> <urn:b> <urn:c> .\n<urn:a> <urn:b> "cu';
    await appendFile(join(dir, s2.file), cutOff);

    // The holder's start as every command prints a time.
    const shown = `${since.slice(0, 10)} ${since.slice(11, 19)} UTC`;
    const left = `left by an interrupted write of pid ${child.pid} (weave serve, since ${shown}); the next writer removes it`;
    const self = await weave(['verify', '--self', '--store', dir]);
    assert.equal(self.code, 0);
    assert.deepEqual(
      self.stdout.trimEnd().split('\n').slice(0, -1).sort(),
      [
        `note: ${s2.file}: ${cutOff.length} bytes past what the manifest names, ${left}`,
        `note: ${temp}: a temporary file, ${left}`,
        `note: ${unfinished}: not named by the manifest, ${left}`,
      ].sort(),
    );

    const next = await weave(['ingest', SPINE, '--store', dir, '--no-detect']);
    assert.equal(next.code, 0);
    assert.match(
      next.stderr,
      new RegExp(
        `^weave ingest: note: took over the store lock of pid ${child.pid} \\(weave serve, since ${shown}\\), which is no longer running\nweave ingest: note: removed what an interrupted write left: 1 temporary file, 1 file of an unfinished version, 1 cut-off append\n`,
      ),
    );
    const after = await weave(['verify', '--self', '--store', dir]);
    assert.equal(after.stdout.includes('note:'), false);
    assert.equal(after.code, 0);
    assert.equal((await readFile(join(dir, s2.file))).length, s2.bytes);
    const named = Object.values(manifest.graphs).flatMap((e) =>
      storeFilesOf(e)
        .map((f) => f.file)
        .filter((f) => f.startsWith('graphs/')),
    );
    assert.deepEqual((await readdir(join(dir, 'graphs'))).sort(), named.map((f) => f.slice('graphs/'.length)).sort());
  } finally {
    await removeDir(dir);
  }
});

test('a first ingest killed before it wrote a manifest: the next writer removes every file it left, and the store verifies clean', async () => {
  const work = await tempDir('weave-self-');
  try {
    const whole = join(work, 'whole');
    const killed = join(work, 'killed');
    await run(WEAVE, ['ingest', SPINE, '--store', whole, '--no-detect']);
    // What that ingest wrote, but not the manifest naming it: the state of a run killed before its first manifest write.
    await cp(whole, killed, { recursive: true });
    await rm(join(killed, 'manifest.json'));
    const next = await weave(['ingest', SPINE, '--store', killed, '--no-detect']);
    assert.equal(next.code, 0);
    // The 16 files of the two session graphs and the 6 others (search documents and index, usage rows, the links' scans).
    assert.equal(next.stderr.split('\n')[0], 'weave ingest: note: removed what an interrupted write left: 22 files of unfinished versions');
    const self = await weave(['verify', '--self', '--store', killed]);
    assert.equal(self.code, 0);
    assert.equal(
      self.stdout,
      'store: 2 graphs in 16 files and 6 other files, each of the length and digests the manifest names, with the quads it counts; no file it does not name\n',
    );
  } finally {
    await removeDir(work);
  }
});
