import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import { isRunning, readRunFile } from '../../src/store/running.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * Commands over a store two machines feed, where both hold one session: machine B read the first
 * three lines of spine's session 22222222, machine A then the whole of it (a copy that went on
 * here is read here too, under A's soul). A's commands show A's copy, as its files have it: B's is
 * no session A's search index lacks, and no second session its id names.
 */

const execute = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const ASKING = { ...process.env, WEAVE_NO_DAEMON: '', COLUMNS: '160' };
const SPINE = join(FIXTURES, 'spine');
const LEGACY = '22222222-2222-4222-8222-222222222222.jsonl';

async function weave(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8', env: ASKING });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `weave search TEXT` over `store`, answered by this process and by the store's resident server: each run's stderr. */
async function searchBothWays(store: string, text: string): Promise<{ here: string; served: string }> {
  const here = await weave(['search', text, '--store', store, '--no-daemon']);
  assert.equal(here.code, 0, here.stderr);
  // A search answers by itself until a resident server has the store open; usage waits for one.
  assert.equal((await weave(['usage', '--store', store])).code, 0);
  const served = await weave(['search', text, '--store', store]);
  assert.equal(served.code, 0, served.stderr);
  assert.equal(served.stdout.replace(/\d+ ms/, ''), here.stdout.replace(/\d+ ms/, ''));
  return { here: here.stderr, served: served.stderr };
}

describe('an external store where two machines hold one session', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let a: string;
  let b: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-search-copies-');
    const shorter = join(base, 'b-projects', '-home-ada-weave-demo');
    await mkdir(shorter, { recursive: true });
    const lines = (await readFile(join(SPINE, '-home-ada-weave-demo', LEGACY), 'utf8')).split('\n');
    await writeFile(join(shorter, LEGACY), `${lines.slice(0, 3).join('\n')}\n`);
    b = remoteStoreDir(virtuoso.endpoint, join(base, 'b'));
    await ingest([join(base, 'b-projects')], { storeDir: b, soul: 'bob' });
    a = remoteStoreDir(virtuoso.endpoint, join(base, 'a'));
    const report = await ingest([SPINE], { storeDir: a, soul: 'ada' });
    // 11111111 and the whole of 22222222, which B's copy lacks lines of.
    assert.equal(report.sessions, 2);
  });
  after(async () => {
    const run = a && (await readRunFile(a));
    if (run && isRunning(run.pid)) {
      process.kill(run.pid, 'SIGTERM');
      for (let i = 0; i < 200 && isRunning(run.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it("says nothing of another soul's copy of a session searched here", async () => {
    assert.deepEqual(await searchBothWays(a, 'Hello'), { here: '', served: '' });
  });

  it("conversation shows this machine's copy, whoever answers", async () => {
    const here = await weave(['conversation', '22222222', '--store', a, '--no-daemon']);
    assert.equal(here.code, 0, here.stderr);
    // A's copy: the summary, Hello, Hi, "Check the tests" and the rest, not B's first three lines.
    assert.match(here.stdout, /^conversation 22222222-2222-4222-8222-222222222222\n  title +Legacy demo\n/);
    assert.equal((await weave(['usage', '--store', a])).code, 0);
    for (const id of ['22222222', '22222222-2222-4222-8222-222222222222']) {
      const served = await weave(['conversation', id, '--store', a]);
      assert.deepEqual(served, here, `weave conversation ${id}`);
    }
    // The page of the resident server, a weave serve in front of the store, shows it too.
    const server = await readRunFile(a);
    const page = await fetch(`${server!.url}conversation/22222222?token=${server!.token}`, {
      headers: { authorization: `Bearer ${server!.token}` },
    });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /describe\?iri=urn%3Asoul%3Aada%3AWeave%2FTranscript%2F22222222-2222-4222-8222-222222222222"/);
  });

  it('conversation on a machine holding neither copy shows the one its search would index, not a choice of two alike', async () => {
    // The one read furthest: ada's (the whole session), as search/others.ts indexes it.
    const c = remoteStoreDir(virtuoso.endpoint, join(base, 'c'));
    const [there, ada] = [
      await weave(['conversation', '22222222', '--store', c, '--no-daemon']),
      await weave(['conversation', '22222222', '--store', a, '--no-daemon']),
    ];
    assert.equal(there.stderr, '');
    assert.equal(there.code, 0);
    assert.equal(there.stdout, ada.stdout);
  });

  it('conversation of a session whose graph the store lost reads it from the graph file here, whoever answers', async () => {
    const graph = 'urn:soul:ada:Weave/graph/11111111-1111-4111-8111-111111111111';
    const crud = `${virtuoso.endpoint}-graph-crud?graph=${encodeURIComponent(graph)}`;
    const held = await (await fetch(crud, { headers: { accept: 'application/n-triples' } })).text();
    assert.equal((await fetch(crud, { method: 'DELETE' })).ok, true);
    try {
      const here = await weave(['conversation', '11111111', '--store', a, '--no-daemon']);
      assert.equal(here.code, 0, here.stderr);
      assert.match(here.stdout, /^conversation 11111111-1111-4111-8111-111111111111\n/);
      assert.equal((await weave(['usage', '--store', a])).code, 0);
      assert.deepEqual(await weave(['conversation', '11111111', '--store', a]), here);
    } finally {
      await fetch(crud, { method: 'PUT', headers: { 'content-type': 'application/n-triples' }, body: held });
    }
  });

  it('counts only the sessions it lacks, and those it holds once, whoever answers', async () => {
    // B writes a session A has never seen: A's index lacks it (and only it) until A's next ingest.
    await ingest([join(FIXTURES, 'model', 'split-call')], { storeDir: b, soul: 'bob' });
    const note =
      "weave search: 1 session(s) in the external store were written from other machines since this machine's last ingest and are not in its index yet (weave ingest adds them); these hits are from the 2 it holds\n";
    assert.deepEqual(await searchBothWays(a, 'Hello'), { here: note, served: note });
  });
});
