import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * A 1 GB session ran out of V8's default heap (about 4 GB) in its readers' spine: bin/weave gives
 * node a heap of three quarters of the machine's memory and lets the derivation loop collect
 * garbage between the passes over a large session (--expose-gc). Checked with a `node` first on
 * the PATH that prints what it was started with. (The heap's growth is held at run time, only
 * while much is read: src/derive/heap.ts, tested in test/derive/large.test.ts.)
 */
test("bin/weave starts node with a heap of three quarters of the machine's memory, and the collector in reach", {
  skip: process.platform !== 'linux',
}, async () => {
  const dir = await tempDir();
  try {
    await writeFile(join(dir, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
    await chmod(join(dir, 'node'), 0o755);
    const { stdout } = await promisify(execFile)(join(REPO, 'bin', 'weave'), ['status', '--json'], {
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
    });
    const args = stdout.trim().split('\n');
    const mb = Math.floor(((totalmem() / 1024) * 3) / 4 / 1024);
    // /proc/meminfo's MemTotal, which os.totalmem() reads too; above V8's own default only.
    const expected = mb > 4096 ? [`--max-old-space-size=${mb}`] : [];
    assert.deepEqual(args, ['--expose-gc', ...expected, `${join(REPO, 'bin')}/../src/cli/launch.mjs`, 'status', '--json']);
  } finally {
    await removeDir(dir);
  }
});
