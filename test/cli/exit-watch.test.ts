import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers.ts';

/**
 * Node 20 can deadlock as it exits (nodejs/node#54918: a background compile waits for a
 * collection only the main thread makes, while the main thread waits for it). A test run saw
 * `weave ingest` of a file that is no transcript finish its work and hang for 40 minutes. That
 * deadlock cannot be made at will, so a main thread that never returns stands in for it here:
 * the watch the command line arms once a command has finished ends the process, and says so.
 */

const WATCH = pathToFileURL(join(REPO, 'src', 'cli', 'exit-watch.mjs')).href;

function node(script: string): Promise<{ code: number | null; signal: string | null; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => {
    stderr += text;
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stderr, ms: performance.now() - started }));
  });
}

test('a process still there past the grace after its command finished is ended, saying why', async () => {
  // The main thread blocks for good, as in the deadlock: nothing in it can run again.
  const stuck = await node(
    `import { watchExit } from ${JSON.stringify(WATCH)}; watchExit(1, 500); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);`,
  );
  assert.deepEqual(
    [stuck.code, stuck.signal, stuck.stderr],
    [
      null,
      'SIGKILL',
      'weave: the command finished (exit code 1) but node did not end 0.5 s later (a shutdown deadlock of Node 20, nodejs/node#54918); ending it\n',
    ],
  );
});

test('a process that ends keeps its exit code, ends at once and says nothing', async () => {
  const ended = await node(`import { watchExit } from ${JSON.stringify(WATCH)}; process.exitCode = 3; watchExit(3, 20000);`);
  assert.deepEqual([ended.code, ended.signal, ended.stderr], [3, null, '']);
  // Far less than the grace: the watch's thread never holds the process open.
  assert.ok(ended.ms < 10_000, `${ended.ms} ms`);
});
