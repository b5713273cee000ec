import assert from 'node:assert/strict';
import { appendFile, copyFile, cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { dialect as claudeCode } from '../src/dialect/claude-code/index.ts';
import { ingest, type IngestOptions, type IngestReport } from '../src/ingest.ts';
import { READERS } from '../src/readers/registry.ts';
import { SECRET_KEY_FILE } from '../src/readers/secret/key.ts';
import { readManifest } from '../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from './helpers.ts';

/**
 * Sessions read side by side (`jobs`: this thread and reading threads, src/session-pool.ts) make
 * the store one thread makes: the same manifest, graph for graph and file for file (their names
 * are digests of their bytes), the same problems in the same order, the same report; a session
 * carried on in a thread too; and a run stopped while threads read leaves no file the manifest
 * does not name.
 */

/** A store as its manifest names it, archive files masked (their names are random), with the run's report and problems. */
async function made(dir: string, report: IngestReport, problems: string[]) {
  const manifest = (await readManifest(dir))!;
  // Times are the run's own; everything else is compared.
  const { millis: _m, derived, readers, ...counts } = report;
  const { millis: _rm, cpuMillis: _rc, ...found } = readers!;
  const sorted = (record: Record<string, unknown> = {}) =>
    Object.fromEntries(Object.entries(record).sort(([x], [y]) => x.localeCompare(y)));
  return {
    manifest: JSON.stringify({ graphs: sorted(manifest.graphs), files: sorted(manifest.files) }).replace(/archive\/[^"]+/g, 'archive/…'),
    graphs: Object.keys(manifest.graphs).sort(),
    problems,
    counts,
    readers: found,
    ran: derived.ran,
  };
}

async function run(paths: string[], dir: string, jobs: number, more: Partial<IngestOptions> = {}) {
  const problems: string[] = [];
  const report = await ingest(paths, {
    storeDir: dir,
    soul: 'local',
    jobs,
    readers: { list: READERS },
    onProblem: (p) => problems.push(`${p.path}:${p.lineNo} ${p.kind}: ${p.message}`),
    ...more,
  });
  return made(dir, report, problems);
}

test('sessions read side by side make the store one thread makes, carried on too', async () => {
  const sources = await tempDir();
  const [one, many] = [await tempDir(), await tempDir()];
  try {
    await cp(FIXTURES, sources, { recursive: true });
    // One key for both stores: made by the first run, given to the second before it begins.
    const first = await run([sources], one, 1);
    await copyFile(join(one, SECRET_KEY_FILE), join(many, SECRET_KEY_FILE));
    const side = await run([sources], many, 3);
    assert.ok(first.graphs.length > 200, `${first.graphs.length} graphs`);
    assert.ok(first.problems.length > 10, `${first.problems.length} problems`);
    assert.deepEqual(side, first);

    // Grown sessions: each is carried on (only its new lines read), here and in a thread.
    const grown: string[] = [];
    for (const name of (await readdir(join(sources, 'readers'), { recursive: true })).filter((n) => n.endsWith('.jsonl')).sort()) {
      const path = join(sources, 'readers', name);
      const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
      await appendFile(path, `${lines.at(-1)}\n`);
      grown.push(name);
    }
    assert.ok(grown.length >= 3);
    const again = await run([sources], one, 1);
    const againSide = await run([sources], many, 3);
    assert.ok(again.counts.carriedOn >= 3, `${again.counts.carriedOn} carried on`);
    assert.deepEqual(againSide, again);
  } finally {
    for (const dir of [sources, one, many]) await removeDir(dir);
  }
});

test('a run stopped while threads read stores what it adopted, and no file the manifest does not name', async () => {
  const dir = await tempDir();
  try {
    const stop = new AbortController();
    let sessions = 0;
    const report = await ingest([FIXTURES], {
      storeDir: dir,
      soul: 'local',
      jobs: 3,
      stop: stop.signal,
      onSession: () => {
        if (++sessions === 5) stop.abort();
      },
    });
    assert.equal(report.sessions, 5);
    assert.ok((report.notRead ?? 0) > 20, `${report.notRead} not read`);
    const manifest = (await readManifest(dir))!;
    const named = new Set(
      [
        ...Object.values(manifest.graphs).flatMap((e) => [
          e.file,
          e.derived?.file,
          e.state?.file,
          e.found,
          ...(e.sources ?? []).map((s) => s.archive?.file),
        ]),
      ]
        .concat(Object.values(manifest.files ?? {}).map((f) => f.file))
        .filter(Boolean),
    );
    for (const folder of ['graphs', 'archive']) {
      const names = await readdir(join(dir, folder)).catch(() => []);
      for (const name of names) assert.ok(named.has(`${folder}/${name}`), `${folder}/${name} is named by the manifest`);
    }
    // The next run reads the rest.
    const rest = await ingest([FIXTURES], { storeDir: dir, soul: 'local', jobs: 3 });
    assert.equal(rest.sessions + rest.skipped, report.sessions + (report.notRead ?? 0));
  } finally {
    await removeDir(dir);
  }
});

test("sessions a reading thread cannot read (it could not start) are read by the run's own thread", async () => {
  const [dir, plain] = [await tempDir(), await tempDir()];
  try {
    // A dialect the threads cannot load (its module is not there): each one fails as it starts.
    const unloadable = { ...claudeCode, module: pathToFileURL(join(dir, 'no-such-dialect.ts')).href };
    const paths = [join(FIXTURES, 'spine'), join(FIXTURES, 'readers')];
    const report = await ingest(paths, { storeDir: dir, soul: 'local', jobs: 3, dialects: [unloadable] });
    const expected = await ingest(paths, { storeDir: plain, soul: 'local', jobs: 1 });
    assert.equal(expected.sessions, 6);
    assert.equal(report.failed, 0);
    assert.deepEqual([report.sessions, report.records, report.quads], [expected.sessions, expected.records, expected.quads]);
    const names = async (d: string) => Object.keys((await readManifest(d))!.graphs).sort();
    assert.deepEqual(await names(dir), await names(plain));
  } finally {
    await removeDir(dir);
    await removeDir(plain);
  }
});
