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
 * while much is read: src/derive/heap.ts, tested in test/derive/large.test.ts.) glibc's malloc
 * is held to two arenas, which keep less of what is freed than one a thread.
 */
test("bin/weave starts node with a heap of three quarters of the machine's memory, the collector in reach and two malloc arenas", {
  skip: process.platform !== 'linux',
}, async () => {
  const dir = await tempDir();
  try {
    await writeFile(join(dir, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@" "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX"\n');
    await chmod(join(dir, 'node'), 0o755);
    const started = async (env: NodeJS.ProcessEnv) =>
      (
        await promisify(execFile)(join(REPO, 'bin', 'weave'), ['status', '--json'], { env: { ...env, PATH: `${dir}:${process.env.PATH}` } })
      ).stdout
        .trim()
        .split('\n');
    const { MALLOC_ARENA_MAX: _, ...env } = process.env;
    const mb = Math.floor(((totalmem() / 1024) * 3) / 4 / 1024);
    // /proc/meminfo's MemTotal, which os.totalmem() reads too; above V8's own default only.
    const expected = mb > 4096 ? [`--max-old-space-size=${mb}`] : [];
    const launch = `${join(REPO, 'bin')}/../src/cli/launch.mjs`;
    // Two malloc arenas (glibc), unless the user set another number.
    assert.deepEqual(await started(env), ['--expose-gc', ...expected, launch, 'status', '--json', 'MALLOC_ARENA_MAX=2']);
    assert.equal((await started({ ...env, MALLOC_ARENA_MAX: '8' })).at(-1), 'MALLOC_ARENA_MAX=8');
  } finally {
    await removeDir(dir);
  }
});
