import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../src/cli/main.ts';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { FINDINGS_FORMAT } from '../../src/readers/emit.ts';
import { READERS } from '../../src/readers/registry.ts';
import { toolError } from '../../src/readers/tool/error.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { removeDir, tempDir } from '../helpers.ts';
import { READER_FIXTURES, SESSIONS } from './helpers.ts';

/** Every reader graph file's text, by graph IRI, plus the manifest's reader entries. */
async function readerFiles(dir: string): Promise<Record<string, string>> {
  const manifest = (await readManifest(dir))!;
  const out: Record<string, string> = {};
  for (const [graph, entry] of Object.entries(manifest.graphs))
    if (entry.reader) out[graph] = `${JSON.stringify(entry)}\n${await readFile(join(dir, entry.file), 'utf8')}`;
  return out;
}

/** A graph per session of the fixtures and reader; a reader's own description is one more graph each. */
const SESSION_GRAPHS = Object.keys(SESSIONS).length * READERS.length;
const READER_GRAPHS = SESSION_GRAPHS + READERS.length;

async function freshStore(): Promise<string> {
  const dir = await tempDir('weave-detect-');
  await ingest([READER_FIXTURES], { storeDir: dir, soul: 'local' });
  return dir;
}

test('running the readers again leaves every graph file and manifest entry byte-identical', async () => {
  const dir = await freshStore();
  try {
    const first = await detect({ storeDir: dir });
    assert.deepEqual([first.sessions, first.skipped, first.graphs], [4, 0, SESSION_GRAPHS]);
    // emojikey/harvest counts its emojikey/update findings too: 21 keys and 3 updates.
    assert.deepEqual(first.findings, {
      'emojikey/harvest': 24,
      'human/authored': 9,
      'tool/error': 2,
      'secret/exposure': 3,
      'agent/correction': 3,
    });
    const before = await readerFiles(dir);
    assert.equal(Object.keys(before).length, READER_GRAPHS, 'a graph per session and reader, and one per reader');
    await detect({ storeDir: dir });
    assert.deepEqual(await readerFiles(dir), before);

    // Reading the sessions again gives the same graph versions (a version is named by its bytes):
    // the readers' input has not changed, so none reruns, and nothing changes.
    assert.deepEqual((await detect({ storeDir: dir, onlyStale: true })).graphs, 0);
    await ingest([READER_FIXTURES], { storeDir: dir, soul: 'local', force: true });
    const rerun = await detect({ storeDir: dir, onlyStale: true });
    assert.deepEqual([rerun.sessions, rerun.skipped, rerun.graphs], [0, 4, 0]);
    assert.deepEqual(await readerFiles(dir), before);
  } finally {
    await removeDir(dir);
  }
});

test('a new reader version reruns only that reader; a rerun replaces its graph whole', async () => {
  const dir = await freshStore();
  try {
    await detect({ storeDir: dir });
    const bumped = READERS.map((r) => (r === toolError ? { ...toolError, version: '2', read: () => [] } : r));
    const report = await detect({ storeDir: dir, onlyStale: true, readers: bumped });
    assert.deepEqual([report.sessions, report.skipped, report.graphs], [4, 0, 4]);
    assert.deepEqual(report.findings['tool/error'], 0);
    const manifest = (await readManifest(dir))!;
    const entry = manifest.graphs[`urn:soul:local:Weave/graph/${SESSIONS.tools}/reader/tool/error`];
    assert.equal(entry.builtWith, `tool/error@2 ${FINDINGS_FORMAT}`);
    // The two earlier findings are gone: the graph is empty.
    assert.equal(entry.quads, 0);
    assert.equal(await readFile(join(dir, entry.file), 'utf8'), '');
    const agent = manifest.graphs['urn:soul:local:Weave/graph/detector/tool/error'];
    assert.equal(agent.builtWith, `tool/error@2 ${FINDINGS_FORMAT}`);
    assert.match(await readFile(join(dir, agent.file), 'utf8'), /detectorVersion> "2"/);
  } finally {
    await removeDir(dir);
  }
});

