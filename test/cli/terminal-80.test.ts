import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { displayWidth } from '../../src/query/fit.ts';
import { CORPUS, HAS_CORPUS, REPO, removeDir, tempDir } from '../helpers.ts';
import { onTerminal, shownLines } from './pty.ts';

/**
 * The README's commands as a new user runs them, on a real terminal 80 columns wide, over real
 * transcripts (a project of the corpus, CJK text and sub-agents included): no line they show is
 * wider than the terminal. Left out: what writes data rather than lines to read (--format csv,
 * --json) and `weave ingest --watch`, which runs until stopped (as weave serve does, here stopped
 * by a Ctrl-C once it says it is ready).
 */

const WEAVE = join(REPO, 'bin', 'weave');

test("every README command's output fits an 80-column terminal", { skip: !HAS_CORPUS && 'no corpus beside the checkout' }, async () => {
  const dir = await tempDir('weave-80-');
  try {
    const home = join(dir, 'home');
    await mkdir(join(home, '.claude', 'projects'), { recursive: true });
    const env = {
      HOME: home,
      TMPDIR: dir,
      WEAVE_HOME: join(dir, 'store'),
      CLAUDE_CONFIG_DIR: '',
      XDG_DATA_HOME: join(home, 'data'),
    };
    const commands = [
      ['ingest', join(CORPUS, 'yejh123__VibeLens')],
      ['usage'],
      ['usage', 'session'],
      ['search', 'git worktree'],
      ['query', 'SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }'],
      ['query', '-f', 'queries/tokens-per-day-per-model.rq'],
      ['conversation', '6d590f7e'],
      ['conversation', '9e14d594'], // Chinese titles and turns
      ['verify'],
      ['status'],
      ['export', '--format', 'trig', '-o', join(dir, 'weave.trig')],
      ['glossary'],
      ['--help'],
    ];
    for (const args of commands) {
      const run = await onTerminal([WEAVE, ...args], { env });
      assert.equal(run.code, 0, `weave ${args.join(' ')}: ${run.output}`);
      const wide = shownLines(run.output).filter((line) => displayWidth(line) > 80);
      assert.deepEqual(wide, [], `weave ${args.join(' ')}`);
    }
    // npm start with no transcripts: the bundled fixtures, said in lines that fit too.
    const serve = await onTerminal([WEAVE, 'serve', '--port', '0'], {
      env: { ...env, WEAVE_HOME: '' },
      until: /weave serve: ready/,
      keys: '\x03',
    });
    const lines = shownLines(serve.output);
    assert.ok(
      lines.some((l) => l.startsWith('weave serve: ready ')),
      serve.output,
    );
    assert.deepEqual(
      lines.filter((line) => displayWidth(line) > 80),
      [],
      'weave serve',
    );
  } finally {
    await removeDir(dir);
  }
});

test('on a terminal, a command names the store it uses when --store names another than the default (and says nothing when it names the default), the fixtures by name', async () => {
  const dir = await tempDir('weave-store-said-');
  try {
    const env = { HOME: dir, TMPDIR: dir, WEAVE_HOME: join(dir, 'default'), CLAUDE_CONFIG_DIR: '' };
    const fixtures = join(dir, 'weave-fixtures-store');
    const run = await onTerminal([WEAVE, 'status', '--store', fixtures], { env, columns: 400 });
    const lines = shownLines(run.output);
    assert.equal(
      lines[0],
      `weave status: using the bundled fixtures' store ${fixtures} (--store), not the default ${join(dir, 'default')}`,
    );
    // Said once, though the light entry and the full CLI both read the arguments.
    assert.equal(lines.filter((l) => l.includes('(--store)')).length, 1, run.output);
    const other = await onTerminal([WEAVE, 'usage', '--store', join(dir, 'mine')], { env, columns: 400 });
    assert.equal(
      shownLines(other.output)[0],
      `weave usage: using the store ${join(dir, 'mine')} (--store), not the default ${join(dir, 'default')}`,
    );
    // --store naming the default itself: nothing to say.
    const same = await onTerminal([WEAVE, 'status', '--store', join(dir, 'default')], { env, columns: 400 });
    assert.ok(!same.output.includes('(--store)'), same.output);
  } finally {
    await removeDir(dir);
  }
});
