import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineSoul } from '../../src/store/remote/soul.ts';
import { isRunning, readRunFile } from '../../src/store/running.ts';
import { REPO } from '../server/helpers.ts';

/** This machine's soul (store/remote/soul.ts), and a store's soul set once by its first write. */

const WEAVE = join(REPO, 'bin', 'weave');
const SPLIT = join(REPO, 'fixtures', 'model', 'split-call');

function weave(args: string[], home: string, resident = false): Promise<{ code: number; stdout: string; stderr: string }> {
  // The suite's commands answer by themselves (test/no-daemon.ts); `resident` lets one start the store's server.
  const { WEAVE_NO_DAEMON: _, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(WEAVE, args, { env: { ...(resident ? env : process.env), WEAVE_HOME: home } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test("a machine's soul is made once, kept readable by its user only, and the same for commands starting at once", async () => {
  const base = await mkdtemp(join(tmpdir(), 'weave-soul-'));
  try {
    const told: string[] = [];
    const souls = await Promise.all(Array.from({ length: 4 }, () => machineSoul(base, (soul) => told.push(soul))));
    assert.equal(new Set(souls).size, 1);
    assert.match(souls[0], /^[a-z0-9-]+-[0-9a-f]{8}$/);
    assert.equal(told.length, 1, 'said once, by the command that made it');
    assert.equal((await readFile(join(base, 'soul'), 'utf8')).trim(), souls[0]);
    assert.equal((await stat(join(base, 'soul'))).mode & 0o777, 0o600);
    assert.equal(await machineSoul(base, (soul) => told.push(soul)), souls[0]);
    assert.equal(told.length, 1);
    await writeFile(join(base, 'soul'), 'not a soul\n');
    await assert.rejects(machineSoul(base), {
      message: `${join(base, 'soul')}:1: not a soul (letters, digits, '.', '_' or '-' on one line); remove it and Weave makes another`,
    });
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test("a store's soul is set by its first write: later commands without --soul keep it, another is refused", async () => {
  const home = await mkdtemp(join(tmpdir(), 'weave-soul-store-'));
  const store = join(home, 'store');
  try {
    const first = await weave(['ingest', SPLIT, '--store', store, '--soul', 'alice', '--no-detect'], home);
    assert.equal(first.code, 0, first.stderr);
    const again = await weave(['ingest', SPLIT, '--store', store, '--no-detect', '--force'], home);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /1 session read/);
    const status = JSON.parse((await weave(['status', '--store', store, '--json', '--no-daemon'], home)).stdout);
    assert.equal(status.soul, 'alice');
    const other = await weave(['ingest', SPLIT, '--store', store, '--soul', 'bob', '--no-detect'], home);
    assert.equal(other.code, 1);
    assert.match(
      other.stderr,
      /was built for soul "alice", not "bob"; a store's soul is set once: drop --soul\/--soul-repo to write as "alice", or use another --store/,
    );
    // A new store held here is "local", as the contract says; no machine soul is made for it.
    const fresh = await weave(['ingest', SPLIT, '--store', join(home, 'fresh'), '--no-detect'], home);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(JSON.parse((await weave(['status', '--store', join(home, 'fresh'), '--json', '--no-daemon'], home)).stdout).soul, 'local');
    await assert.rejects(stat(join(home, 'soul')));
    // --by person through the store's resident server (the command starts one) folds as the command does.
    try {
      const byPerson = await weave(['usage', '--by', 'person', '--json', '--store', store], home, true);
      assert.equal(byPerson.code, 0, byPerson.stderr);
      assert.ok(await readRunFile(store), 'a resident server answered');
      // split-call's calls, each by its last fragment: 100+120+130 in, 180+60+25 out, 5000+5300+5400 read.
      const [alice] = JSON.parse(byPerson.stdout).persons;
      assert.deepEqual(
        [alice.key, alice.sessions, alice.inputTokens, alice.outputTokens, alice.cacheReadTokens],
        ['alice', 1, 350, 265, 15700],
      );
    } finally {
      const run = await readRunFile(store);
      if (run && isRunning(run.pid)) process.kill(run.pid, 'SIGTERM');
      for (let i = 0; run && i < 200 && isRunning(run.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
