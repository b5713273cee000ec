import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * Issue 25 (low): a failure's stack was never printed, even with --verbose. A failure that is no
 * mistake in the command line (here a manifest without its soul) is one line; with --verbose its
 * stack frames follow, for a bug report. A usage error stays one line.
 */

const WEAVE = join(REPO, 'bin', 'weave');
const exec = promisify(execFile);

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await exec(WEAVE, args, { encoding: 'utf8' });
    return { code: 0, stderr };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, stderr: err.stderr };
  }
}

test('--verbose prints a failure’s stack frames after its line; without it, the line alone', async () => {
  const dir = await tempDir();
  try {
    await writeFile(join(dir, 'manifest.json'), '{"format": "weave-store/1", "graphs": {}}');
    const line = `weave usage: ${join(dir, 'manifest.json')}: "soul": expected a non-empty string, found nothing`;
    const plain = await run(['usage', '--store', dir]);
    assert.deepEqual([plain.code, plain.stderr], [1, `${line}\n`]);

    const verbose = await run(['usage', '--store', dir, '--verbose']);
    const [first, ...frames] = verbose.stderr.trimEnd().split('\n');
    assert.deepEqual([verbose.code, first], [1, line]);
    assert.match(frames[0], /^ {4}at parseManifest \(.*src\/store\/manifest\.ts:\d+:\d+\)$/);
    assert.ok(frames.length >= 3 && frames.every((f) => /^ {4}at /.test(f)), verbose.stderr);

    // A mistake in the command line is said in one line, --verbose or not.
    const usage = await run(['usage', '--store', dir, '--verbose', '--since', 'yesterday']);
    assert.equal(usage.code, 2);
    assert.equal(usage.stderr.trimEnd().split('\n').length, 1, usage.stderr);
  } finally {
    await removeDir(dir);
  }
});
