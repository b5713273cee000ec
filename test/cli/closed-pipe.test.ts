import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FIXTURES, ingestFresh, REPO, removeDir } from '../helpers.ts';

/**
 * A reader that stops early (`weave query … | head -1`) closes the pipe before the command is done
 * writing. Every command then ends quietly with exit code 0, as ripgrep does: no EPIPE stack
 * trace, no `weave export: write EPIPE`. Here the pipe is closed before the command writes
 * anything, so every write it makes meets a closed pipe.
 */

const WEAVE = join(REPO, 'bin', 'weave');
const SESSION = '44444444-4444-4444-8444-444444444444';
let store: string;

before(async () => {
  ({ dir: store } = await ingestFresh([join(FIXTURES, 'server')]));
});
after(() => removeDir(store));

/** The command run with its stdout a pipe closed at once: its exit code and what it wrote to stderr. */
function closedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(WEAVE, [...args, '--store', store], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

for (const args of [
  ['query', 'SELECT ?s ?p ?o WHERE { ?s ?p ?o }'],
  ['query', '--format', 'csv', 'SELECT ?s ?p ?o WHERE { ?s ?p ?o }'],
  ['query', 'CONSTRUCT WHERE { ?s ?p ?o }'],
  ['export', '--format', 'nquads'],
  ['export', '--format', 'trig'],
  ['usage', 'session'],
  ['search', 'hello'],
  ['conversation', SESSION],
  ['status'],
  ['verify'],
]) {
  test(`weave ${args.join(' ')} into a pipe its reader closed: exit 0, nothing on stderr`, async () => {
    assert.deepEqual(await closedPipe(args), { code: 0, stderr: '' });
  });
}
