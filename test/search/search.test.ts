import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { stampOf } from '../../src/derive/derivation.ts';
import { searchIndex } from '../../src/search/derivation.ts';
import { type Found, INDEX_NAME, indexIsCurrent, SearchIndex } from '../../src/search/index.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { eventually, startTestServer } from '../server/helpers.ts';

/** weave search over the fixtures: what is indexed, how hits rank, and that ingest keeps it current. */

const WEAVE = join(REPO, 'bin', 'weave');
const exec = promisify(execFile);

describe('weave search on the fixtures', () => {
  let dir: string;
  let index: SearchIndex;
  before(async () => {
    dir = await tempDir();
    await ingest([FIXTURES], { storeDir: dir, soul: 'local' });
    index = await SearchIndex.open(dir);
  });
  after(() => removeDir(dir));

  test('ingest writes the index into the store: one document per text, tool input and tool result', async () => {
    const manifest = (await readManifest(dir))!;
    assert.match(manifest.files!['search/index'].file, /^search\/index\.[0-9a-f]{12}\.json$/);
    assert.ok((await stat(join(dir, manifest.files!['search/index'].file))).size > 0);
    // The manifest says the index holds every session's documents as they are: ingest kept it current.
    assert.ok(await indexIsCurrent(dir, (await readManifest(dir))!, stampOf(searchIndex)));
    assert.ok(index.documentCount > 100, `${index.documentCount} documents`);
  });

  test('a tool input, with its tool, session title and turn', async () => {
    const { hits } = await index.search('README.md', { kinds: ['tool input'] });
    const read = hits.find((h) => h.tool === 'Read' && h.session === '11111111-1111-4111-8111-111111111111');
    assert.ok(read, JSON.stringify(hits.map((h) => [h.tool, h.session])));
    assert.equal(read.title, 'Fix README typo');
    // The fixture's ids are hand-written, not minted at random, so the turn's IRI is scoped by its session.
    assert.match(read.event, /^urn:soul:local:Weave\/Turn\/11111111-1111-4111-8111-111111111111\/[^/]+$/);
    assert.match(read.snippet, /README\.md/);
  });

  test('every word must match, the last as a prefix; else any word', async () => {
    const both = await index.search('cart checkout');
    assert.ok(both.hits.length > 0);
    for (const h of both.hits)
      assert.ok(h.terms.some((t) => t.startsWith('cart')) && h.terms.some((t) => t.startsWith('checkout')), h.snippet);
    const prefix = await index.search('checko');
    assert.ok(prefix.hits.some((h) => /checkout/i.test(h.snippet)));
    const either = await index.search('checkout zzzznothing');
    assert.ok(either.hits.length > 0 && either.hits.every((h) => h.terms.includes('checkout')));
    assert.deepEqual((await index.search('zzzznothing')).hits, []);
  });

  test('ranked: the text that says it most, and most briefly, first', async () => {
    const { hits } = await index.search('emojikey', { kinds: ['tool input'] });
    assert.ok(hits.length >= 2);
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
  });

  test('the CLI: hits with title, session, kind, snippet and turn; --json; --session; no hits exits 1', async () => {
    const { stdout } = await exec(WEAVE, ['search', 'cart', 'total', '--limit', '2', '--store', dir]);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines[0], /^1\. 10000000 · 20\d\d-\d\d-\d\d \d\d:\d\d · (user|assistant) text · Add a cart total to the checkout page\.$/);
    // In a narrow terminal the title is what is cut.
    const narrow = (
      await exec(WEAVE, ['search', 'cart', 'total', '--limit', '2', '--store', dir], { env: { ...process.env, COLUMNS: '50' } })
    ).stdout;
    assert.match(narrow, /^1\. 10000000 · 2026-05-04 09:00 · user text · Add …\n/);
    assert.ok(narrow.split('\n').every((l) => [...l].length <= 50));
    // It says so, and --wide prints the lines whole.
    assert.match(narrow, /\n\(cut to fit 50 columns; --wide shows all\)\n$/);
    const wide = (
      await exec(WEAVE, ['search', 'cart', 'total', '--limit', '2', '--store', dir, '--wide'], { env: { ...process.env, COLUMNS: '50' } })
    ).stdout;
    assert.equal(wide.split('\n')[0], lines[0]);
    assert.doesNotMatch(wide, /--wide shows all/);
    assert.match(lines[2], /^ {3}urn:soul:local:Weave\/Turn\//);
    assert.match(lines[lines.length - 1], /^\d+ of \d+ hits · \d+ ms$/);
    const json = JSON.parse((await exec(WEAVE, ['search', 'README', '--json', '--session', '1111', '--store', dir])).stdout);
    assert.ok(json.hits.length > 0 && json.hits.every((h: { session: string }) => h.session === '11111111-1111-4111-8111-111111111111'));
    assert.equal(typeof json.millis, 'number');
    await assert.rejects(
      exec(WEAVE, ['search', 'zzzznothing', '--store', dir]),
      (e: { code: number; stdout: string }) => e.code === 1 && /^no hits/.test(e.stdout),
    );
  });
});

