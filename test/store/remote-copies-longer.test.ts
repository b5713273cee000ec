import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { startTestServer } from '../server/helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * A session two souls hold where one copy went on after it was copied, seen from a third machine
 * holding neither (a real Virtuoso): machine A (soul ada) read the first three lines of spine's
 * session 22222222 (its summary, "Hello" and the call msg_0030), machine B (soul bob) the whole of
 * it, later (its copy is longer, so it is read under bob too). Machine C (soul carol) reads the
 * copy read furthest, bob's, though ada's comes first by name: its conversation has both calls
 * (msg_0030 and msg_0031) and its search finds the Bash call `npm test` of line 6, which ada's
 * copy does not hold.
 */

const execute = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const SPINE = join(FIXTURES, 'spine');
const PROJECT = '-home-ada-weave-demo';
const LEGACY = '22222222-2222-4222-8222-222222222222';

async function weave(home: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8', env: { ...process.env, WEAVE_HOME: home, COLUMNS: '160' } });
  return { stdout, stderr };
}

describe('a copy that went on, seen from a machine holding neither copy', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let [ada, bob, carol] = ['', '', ''];

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-copies-longer-');
    [ada, bob, carol] = ['ada', 'bob', 'carol'].map((soul) => join(base, soul));
    const shorter = join(base, 'ada-projects', PROJECT);
    await mkdir(shorter, { recursive: true });
    const lines = (await readFile(join(SPINE, PROJECT, `${LEGACY}.jsonl`), 'utf8')).split('\n');
    await writeFile(join(shorter, `${LEGACY}.jsonl`), `${lines.slice(0, 3).join('\n')}\n`);
    await weave(ada, ['ingest', join(base, 'ada-projects'), '--store', virtuoso.endpoint, '--soul', 'ada']);
    assert.match((await weave(bob, ['ingest', SPINE, '--store', virtuoso.endpoint, '--soul', 'bob'])).stdout, /^ingested: 2 sessions read/);
    // Carol's own session is another one; her ingest indexes the others' for her search.
    await weave(carol, ['ingest', join(FIXTURES, 'model', 'split-call'), '--store', virtuoso.endpoint, '--soul', 'carol']);
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it("weave conversation shows the copy read furthest, as its own machine's shows it", async () => {
    const there = await weave(carol, ['conversation', '22222222', '--store', virtuoso.endpoint, '--no-daemon']);
    const own = await weave(bob, ['conversation', '22222222', '--store', virtuoso.endpoint, '--no-daemon']);
    assert.match(there.stdout, /\n {2}llm\.call \(API call\) +2\n/);
    assert.deepEqual(there, own);
  });

  it('/conversation/<id> of a weave serve there shows that copy too', async () => {
    const storeDir = join(carol, 'remote', (await readdir(join(carol, 'remote')))[0]);
    const server = await startTestServer({ storeDir, soul: 'carol', workers: 1, queueLimit: 8 }, null);
    try {
      const page = await fetch(`${server.base}/conversation/22222222`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /describe\?iri=urn%3Asoul%3Abob%3AWeave%2FTranscript%2F22222222-2222-4222-8222-222222222222"/);
    } finally {
      await server.stop();
    }
  });

  it('weave search searches that copy', async () => {
    const found = await weave(carol, ['search', 'npm', '--store', virtuoso.endpoint, '--no-daemon']);
    assert.match(
      found.stdout,
      /^1\. 22222222 · 2025-10-01 10:00 · tool input \(Bash\) · Legacy demo\n {3}\{"command":"npm test"\}\n {3}urn:soul:bob:Weave\/Turn\/22222222-2222-4222-8222-222222222222\/v-0004\n/,
    );
  });

  it('weave usage --by person counts the session to the soul of that copy', async () => {
    const { stdout } = await weave(carol, ['usage', '--by', 'person', '--json', '--store', virtuoso.endpoint, '--no-daemon']);
    const persons = JSON.parse(stdout).persons.map((p: { key: string; sessions: number; inputTokens: number; outputTokens: number }) => [
      p.key,
      p.sessions,
      p.inputTokens,
      p.outputTokens,
    ]);
    // Bob: the spine's 11111111 (1,180 in, 175 out) and 22222222 (30 in, 11 out); Carol: split-call
    // (100 + 120 + 130 in, 180 + 60 + 25 out). Ada's copy is Bob's session, read less far.
    assert.deepEqual(persons.sort(), [
      ['bob', 2, 1210, 186],
      ['carol', 1, 350, 265],
    ]);
  });

  it('a fourth machine holding the whole session leaves it to the copy read furthest, not adding a third', async () => {
    // Dave's copy of the spine is Bob's byte for byte: longer than Ada's, first by name, but no longer than Bob's.
    const dave = join(base, 'dave');
    const ran = await weave(dave, ['ingest', SPINE, '--store', virtuoso.endpoint, '--soul', 'dave']);
    assert.equal(
      ran.stderr,
      'weave ingest: note: 2 session(s) already in the external store, read on another machine: 2 under soul bob; a session copied between machines is one session, so not added again (weave verify checks them against that copy)\n',
    );
    assert.match(ran.stdout, /^ingested: 0 sessions read .* 2 held under another soul\n/);
  });
});
