import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startRawEndpoint } from '../federation/endpoint.ts';
import { REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * Found reading what `weave query --timeout` cuts: a query sent to an external store ran to the
 * store's answer whatever the option said, and a store that took the connection and never
 * answered held the command for fetch's five minutes. A real socket that answers nothing stands
 * for the store; the command as a user runs it, through the light entry (no server to be had:
 * this machine never wrote to the store) and opening the store itself (--no-daemon).
 */

const execute = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');

describe('weave query --timeout over an external store that never answers', () => {
  let home: string;
  let silent: { url: string; close(): void };
  before(async () => {
    home = await tempDir('weave-external-timeout-');
    silent = await startRawEndpoint(() => undefined);
  });
  after(async () => {
    silent.close();
    await removeDir(home);
  });

  for (const how of [[], ['--no-daemon']])
    it(`fails at its time, saying so (${how.length ? '--no-daemon' : 'the light entry'})`, { timeout: 60_000 }, async () => {
      const run = execute(WEAVE, ['query', '--timeout', '1', '--store', silent.url, ...how, 'ASK {}'], {
        encoding: 'utf8',
        env: { ...process.env, WEAVE_HOME: home, WEAVE_NO_DAEMON: how.length ? '1' : '' },
      });
      await assert.rejects(run, (e: { code: number; stdout: string; stderr: string }) => {
        assert.deepEqual(
          [e.code, e.stdout, e.stderr],
          [1, '', 'weave query: the query ran longer than the timeout of 1 s (--timeout) and was stopped\n'],
        );
        return true;
      });
    });
});