test("ingest replaces a changed session's documents; a store without an index is indexed on first search", async () => {
  const work = await tempDir();
  const dir = await tempDir();
  try {
    const project = join(work, '-home-dev-cli');
    await cp(join(FIXTURES, 'model', 'legacy-runs', '-home-dev-cli'), project, { recursive: true });
    await ingest([project], { storeDir: dir, soul: 'local' });
    assert.ok((await (await SearchIndex.open(dir)).search('issues')).hits.length > 0);
    for (const name of ['80000000-0000-4000-8000-000000000001.jsonl', 'agent-5e6f7a8b.jsonl']) {
      const file = join(project, name);
      await writeFile(file, (await readFile(file, 'utf8')).replaceAll('open issues', 'pelican sightings'));
    }
    await ingest([project], { storeDir: dir, soul: 'local' });
    const after = await SearchIndex.open(dir);
    assert.deepEqual(
      (await after.search('issues')).hits.filter((h) => /open issues/.test(h.snippet)),
      [],
    );
    assert.ok((await after.search('pelican')).hits.length > 0);

    await rm(join(dir, 'search'), { recursive: true });
    const { stdout, stderr } = await exec(WEAVE, ['search', 'pelican', '--store', dir]);
    assert.match(stderr, /^weave search: indexed 1 session\(s\) the index did not have yet/);
    assert.match(stdout, /pelican sightings/);

    // An index an older Weave wrote (its derivation's version before): made again, and said so.
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    manifest.files[INDEX_NAME].builtWith = manifest.files[INDEX_NAME].builtWith.replace(/@\d+$/, '@2');
    await writeFile(manifestPath, JSON.stringify(manifest));
    const again = await exec(WEAVE, ['search', 'pelican', '--store', dir]);
    assert.match(again.stderr, /^weave search: made the index again from the sessions' documents \(\d+ ms\)\n$/);
    assert.match(again.stdout, /pelican sightings/);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('a change to one session of many is read in wherever the index is opened; the index file is written again only once it lags far behind', async () => {
  const work = await tempDir();
  const dir = await tempDir();
  try {
    await cp(FIXTURES, work, { recursive: true });
    const read = () => ingest([work], { storeDir: dir, soul: 'local' });
    await read();
    const indexFile = async () => (await readManifest(dir))!.files![INDEX_NAME].file;
    const first = await indexFile();
    // A prompt appended to a session of the records fixtures, as Claude Code appends one.
    const S8 = '88888888-8888-4888-8888-888888888888';
    const file = join(work, 'records', '-home-ada-records-demo', `${S8}.jsonl`);
    let parent = 'c-0005';
    const prompt = async (uuid: string, text: string) => {
      const record = { parentUuid: parent, isSidechain: false, type: 'user', message: { role: 'user', content: text }, uuid };
      await appendFile(
        file,
        `${JSON.stringify({ ...record, timestamp: '2026-11-06T09:00:00.000Z', sessionId: S8, cwd: '/home/ada/records-demo' })}\n`,
      );
      parent = uuid;
    };
    const found = async (word: string) => (await (await SearchIndex.open(dir)).search(word)).hits.map((h) => [h.session, h.kind, h.event]);
    // The fixture's ids are not UUIDs: a turn is named within its session.
    const turn = (uuid: string) => `urn:soul:local:Weave/Turn/${S8}/${uuid}`;

    // Its documents file is about 1 kB of the fixtures' 140 kB: the index file stays as it was.
    await prompt('c-0101', 'zebrafish quartz');
    await read();
    assert.equal(await indexFile(), first);
    assert.ok(await indexIsCurrent(dir, (await readManifest(dir))!, stampOf(searchIndex)));
    assert.deepEqual(await found('zebrafish'), [[S8, 'text', turn('c-0101')]]);
    const { stdout } = await exec(WEAVE, ['search', 'zebrafish', '--store', dir, '--json'], {
      env: { ...process.env, WEAVE_NO_DAEMON: '1' },
    });
    assert.deepEqual(
      JSON.parse(stdout).hits.map((h: { session: string; event: string }) => [h.session, h.event]),
      [[S8, turn('c-0101')]],
    );

    // A running server catches up the same way, as the manifest changes under it.
    const server = await startTestServer({ storeDir: dir, ingest: { paths: [work], refreshMs: 0, watch: true, detect: false } }, [work]);
    try {
      await eventually(async () => server.ctx.ingester!.status.watching !== 'off', 10_000, 'the watcher');
      const served = async (word: string) => {
        const res = await fetch(`${server.base}/search?q=${word}&format=json`);
        return ((await res.json()) as { hits: { session: string; event: string }[] }).hits.map((h) => [h.session, h.event]);
      };
      assert.deepEqual(await served('zebrafish'), [[S8, turn('c-0101')]]);
      await prompt('c-0103', 'narwhal basalt');
      await eventually(async () => (await served('narwhal')).length > 0, 10_000, 'the served search to see the new prompt');
      assert.deepEqual(await served('narwhal'), [[S8, turn('c-0103')]]);
      assert.equal(await indexFile(), first);
    } finally {
      await server.stop();
    }

    // A prompt of 24,000 characters: more than an eighth of the documents behind, so it is written again.
    await prompt('c-0102', `pelican ${'lorem '.repeat(4000)}`);
    await read();
    assert.notEqual(await indexFile(), first);
    assert.deepEqual(await found('pelican'), [[S8, 'text', turn('c-0102')]]);
    assert.deepEqual(await found('zebrafish'), [[S8, 'text', turn('c-0101')]]);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('a hit whose text holds terminal escapes is shown escaped, never obeyed', async () => {
  const dir = await tempDir();
  const projects = await tempDir();
  try {
    const project = join(projects, '-home-eve-escapes');
    await mkdir(project);
    const prompt = 'set the title \u001b]0;pwned\u0007 then clear \u001b[2J the screen';
    await writeFile(
      join(project, 'e5c0e5c0-0000-4000-8000-000000000001.jsonl'),
      `${JSON.stringify({
        sessionId: 'e5c0e5c0-0000-4000-8000-000000000001',
        timestamp: '2026-11-09T08:00:00.000Z',
        type: 'user',
        uuid: 'e5c0e5c0-0000-4000-8000-0000000000a1',
        parentUuid: null,
        cwd: '/home/eve/escapes',
        message: { role: 'user', content: prompt },
      })}\n`,
    );
    await ingest([projects], { storeDir: dir, soul: 'local' });
    const { stdout } = await exec(WEAVE, ['search', 'pwned', '--store', dir]);
    assert.ok(!/[\x00-\x09\x0b-\x1f\x7f]/.test(stdout), JSON.stringify(stdout));
    assert.match(stdout, /set the title \\x1b\]0;pwned\\x07 then clear \\x1b\[2J the screen/);
  } finally {
    await removeDir(dir);
    await removeDir(projects);
  }
});

test('one text in the main stream and a sub-agent stream is one hit, shown in the main stream, naming its copies', async () => {
  const dir = await tempDir();
  try {
    // The Task's prompt is the text the sub-agent's stream begins with; its last answer comes back as the Task's result.
    await ingest([join(FIXTURES, 'model', 'legacy-runs', '-home-dev-cli')], { storeDir: dir, soul: 'local' });
    const { hits, total } = await (await SearchIndex.open(dir)).search('open issues');
    const turn = (h: { event: string }) => h.event.replace(/^.*\/Turn\/80000000-0000-4000-8000-0000000/, '');
    assert.deepEqual(
      hits.map((h) => [turn(h), h.kind, h.stream ?? 'main', h.alsoInStreams ?? 0]),
      [
        ['0c001', 'text', 'main', 0],
        ['0c002', 'tool input', 'main', 1], // the Task's prompt, "List the open issues.", and the sub-agent's first turn
        ['0c003', 'text', 'main', 1], // "Found 3 open issues.": the sub-agent's answer and the Task's result
        ['0c004', 'text', 'main', 0],
      ],
    );
    assert.equal(total, 4, 'six documents match; two are copies');
    const { stdout } = await exec(WEAVE, ['search', 'open', 'issues', '--store', dir, '--wide']);
    assert.equal(
      stdout.split('\n')[3],
      '2. 80000000 · 2026-01-20 16:00 · tool input (Task) (also in 1 sub-agent stream) · Summarize the open issues.',
    );
  } finally {
    await removeDir(dir);
  }
});

/**
 * Folding is the index's alone (each document's digest and stream number): every result folds,
 * shown or not, so a total does not move with the limit, and no documents file is read for it.
 */
test('every result folds whatever the limit: a copy in another stream is one hit, one written again in the same stream is two', async () => {
  const { foldStreams } = await import('../../src/search/index.ts');
  const r = (session: string, name: string, fold: number, streamNo: number, score: number): Found => ({
    id: `${session} urn:x:${name}`,
    session,
    block: `urn:x:${name}`,
    kind: 'text',
    score,
    terms: [],
    fold,
    streamNo,
  });
  const results = [
    r('A', 'a1', 1, 0, 9),
    // A sub-agent's copy of a text of the main stream: one hit, shown where it is in the main stream.
    r('B', 'b1', 2, 1, 8),
    r('B', 'b2', 2, 0, 7),
    // A text written again in the same stream: a hit each.
    r('B', 'b3', 3, 0, 6),
    r('B', 'b4', 3, 0, 5),
  ];
  for (const limit of [1, 2, 10]) assert.equal(foldStreams(results, limit).folded, 1, `limit ${limit}`);
  assert.deepEqual(
    foldStreams(results, 10).top.map(({ r, streams }) => [r.block, r.score, streams]),
    [
      ['urn:x:a1', 9, 1],
      ['urn:x:b2', 8, 2],
      ['urn:x:b3', 6, 1],
      ['urn:x:b4', 5, 1],
    ],
  );
});