test('a failing reader or an unreadable session graph is reported, and everything else still runs', async () => {
  const dir = await freshStore();
  try {
    const broken = {
      name: 'broken/reader',
      version: '1',
      description: 'Fails on purpose.',
      read: () => {
        throw new Error('boom');
      },
    };
    const report = await detect({ storeDir: dir, readers: [broken, toolError] });
    assert.deepEqual([report.sessions, report.graphs, report.findings], [4, 4, { 'broken/reader': 0, 'tool/error': 2 }]);
    assert.deepEqual(
      report.problems.map((p) => [p.sessionId, p.derivation, p.message]),
      [SESSIONS.tools, SESSIONS.prompts, SESSIONS.emojikey, SESSIONS.forms].sort().map((id) => [id, 'broken/reader', 'boom']),
    );

    const manifest = (await readManifest(dir))!;
    const sessionFile = manifest.graphs[`urn:soul:local:Weave/graph/${SESSIONS.tools}`].file;
    await writeFile(join(dir, sessionFile), 'this is not N-Quads\n');
    const seen: string[] = [];
    const second = await detect({ storeDir: dir, detectors: ['tool'], onProblem: (p) => void seen.push(p.sessionId!) });
    assert.deepEqual([second.sessions, second.graphs, seen], [3, 3, [SESSIONS.tools]]);
    // The reader that could not read it is named with the session.
    assert.equal(second.problems[0].derivation, 'tool/error');
    // The file and the line, and nothing of what the line holds.
    assert.equal(second.problems[0].message, `${join(dir, sessionFile)}:1: not valid N-Quads`);
  } finally {
    await removeDir(dir);
  }
});

test("a finding typed for another detector is the reader's problem, not the run's", async () => {
  const dir = await freshStore();
  try {
    // Reports tool/error findings from the agent detector: only this reader's graphs are lost.
    const stray = {
      ...toolError,
      name: 'agent/stray',
      read: (...args: Parameters<typeof toolError.read>) => toolError.read(...args).map((f) => ({ ...f, type: 'tool/error' })),
    };
    const report = await detect({ storeDir: dir, readers: [stray, toolError], sessions: [SESSIONS.tools] });
    assert.deepEqual([report.graphs, report.findings], [1, { 'agent/stray': 0, 'tool/error': 2 }]);
    assert.deepEqual(
      report.problems.map((p) => [p.sessionId, p.derivation, p.message]),
      [[SESSIONS.tools, 'agent/stray', 'reader agent/stray reported a finding of type "tool/error", which is not agent/<type>']],
    );
  } finally {
    await removeDir(dir);
  }
});

test('detectors and sessions select what runs; unknown names are errors', async () => {
  const dir = await freshStore();
  try {
    const report = await detect({ storeDir: dir, detectors: ['tool'], sessions: [SESSIONS.tools] });
    assert.deepEqual([report.sessions, report.graphs, report.findings], [1, 1, { 'tool/error': 2 }]);
    const both = await detect({ storeDir: dir, detectors: ['emojikey/harvest', 'human'], sessions: [SESSIONS.emojikey] });
    assert.deepEqual(both.findings, { 'emojikey/harvest': 10, 'human/authored': 1 });
    await assert.rejects(
      detect({ storeDir: dir, detectors: ['nope'] }),
      /unknown detector "nope"; known: emojikey\/harvest, human\/authored/,
    );
    await assert.rejects(detect({ storeDir: dir, sessions: ['not-a-session'] }), /no session "not-a-session" in the store/);
  } finally {
    await removeDir(dir);
  }
});

