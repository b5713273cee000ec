import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { displayWidth } from '../../src/query/fit.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { CORPUS, HAS_CORPUS, REPO, removeDir, tempDir } from '../helpers.ts';
import { onTerminal, shownLines } from './pty.ts';

const WEAVE = join(REPO, 'bin', 'weave');

test('Ctrl-C during weave ingest stores what was read, says so and how to go on, and exits 130; the same command carries on', {
  skip: !HAS_CORPUS && 'no corpus beside the checkout',
}, async () => {
  const dir = await tempDir('weave-interrupt-');
  try {
    const store = join(dir, 'store');
    // Typed once the progress line shows a session read (the corpus takes a minute whole).
    const first = await onTerminal([WEAVE, 'ingest', CORPUS, '--store', store], {
      until: / [1-9]\d*\/220 sessions/,
      keys: '\x03',
    });
    assert.equal(first.code, 130, first.output);
    // At 80 columns long lines are folded, later lines indented two spaces: unfolded to be read.
    assert.deepEqual(
      shownLines(first.output).filter((l) => displayWidth(l) > 80),
      [],
    );
    const lines = shownLines(first.output)
      .join('\n')
      .replace(/\n {2}/g, ' ')
      .split('\n');
    assert.ok(lines.includes('weave ingest: stopping after the sessions being read (Ctrl-C again stops at once)'), first.output);
    const said = lines
      .map((l) =>
        /^weave ingest: stopped: (\d+) sessions? read and stored by this run \((\d+) unchanged\), (\d+) left; run the same command again to carry on \(what is stored is not read again\)$/.exec(
          l,
        ),
      )
      .find(Boolean);
    assert.ok(said, first.output);
    const [stored, unchanged, left] = said.slice(1).map(Number);
    assert.equal(unchanged, 0, 'a fresh store: every stored session was read by this run');
    assert.equal(stored + left, 220);
    assert.ok(left > 0, 'stopped before the end');
    // What it says is stored is what the manifest names.
    const manifest = await readManifest(store);
    const sessions = Object.values(manifest!.graphs).filter((g) => g.sessionId && !g.reader).length;
    assert.equal(sessions, stored);

    // The same command again reads only what was left.
    const again = await onTerminal([WEAVE, 'ingest', CORPUS, '--store', store, '--json', '--no-detect']);
    assert.equal(again.code, 0, again.output);
    const report = JSON.parse(again.output.slice(again.output.indexOf('{')).replaceAll('\r\n', '\n'));
    assert.deepEqual([report.skipped, report.sessions], [stored, left]);
  } finally {
    await removeDir(dir);
  }
});
