import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readManifest } from '../../src/store/manifest.ts';
import { holdsStoreLock, lockHolder, takeStoreLock } from '../../src/store/lock.ts';
import { openStoreForWriting } from '../../src/store/writer.ts';
import { startServer } from '../../src/server/server.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * One writer at a time, across processes: a second writer is refused with one line naming the
 * holder, a lock whose process was killed is taken over with a note, and two ingests started
 * together never lose each other's sessions (issue 12: before the lock both exited 0 and the
 * manifest kept a fraction of the graphs).
 */

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');

/** A real process holding the lock as `weave serve`, once it says so. */
async function holder(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test', 'store', 'hold-lock.ts'), dir], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
  });
  return child;
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

test('a second writer is refused with one line naming the holder, a server as one to ask, not wait for; the store is untouched', async () => {
  const dir = await tempDir('weave-lock-');
  const child = await holder(dir);
  try {
    const lock = JSON.parse(await readFile(join(dir, 'lock'), 'utf8'));
    assert.equal(lock.pid, child.pid);
    // Since when, as every command prints a time (it printed the lock's ISO text, 2026-12-07T11:27:54.222Z).
    const since = `${lock.since.slice(0, 10)} ${lock.since.slice(11, 19)} UTC`;
    const line = (command: string) =>
      `weave ${command}: the store in ${dir} is being written by pid ${child.pid} (weave serve, since ${since}); weave serve keeps this store current; ask it, or stop it\n`;
    await assert.rejects(run(WEAVE, ['ingest', join(FIXTURES, 'spine'), '--store', dir]), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 1);
      assert.equal(e.stderr, line('ingest'));
      return true;
    });
    assert.deepEqual(await readdir(dir), ['lock'], 'nothing written');

    // A server that would ingest is refused too, before it listens.
    await assert.rejects(
      startServer({
        storeDir: dir,
        soul: 'local',
        host: '127.0.0.1',
        port: 0,
        timeoutMs: 5000,
        workers: 1,
        queueLimit: 1,
        maxResultBytes: 1e6,
        bodyLimitBytes: 1e6,
        allowUpdate: false,
        corsOrigins: [],
        queriesDir: join(REPO, 'queries'),
        ingest: { paths: [join(FIXTURES, 'spine')], refreshMs: 0 },
        verbose: false,
        log: () => undefined,
      }),
      {
        message: line('x')
          .replace(/^weave x: /, '')
          .trimEnd(),
      },
    );
    // This process does not hold it, so it may not write either.
    assert.equal(await holdsStoreLock(dir), false);
    await assert.rejects(openStoreForWriting(dir, 'local'), { message: `${dir}: the store is written only under its lock (lockStore)` });
  } finally {
    await killed(child);
    await removeDir(dir);
  }
});

test('a lock whose process was killed is taken over, with a note naming it; a finished writer leaves no lock', async () => {
  const dir = await tempDir('weave-lock-');
  try {
    const child = await holder(dir);
    const lock = JSON.parse(await readFile(join(dir, 'lock'), 'utf8'));
    await killed(child);
    assert.deepEqual(await lockHolder(dir), { holder: lock, stale: true });
    const { stderr } = await run(WEAVE, ['ingest', join(FIXTURES, 'spine'), '--store', dir, '--no-detect']);
    assert.match(
      stderr,
      new RegExp(
        `^weave ingest: note: took over the store lock of pid ${child.pid} \\(weave serve, since ${lock.since.slice(0, 10)} ${lock.since.slice(11, 19)} UTC\\), which is no longer running\n`,
      ),
    );
    assert.equal((await readdir(dir)).includes('lock'), false);
    assert.equal(await lockHolder(dir), undefined);
  } finally {
    await removeDir(dir);
  }
});

test('within one process the lock is taken again without waiting, and goes with the last release', async () => {
  const dir = await tempDir('weave-lock-');
  try {
    const first = await takeStoreLock(dir, { command: 'test' });
    const second = await takeStoreLock(dir);
    assert.deepEqual([first.fresh, second.fresh], [true, false]);
    assert.equal(second.holder.nonce, first.holder.nonce);
    await first.release();
    assert.equal(await holdsStoreLock(dir), true, 'the second hold keeps it');
    await second.release();
    assert.equal(await holdsStoreLock(dir), false);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await removeDir(dir);
  }
});

test('two ingests of different folders started together: each either writes all its sessions or is refused, and the store checks clean', async () => {
  const dir = await tempDir('weave-lock-');
  try {
    const folders = ['spine', 'server'];
    const runs = await Promise.all(
      folders.map((f) =>
        run(WEAVE, ['ingest', join(FIXTURES, f), '--store', dir, '--no-detect']).then(
          () => ({ code: 0, stderr: '' }),
          (e) => e,
        ),
      ),
    );
    const sessions = Object.values((await readManifest(dir))!.graphs).flatMap((g) => (g.sessionId ? [g.sessionId] : []));
    const idsOf = async (folder: string) =>
      (await readdir(join(FIXTURES, folder), { recursive: true }))
        .map(String)
        .filter((f) => /^[^/]+\/[0-9a-f-]{36}\.jsonl$/.test(f))
        .map((f) => f.slice(f.indexOf('/') + 1, -6));
    for (const [i, result] of runs.entries()) {
      const ids = await idsOf(folders[i]);
      if (result.code === 0) for (const id of ids) assert.ok(sessions.includes(id), `${folders[i]}: ${id}`);
      else {
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          new RegExp(
            `^weave ingest: the store in ${dir} is being written by pid \\d+ \\(weave ingest, since [^)]+\\); wait for it to finish, or stop it\n$`,
          ),
        );
        for (const id of ids) assert.ok(!sessions.includes(id));
      }
    }
    assert.ok(runs.some((r) => r.code === 0));
    const self = await run(WEAVE, ['verify', '--self', '--store', dir]);
    assert.match(self.stdout, /^store: \d+ graphs in \d+ files/);
  } finally {
    await removeDir(dir);
  }
});
