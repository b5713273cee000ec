import { test } from 'node:test';
import assert from 'node:assert/strict';
import { derivationProblems } from '../../src/cli/ingest.ts';
import type { DeriveReport } from '../../src/derive/loop.ts';

/**
 * `weave ingest` says each derivation that failed. Before, only the readers' and the search
 * index's failures were said: the links across sessions failing on a derived part too large to
 * read whole (a 1 GB session's) left the run silent and the links graph old.
 */

const report = (problems: DeriveReport['problems']): DeriveReport => ({
  ran: {},
  sessions: 1,
  skipped: 0,
  graphs: 0,
  problems,
  millis: 0,
  cpuMillis: 0,
});

test("a store derivation's and a session derivation's failures are each a line; the readers' and the search index's are said elsewhere", () => {
  const lines = derivationProblems(
    report([
      { derivation: 'links', message: 'The value of "size" is out of range.' },
      { derivation: 'usage/rows', sessionId: 'a1b2', message: 'not valid N-Quads' },
      { derivation: 'tool/error', sessionId: 'a1b2', message: 'said by the readers' },
      { derivation: 'search/index', message: 'said on its own line' },
    ]),
  );
  assert.deepEqual(lines, [
    'weave ingest: links was not derived (The value of "size" is out of range.); its last output stays',
    'weave ingest: usage/rows of session a1b2 was not derived (not valid N-Quads); its last output stays',
  ]);
});

test("a failure's message is printed safely: a terminal escape in it is shown, not obeyed", () => {
  const [line] = derivationProblems(report([{ derivation: 'links', message: 'bad \u001b]0;title\u0007 text' }]));
  assert.ok(!line.includes('\u001b'), line);
  assert.ok(line.startsWith('weave ingest: links was not derived (bad '), line);
});

test('no failure, no line', () => {
  assert.deepEqual(derivationProblems(report([])), []);
});