test("readers in ingest's stream write exactly what weave detect writes from the graph files, each graph reported", async () => {
  const dir = await tempDir('weave-detect-stream-');
  try {
    const seen: string[] = [];
    const report = await ingest([READER_FIXTURES], {
      storeDir: dir,
      soul: 'local',
      readers: { list: READERS, onGraph: (g) => void seen.push(`${g.sessionId?.slice(0, 4) ?? 'self'} ${g.reader} ${g.findings}`) },
    });
    assert.equal(seen.length, READER_GRAPHS);
    assert.ok(seen.includes('self emojikey/harvest 0'));
    assert.ok(seen.includes('7007 secret/exposure 3'));
    assert.deepEqual([report.readers?.sessions, report.readers?.graphs], [Object.keys(SESSIONS).length, SESSION_GRAPHS]);
    const fromStream = await readerFiles(dir);
    // Every pair is current; read again from the files, every graph comes out the same, bytes and entries.
    assert.equal((await detect({ storeDir: dir, onlyStale: true })).sessions, 0);
    await detect({ storeDir: dir });
    const fromFiles = await readerFiles(dir);
    const withoutTimes = (files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).map(([g, t]) => [g, t.replace(/"mtimeMs":[\d.]+/, '')]));
    assert.deepEqual(withoutTimes(fromFiles), withoutTimes(fromStream));
  } finally {
    await removeDir(dir);
  }
});

/** Runs the CLI, capturing what it prints. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const write = [process.stdout.write, process.stderr.write];
  // As a stream's write does: the callback once the chunk is taken (a command waits for it before it ends).
  const capture = (add: (text: string) => void) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      add(String(chunk));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      if (done) queueMicrotask(done);
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture((text) => (out += text));
  process.stderr.write = capture((text) => (err += text));
  try {
    return { code: await run(args), out, err };
  } finally {
    [process.stdout.write, process.stderr.write] = write;
  }
}

test('weave ingest runs the readers unless --no-detect; weave detect runs them on demand', async () => {
  const dir = await tempDir('weave-detect-cli-');
  try {
    const quiet = await cli(['ingest', READER_FIXTURES, '--store', dir, '--no-detect']);
    assert.equal(quiet.code, 0);
    assert.doesNotMatch(quiet.out, /detected:/);
    assert.equal(Object.values((await readManifest(dir))!.graphs).filter((g) => g.reader).length, 0);

    const loud = await cli(['ingest', READER_FIXTURES, '--store', dir]);
    assert.equal(loud.code, 0);
    const findings = 'emojikey/harvest 24, human/authored 9, tool/error 2, secret/exposure 3, agent/correction 3';
    assert.match(loud.out, new RegExp(`detected: 4 sessions read \\(0 current\\) · ${SESSION_GRAPHS} graphs · findings: ${findings}`));
    assert.match((await cli(['ingest', READER_FIXTURES, '--store', dir])).out, /detected: 0 sessions read \(4 current\) · 0 graphs/);

    const one = await cli(['detect', SESSIONS.prompts, '--detector', 'agent', '--store', dir, '--json']);
    assert.equal(one.code, 0);
    assert.deepEqual(JSON.parse(one.out).findings, { 'agent/correction': 3 });

    const bad = await cli(['detect', '--detector', 'nope', '--store', dir]);
    assert.deepEqual([bad.code, bad.err.trim().split(';')[0]], [2, 'weave detect: unknown detector "nope"']);
    const missing = await cli(['detect', 'no-such-session', '--store', dir]);
    assert.deepEqual([missing.code, missing.err.trim()], [1, 'weave detect: no session "no-such-session" in the store']);
    // TMPDIR of its own: a fixtures store a weave serve left in the machine's would be named too.
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    const empty = await cli(['detect', '--store', join(dir, 'nothing-here')]).finally(() => {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    });
    assert.deepEqual(
      [empty.code, empty.err],
      [1, `weave detect: no store in ${join(dir, 'nothing-here')}: run "weave ingest" first, or name a store with --store DIR\n`],
    );
    assert.match((await cli(['detect', '--help'])).out, /emojikey\/harvest {3}Finds emojikeys/);
  } finally {
    await removeDir(dir);
  }
});
