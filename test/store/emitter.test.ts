import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { emitterNotice, WEAVE } from '../../src/store/emitter.ts';
import { MANIFEST_FILE } from '../../src/store/layout.ts';
import { readManifest, renderManifest } from '../../src/store/manifest.ts';
import { isRunning, readRunFile } from '../../src/store/running.ts';
import { FIXTURES, REPO, tempDir } from '../helpers.ts';

/**
 * A store built by another Weave than this one says so in every command that reads it, through
 * the resident server and without it: one line on stderr naming the version and what to do, a
 * line in weave status, a note on the overview page. Real stores of the server fixtures, their
 * manifests rewritten as an older (or a newer) Weave left them, and bin/weave run as a user runs it.
 */

const execute = promisify(execFile);
const BIN = join(REPO, 'bin', 'weave');
const HERE = { ...process.env, WEAVE_NO_DAEMON: '1', COLUMNS: '80' };
const ASKING = { ...process.env, WEAVE_NO_DAEMON: '', COLUMNS: '80' };
const [FIRST, SECOND] = ['33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444'];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function weave(args: string[], env: NodeJS.ProcessEnv = HERE): Promise<Run> {
  try {
    const { stdout, stderr } = await execute(BIN, args, { encoding: 'utf8', env, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * The store in `dir` as `version` left it: the session graphs of `sessions` (all, unless named)
 * stamped with it, and, from weave/0.16, prepared usage rows of before one-hour writes were priced.
 */
async function stampAs(dir: string, version: string, sessions?: string[]): Promise<void> {
  const manifest = (await readManifest(dir))!;
  for (const entry of Object.values(manifest.graphs))
    if (entry.sessionId && (!sessions || sessions.includes(entry.sessionId)))
      entry.builtWith = entry.builtWith!.replace(/\+weave\/0\.\d+\+/, `+${version}+`);
  for (const entry of Object.values(manifest.files ?? {}))
    if (version === 'weave/0.16' && (!sessions || sessions.includes(entry.sessionId!)))
      entry.builtWith = entry.builtWith?.replace(/usage\/rows@\d+/, 'usage/rows@1');
  await writeFile(join(dir, MANIFEST_FILE), renderManifest(manifest));
}

async function stopResident(store: string): Promise<void> {
  const run = await readRunFile(store);
  if (!run || !isRunning(run.pid)) return;
  process.kill(run.pid, 'SIGTERM');
  for (let i = 0; i < 200 && isRunning(run.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('the emitter notice', () => {
  it('names the other Weave and what to do, within 80 columns, and is silent for this one', () => {
    assert.equal(WEAVE, 'weave/0.17');
    assert.equal(emitterNotice({ 'weave/0.16': 2 }), 'the store was built by weave/0.16: weave ingest --rebuild');
    assert.equal(emitterNotice({ 'weave/0.16': 1, 'weave/0.17': 1 }), '1 of 2 sessions were built by weave/0.16: weave ingest --rebuild');
    assert.equal(
      emitterNotice({ 'weave/0.14': 3, 'weave/0.16': 2, 'weave/0.17': 5 }),
      '5 of 10 sessions were built by weave/0.14-0.16: weave ingest --rebuild',
    );
    // Versions compared as numbers: 0.9 is older than 0.17.
    assert.equal(emitterNotice({ 'weave/0.9': 1 }), 'the store was built by weave/0.9: weave ingest --rebuild');
    // A stamp naming no version (a hand-made or damaged manifest) is left to the manifest's check.
    assert.equal(emitterNotice({ unknown: 4 }), undefined);
    assert.equal(emitterNotice({ unknown: 1, 'weave/0.16': 1 }), '1 of 2 sessions were built by weave/0.16: weave ingest --rebuild');
    // A newer Weave's graphs: this program is the older one.
    assert.equal(emitterNotice({ 'weave/0.18': 2 }), 'the store was built by a newer weave/0.18: update this Weave');
    assert.equal(
      emitterNotice({ 'weave/0.16': 1, 'weave/0.18': 1 }),
      '1 of 2 sessions were built by a newer weave/0.18: update this Weave',
    );
    assert.equal(emitterNotice({ 'weave/0.17': 2 }), undefined);
    assert.equal(emitterNotice({}), undefined);
    const widest = `weave: ${emitterNotice({ 'weave/0.16': 1234, 'weave/0.17': 4444 })}`;
    assert.equal(widest, 'weave: 1234 of 5678 sessions were built by weave/0.16: weave ingest --rebuild');
    assert.ok(widest.length <= 80, `${widest.length} columns`);
  });
});

describe('a store built by an older Weave, in every command that reads it', () => {
  const OLDER = 'weave: the store was built by weave/0.16: weave ingest --rebuild\n';
  let store = '';
  before(async () => {
    store = await tempDir('weave-emitter-');
    const built = await weave(['ingest', join(FIXTURES, 'server'), '--no-detect', '--store', store]);
    assert.equal(built.code, 0, built.stderr);
    await stampAs(store, 'weave/0.16');
  });
  after(async () => {
    await stopResident(store);
    await rm(store, { recursive: true, force: true });
  });

  const READING: string[][] = [
    ['usage'],
    ['usage', 'session', '--json'],
    ['query', 'SELECT (COUNT(*) AS ?n) WHERE { ?s a weave:Session }'],
    ['search', 'entries'],
    ['conversation', FIRST],
    ['verify'],
    ['export', '--format', 'nquads'],
  ];

  it('says so on stderr, once, opening the store itself (--no-daemon)', async () => {
    for (const args of READING) {
      // export opens the store itself, and takes no --no-daemon.
      const run = await weave([...args, '--store', store, ...(args[0] === 'export' ? [] : ['--no-daemon'])]);
      assert.equal(run.code, 0, `weave ${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stderr, OLDER, `weave ${args.join(' ')}`);
    }
    assert.equal(await readRunFile(store), undefined, 'no server was started');
  });

  it('says so on stderr through the resident server it starts, which answers', async () => {
    for (const args of READING.slice(0, 5)) {
      const run = await weave([...args, '--store', store], ASKING);
      assert.equal(run.code, 0, `weave ${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stderr, OLDER, `weave ${args.join(' ')}`);
    }
    const run = await readRunFile(store);
    assert.ok(run && isRunning(run.pid), 'a resident server answered');
    const log = await readFile(join(store, 'server.log'), 'utf8');
    assert.match(log, /\nweave serve: the store was built by weave\/0\.16: weave ingest --rebuild\n/);
    // The overview page it serves says it above the figures.
    const page = await (await fetch(`${run.url}overview`)).text();
    assert.match(page, /<p class="note" id="built">The store was built by weave\/0\.16: weave ingest --rebuild\.<\/p>/);
    // And its /status, which the query page shows in its note.
    const status = (await (await fetch(`${run.url}status`)).json()) as { store: Record<string, unknown> };
    assert.equal(status.store.notice, 'the store was built by weave/0.16: weave ingest --rebuild');
    assert.deepEqual(status.store.builtBy, { program: 'weave/0.17', sessions: { 'weave/0.16': 2 } });
    await stopResident(store);
  });

  it('weave status says which Weave built it, and what to do', async () => {
    const { stdout, stderr } = await weave(['status', '--store', store], ASKING);
    assert.equal(stderr, '');
    assert.match(stdout, /\nbuilt by    weave\/0\.16 \(2 sessions\); this is weave\/0\.17: weave ingest --rebuild\n/);
    const json = JSON.parse((await weave(['status', '--json', '--store', store])).stdout);
    assert.deepEqual(json.builtBy, { program: 'weave/0.17', sessions: { 'weave/0.16': 2 } });
  });

  it('some sessions of it: how many; a newer Weave: that this one is the older; after weave ingest: nothing', async () => {
    await stampAs(store, 'weave/0.17', [SECOND]);
    assert.equal(
      (await weave(['usage', '--store', store])).stderr,
      'weave: 1 of 2 sessions were built by weave/0.16: weave ingest --rebuild\n',
    );
    await stampAs(store, 'weave/0.18', [SECOND]);
    const NEWER = 'weave: 1 of 2 sessions were built by a newer weave/0.18: update this Weave\n';
    assert.equal((await weave(['usage', '--store', store])).stderr, NEWER);
    assert.equal((await weave(['query', 'ASK {}', '--store', store])).stderr, NEWER);
    assert.match(
      (await weave(['status', '--wide', '--store', store])).stdout,
      /\nbuilt by    weave\/0\.16 \(1 session\), weave\/0\.18 \(1 session\); this is weave\/0\.17, older: update Weave\n/,
    );

    const ingested = await weave(['ingest', join(FIXTURES, 'server'), '--no-detect', '--store', store]);
    assert.equal(ingested.code, 0, ingested.stderr);
    for (const args of READING) assert.equal((await weave([...args, '--store', store])).stderr, '', `weave ${args.join(' ')}`);
    assert.match((await weave(['status', '--store', store])).stdout, /\nbuilt by    weave\/0\.17, this Weave\n/);
  });
});

describe('weave ingest on a store an older Weave built', () => {
  it('rebuilds every session, one whose files are gone from the archive too, and the notice goes', async () => {
    const work = await tempDir('weave-emitter-gone-');
    try {
      const [roots, store] = [join(work, 'projects'), join(work, 'store')];
      await cp(join(FIXTURES, 'server'), roots, { recursive: true });
      const ingest = async () => {
        const run = await weave(['ingest', roots, '--no-detect', '--store', store]);
        assert.equal(run.code, 0, run.stderr);
        return run.stdout;
      };
      await ingest();
      // Claude Code deleted the second session's transcript: it is read from the archive, once.
      await rm(join(roots, '-home-grace-weave-server', `${SECOND}.jsonl`));
      await ingest();
      await stampAs(store, 'weave/0.16');
      assert.equal((await weave(['usage', '--store', store])).stderr, 'weave: the store was built by weave/0.16: weave ingest --rebuild\n');

      assert.match(
        await ingest(),
        /^ingested: 2 sessions read \(0 unchanged\)[\s\S]* 1 session read from the archive \(their files are gone\)\n/,
      );
      const manifest = (await readManifest(store))!;
      const stamps = Object.values(manifest.graphs).flatMap((e) => (e.sessionId ? [[e.sessionId, e.builtWith!.split('+')[1]]] : []));
      assert.deepEqual(stamps.sort(), [
        [FIRST, 'weave/0.17'],
        [SECOND, 'weave/0.17'],
      ]);
      assert.equal((await weave(['usage', '--store', store])).stderr, '');
      const status = (await weave(['status', '--store', store, '--wide'])).stdout;
      // Two session graphs, and the ontology's and the alignment's, as a query sees them.
      assert.match(status, /\nsessions    2 \(1 archived-only: their files are gone, read from the archive\) in 4 graphs\n/);
      assert.match(status, /\nbuilt by    weave\/0\.17, this Weave\n/);
      // And once only: the next ingest reads nothing.
      assert.match(await ingest(), /^ingested: 0 sessions read \(1 unchanged\)/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('whose source folders are all gone: the notice names the ingest that rebuilds it, and that ingest does', async () => {
    const work = await tempDir('weave-emitter-all-gone-');
    try {
      // A user whose ~/.claude/projects is gone: a plain `weave ingest` finds nothing to read.
      const [home, store] = [join(work, 'home'), join(work, 'store')];
      const roots = join(home, '.claude', 'projects');
      await cp(join(FIXTURES, 'server'), roots, { recursive: true });
      const env = { ...HERE, HOME: home, CLAUDE_CONFIG_DIR: '' };
      assert.equal((await weave(['ingest', '--no-detect', '--store', store], env)).code, 0);
      await rm(roots, { recursive: true });
      await stampAs(store, 'weave/0.16');
      assert.equal((await weave(['ingest', '--no-detect', '--store', store], env)).code, 1);
      const notice = (await weave(['usage', '--store', store], env)).stderr;
      assert.equal(notice, 'weave: the store was built by weave/0.16: weave ingest --rebuild\n');

      // The advice as given, word for word.
      const advised = notice.trim().split(': ').pop()!.split(' ').slice(1);
      const rebuilt = await weave([...advised, '--no-detect', '--store', store], env);
      assert.equal(rebuilt.code, 0, rebuilt.stderr);
      assert.match(
        rebuilt.stdout,
        /^ingested: 2 sessions read \(0 unchanged\)[\s\S]* 2 sessions read from the archive \(their files are gone\)\n/,
      );
      assert.equal((await weave(['usage', '--store', store], env)).stderr, '');
      assert.match((await weave(['status', '--store', store, '--wide'], env)).stdout, /\nbuilt by    weave\/0\.17, this Weave\n/);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
