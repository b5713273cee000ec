import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { appendFile, chmod, cp, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ingest } from '../../src/ingest.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { openQueries, selectRows } from '../../src/store/queries.ts';
import { verify } from '../../src/verify.ts';
import { FIXTURES, removeDir, REPO, tempDir } from '../helpers.ts';

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const RECORDS = join(FIXTURES, 'records');
const S3 = '33333333-3333-4333-8333-333333333333';
const S8 = '88888888-8888-4888-8888-888888888888';

/** A copy of the records fixtures and a store built from it, for tests that change either. */
async function copyAndIngest(): Promise<{ work: string; dir: string; project: string }> {
  const work = await tempDir();
  const dir = await tempDir();
  await cp(RECORDS, work, { recursive: true });
  await ingest([work], { storeDir: dir, soul: 'local' });
  return { work, dir, project: join(work, '-home-ada-records-demo') };
}

test('the records fixtures verify: every line an event, every text matching its source', async () => {
  const { work, dir } = await copyAndIngest();
  try {
    const progress: string[] = [];
    const report = await verify({ storeDir: dir, onProgress: (checked, total) => progress.push(`${checked}/${total}`) });
    assert.equal(report.ok, true);
    // Told once the six files are known, then after each.
    assert.deepEqual(progress, ['0/6', '1/6', '2/6', '3/6', '4/6', '5/6', '6/6']);
    assert.deepEqual(
      report.sessions.map((r) => [r.session.slice(0, 8), r.files, r.lines, r.events, r.missing, r.contents, r.cut, r.mismatched]),
      [
        // 31 texts: every stored text of the attachment session, counted line by line in the test of
        // each kind, and its AI title; the one not held whole is the queued prompt's image (hash_only).
        ['33333333', 1, 32, 32, 0, 31, 1, 0],
        ['44444444', 1, 18, 18, 0, 17, 0, 0],
        // The persisted tool output is size_only. Six of the texts are a summary, a last prompt, two
        // AI titles, a custom title and an agent name.
        ['55555555', 1, 29, 29, 0, 16, 1, 0],
        ['66666666', 1, 2, 2, 0, 2, 0, 0],
        // Two of them summaries.
        ['77777777', 1, 6, 6, 0, 6, 0, 0],
        // Image hash_only, two signatures and the redacted payload omitted, empty thinking
        // unavailable, redacted thinking redacted: 6 of 9.
        ['88888888', 1, 5, 5, 0, 9, 6, 0],
      ],
    );
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('malformed, pending and replayed lines are accounted for as such', async () => {
  const dir = await tempDir();
  try {
    await ingest([join(FIXTURES, 'spine')], { storeDir: dir, soul: 'local' });
    const report = await verify({ storeDir: dir });
    assert.equal(report.ok, true);
    const total = (key: 'lines' | 'events' | 'replayed' | 'malformed' | 'pending') => report.sessions.reduce((n, r) => n + r[key], 0);
    // The spine fixtures: 30 records (one a replay of u-0001), a broken line and an unfinished one.
    assert.deepEqual([total('lines'), total('events'), total('replayed'), total('malformed'), total('pending')], [32, 29, 1, 1, 1]);
    assert.deepEqual(
      report.notTranscripts.map((p) => p.slice(p.lastIndexOf('/') + 1)),
      ['journal.jsonl'],
    );
  } finally {
    await removeDir(dir);
  }
});

test('a line written after ingest is unaccounted for, and the file is said to have changed', async () => {
  const { work, dir, project } = await copyAndIngest();
  try {
    await appendFile(
      join(project, `${S8}.jsonl`),
      '{"type":"ai-title","aiTitle":"Late","sessionId":"88888888-8888-4888-8888-888888888888"}\n',
    );
    const report = await verify({ storeDir: dir });
    assert.equal(report.ok, false);
    const file = report.files.find((f) => f.session === S8)!;
    assert.deepEqual([file.missing, file.changedSinceIngest], [[6], true]);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('a source text changed in place, same size, is caught by its digest; so is a digest changed in the store', async () => {
  const { work, dir, project } = await copyAndIngest();
  try {
    const path = join(project, `${S8}.jsonl`);
    // The signature of line 2, c2lnbmF0dXJl, becomes another 12 bytes: the file keeps its size.
    await writeFile(path, (await readFile(path, 'utf8')).replace('"signature":"c2lnbmF0dXJl"', '"signature":"c2lnbmF0dXJM"'));
    let report = await verify({ storeDir: dir });
    const file = report.files.find((f) => f.session === S8)!;
    assert.equal(file.changedSinceIngest, false);
    // Its bytes are not those ingest read: the digest of the MiB that holds them differs.
    assert.equal(file.rewritten, true);
    assert.deepEqual(
      file.mismatches.map(({ lineNo, kind, pointer, message }) => ({ lineNo, kind, pointer, message })),
      [{ lineNo: 2, kind: 'mismatch', pointer: '/message/content/0/signature', message: 'the SHA-256 differs' }],
    );

    // Back as it was, and the store's declared digest of the image tampered with instead.
    await cp(join(RECORDS, '-home-ada-records-demo', `${S8}.jsonl`), path);
    const manifest = (await readManifest(dir))!;
    const graph = join(dir, manifest.graphs[sessionGraphIri('local', S8)].file);
    const nq = await readFile(graph, 'utf8');
    const sha = '2d4566582844690f8634a8b2534ea5221560038c6c0650c99140759bad603ae2';
    assert.equal(nq.split(sha).length - 1, 2, 'on the image block and its Content node');
    await writeFile(
      graph,
      nq.replace(
        `mediaData> <https://repolex.ai/ontology/weave#sha256> "${sha}"`,
        `mediaData> <https://repolex.ai/ontology/weave#sha256> "${'0'.repeat(64)}"`,
      ),
    );
    report = await verify({ storeDir: dir });
    assert.deepEqual(
      report.files
        .find((f) => f.session === S8)!
        .mismatches.map(({ lineNo, kind, pointer, message }) => ({ lineNo, kind, pointer, message })),
      [{ lineNo: 1, kind: 'mismatch', pointer: '/message/content/1/source/data', message: 'the SHA-256 differs' }],
    );
    assert.equal(report.ok, false);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test("the command's counts read with thousands separators, as weave usage's", async () => {
  const work = await tempDir();
  const dir = await tempDir();
  try {
    // One session of 1,200 mode records: each line an event, no text.
    const id = 'b1b1b1b1-0000-4000-8000-000000001200';
    const line = `${JSON.stringify({ type: 'mode', mode: 'normal', sessionId: id })}\n`;
    await cp(RECORDS, work, { recursive: true, filter: (path) => !path.endsWith('.jsonl') });
    await writeFile(join(work, '-home-ada-records-demo', `${id}.jsonl`), line.repeat(1200));
    await ingest([work], { storeDir: dir, soul: 'local' });
    const { stdout } = await run(WEAVE, ['verify', '--store', dir]);
    assert.deepEqual(stdout.split('\n').slice(0, 5), [
      'Session                               Files  Lines  Events  Replayed  Malformed  Pending  Missing  Texts  Partial  Differ  Title',
      '------------------------------------  -----  -----  ------  --------  ---------  -------  -------  -----  -------  ------  -----',
      `${id}      1  1,200   1,200         0          0        0        0      0        0       0`,
      '------------------------------------  -----  -----  ------  --------  ---------  -------  -------  -----  -------  ------  -----',
      'Total                                     1  1,200   1,200         0          0        0        0      0        0       0',
    ]);
    assert.match(stdout, /\nverified: 1,200 lines in 1 file accounted for; 0 texts match their source \(0 not held whole\)\n$/);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('the command: a table per session, exit 0; exit 1 naming file and line when something is missing', async () => {
  const { work, dir, project } = await copyAndIngest();
  try {
    const ok = await run(WEAVE, ['verify', '--store', dir]);
    assert.equal(
      ok.stdout,
      [
        'Session                               Files  Lines  Events  Replayed  Malformed  Pending  Missing  Texts  Partial  Differ  Title',
        '------------------------------------  -----  -----  ------  --------  ---------  -------  -------  -----  -------  ------  -------------------------',
        '33333333-3333-4333-8333-333333333333      1     32      32         0          0        0        0     31        1       0  Tidy the README',
        '44444444-4444-4444-8444-444444444444      1     18      18         0          0        0        0     17        0       0  List the files',
        '55555555-5555-4555-8555-555555555555      1     29      29         0          0        0        0     16        1       0  records-demo: tests',
        '66666666-6666-4666-8666-666666666666      1      2       2         0          0        0        0      2        0       0  Plan the migration',
        '77777777-7777-4777-8777-777777777777      1      6       6         0          0        0        0      6        0       0  Continuing with step two.',
        '88888888-8888-4888-8888-888888888888      1      5       5         0          0        0        0      9        6       0  What is in this picture?',
        '------------------------------------  -----  -----  ------  --------  ---------  -------  -------  -----  -------  ------  -------------------------',
        'Total                                     6     92      92         0          0        0        0     81        8       0',
        // Six session graphs and the links graph (7777… names a turn of 6666…), a file each; each
        // session graph's derived part and state; each session's one transcript archived, and the
        // session as found: 7 + 6 × 4; and each session's search documents and usage rows, the
        // index over the documents and the links pass's scans: 6 × 2 + 2.
        'store: 7 graphs in 31 files and 14 other files, each of the length and digests the manifest names, with the quads it counts; no file it does not name',
        'verified: 92 lines in 6 files accounted for; 81 texts match their source (8 not held whole)',
        '',
      ].join('\n'),
    );
    // At 80 columns: ids by their start, the counts that are 0 everywhere left out and named, long lines broken.
    const narrow = await run(WEAVE, ['verify', '--store', dir], { env: { ...process.env, COLUMNS: '80' } });
    assert.equal(
      narrow.stdout,
      [
        'Session    Files  Lines  Events  Texts  Partial  Title',
        '---------  -----  -----  ------  -----  -------  -------------------------',
        '33333333…      1     32      32     31        1  Tidy the README',
        '44444444…      1     18      18     17        0  List the files',
        '55555555…      1     29      29     16        1  records-demo: tests',
        '66666666…      1      2       2      2        0  Plan the migration',
        '77777777…      1      6       6      6        0  Continuing with step two.',
        '88888888…      1      5       5      9        6  What is in this picture?',
        '---------  -----  -----  ------  -----  -------  -------------------------',
        'Total          6     92      92     81        8',
        '(0 in every session: Replayed, Malformed, Pending, Missing, Differ)',
        'store: 7 graphs in 31 files and 14 other files, each of the length and digests',
        '  the manifest names, with the quads it counts; no file it does not name',
        'verified: 92 lines in 6 files accounted for; 81 texts match their source (8 not',
        '  held whole)',
        '',
      ].join('\n'),
    );

    const path = join(project, `${S3}.jsonl`);
    await appendFile(path, '{"type":"mode","mode":"normal","sessionId":"33333333-3333-4333-8333-333333333333"}\n');
    await assert.rejects(run(WEAVE, ['verify', '--store', dir, path]), (e: { code: number; stdout: string }) => {
      assert.equal(e.code, 1);
      assert.match(e.stdout, new RegExp(`${path}: changed since it was ingested \\(run weave ingest\\)\n${path}:33: not in the store\n`));
      assert.match(e.stdout, /NOT verified: 1 lines unaccounted for, 0 texts differ, 0 files not in the store\n$/);
      return true;
    });
    const json = JSON.parse((await run(WEAVE, ['verify', '--store', dir, join(project, `${S8}.jsonl`), '--json'])).stdout);
    assert.deepEqual([json.ok, json.files.length, json.files[0].contents], [true, 1, 9]);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('a transcript never ingested is reported as not in the store', async () => {
  const { work, dir } = await copyAndIngest();
  try {
    const other = join(FIXTURES, 'spine', '-home-ada-weave-demo', '22222222-2222-4222-8222-222222222222.jsonl');
    const report = await verify({ storeDir: dir, paths: [other] });
    assert.equal(report.ok, false);
    // Its 8 lines hold one blank; the agent file beside it comes along with its 2.
    assert.deepEqual(
      report.files.map((f) => [f.inStore, f.missing.length]),
      [
        [false, 7],
        [false, 2],
      ],
    );
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('verify asks the store for the graphs of the files it checks, one graph at a time, and no other', async () => {
  const { work, dir } = await copyAndIngest();
  try {
    const S4 = '44444444-4444-4444-8444-444444444444';
    const queries = await openQueries(dir);
    const asked: { graphs: string[]; rows: number }[] = [];
    const select = async (query: string) => {
      const rows = await selectRows(queries, query);
      asked.push({ graphs: [...query.matchAll(/GRAPH <([^>]+)>/g)].map((m) => m[1]), rows: rows.length });
      return rows;
    };
    const report = await verify({ storeDir: dir, paths: [join(work, '-home-ada-records-demo', `${S4}.jsonl`)], select });
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.sessions.map((r) => [r.session.slice(0, 8), r.lines, r.contents]),
      [['44444444', 18, 17]],
    );
    // Which graph holds each of the six files (all 6 transcripts), then that session's graph: its
    // 18 lines and its 17 texts; then the titles (each transcript has one, from its first prompt
    // at least). The other five sessions’ 74 lines and 64 texts
    // are never asked for (before, one query each for the whole store: 92 and 81 rows).
    const graph = sessionGraphIri('local', S4);
    assert.deepEqual(
      asked.map((a) => [a.graphs, a.rows]),
      [
        [[], 6],
        [[graph], 18],
        [[graph], 17],
        [[], 6],
      ],
    );
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('a file ingested through a link is the same file named by its real path, and the other way round', async () => {
  const work = await tempDir();
  const dir = await tempDir();
  const other = await tempDir();
  const moved = await tempDir();
  try {
    const real = join(work, 'real');
    await cp(RECORDS, real, { recursive: true });
    // ~/.claude as a link, as dotfiles often make it: one store reads the sessions through it,
    // the other by their real path; each verifies the file named either way, reported by the
    // real path both key it by.
    const link = join(work, 'link');
    await symlink(real, link);
    await ingest([link], { storeDir: dir, soul: 'local' });
    await ingest([real], { storeDir: other, soul: 'local' });
    const file = join('-home-ada-records-demo', `${S8}.jsonl`);
    const check = async (store: string, path: string, reported: string) => {
      const report = await verify({ storeDir: store, paths: [path] });
      assert.equal(report.ok, true, path);
      assert.deepEqual(
        report.files.map((f) => [f.path, f.inStore, f.lines, f.events, f.missing.length, f.contents]),
        [[reported, true, 5, 5, 0, 9]],
      );
    };
    for (const store of [dir, other]) for (const path of [join(real, file), join(link, file)]) await check(store, path, join(real, file));
    // A store that keys the file by a path that is a link now (the folder moved, and linked back
    // where it was; or a store written before sources were keyed by real path) still finds it.
    const away = join(moved, 'real');
    await rename(real, away);
    await symlink(away, real);
    for (const path of [join(away, file), join(real, file)]) await check(other, path, join(away, file));
  } finally {
    await removeDir(work);
    await removeDir(dir);
    await removeDir(other);
    await removeDir(moved);
  }
});

/**
 * Whether user nobody can read this checkout (its code, the ontology, tsx): a clone under a 0700
 * directory (`mktemp -d`, /root) cannot be, and verify run as nobody would fail on the ontology.
 */
function nobodyReadsCheckout(): boolean {
  const files = [join(REPO, 'ontology', 'weave.ttl'), join(REPO, 'src', 'verify.ts'), join(REPO, 'node_modules', 'tsx', 'package.json')];
  const script = `process.setgid(65534); process.setuid(65534); for (const f of ${JSON.stringify(files)}) require('node:fs').accessSync(f, 4);`;
  return spawnSync(process.execPath, ['-e', script]).status === 0;
}

test('a transcript verify cannot read is reported, and the files after it are checked; the run fails at the end (issue 25)', {
  skip:
    process.getuid?.() !== 0
      ? 'needs root to run verify as another user'
      : !nobodyReadsCheckout() && 'user nobody cannot read this checkout (a clone under a 0700 directory), so verify cannot run as nobody',
}, async () => {
  const { work, dir, project } = await copyAndIngest();
  try {
    // As root nothing is unreadable: verify runs as nobody (uid 65534), and one transcript is closed to it.
    await chmod(work, 0o755);
    await chmod(dir, 0o755);
    for (const entry of await readdir(dir, { recursive: true })) await chmod(join(dir, String(entry)), 0o755);
    const closed = join(project, `${S3}.jsonl`);
    await chmod(closed, 0o600);
    const script = `import { verify } from ${JSON.stringify(join(REPO, 'src', 'verify.ts'))};
      process.setgid(65534);
      process.setuid(65534);
      const r = await verify({ storeDir: ${JSON.stringify(dir)} });
      console.log(JSON.stringify({ ok: r.ok, files: r.files.map((f) => [f.path.slice(f.path.lastIndexOf('/') + 1, f.path.lastIndexOf('/') + 9), f.unreadable ?? '', f.lines]) }));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO,
      encoding: 'utf8',
      env: { ...process.env, HOME: work },
    });
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), {
      ok: false,
      files: [
        ['33333333', 'cannot be read (EACCES)', 0],
        ['44444444', '', 18],
        ['55555555', '', 29],
        ['66666666', '', 2],
        ['77777777', '', 6],
        ['88888888', '', 5],
      ],
    });
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});
