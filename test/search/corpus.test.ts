import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SearchIndex } from '../../src/search/index.ts';
import { type CorpusStore, corpusStore, releaseCorpusStore } from '../corpus-store.ts';
import { HAS_CORPUS } from '../helpers.ts';

/** Search on the real corpus: every query answered in under 200 ms once the index is open. */

const QUERIES = [
  'README',
  'pagination coderabbit',
  'git worktree',
  'TypeError undefined',
  'parser lexer token',
  'npm install',
  'pytest fixture',
  'claude code hooks',
  'refactor timeline filtering',
  'docker compose',
  'SELECT',
  'emojikey',
];

describe('weave search on the corpus', { skip: HAS_CORPUS ? false : 'no corpus at ../shared/corpus' }, () => {
  let corpus: CorpusStore | undefined;
  let dir: string;
  before(async () => {
    corpus = await corpusStore();
    dir = corpus.dir;
  });
  after(() => releaseCorpusStore(corpus));

  test('each query under 200 ms (median and slowest reported)', async (t) => {
    const opened = performance.now();
    const index = await SearchIndex.open(dir);
    const openMs = performance.now() - opened;
    const times: number[] = [];
    for (const q of QUERIES) {
      const started = performance.now();
      const { hits } = await index.search(q, { limit: 10 });
      times.push(performance.now() - started);
      if (q !== 'emojikey') assert.ok(hits.length > 0, `no hits for "${q}"`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    t.diagnostic(
      `${index.documentCount} documents; open ${openMs.toFixed(0)} ms; per search median ${median.toFixed(1)} ms, slowest ${sorted[sorted.length - 1].toFixed(1)} ms`,
    );
    assert.ok(median < 200, `median ${median.toFixed(1)} ms`);
  });

  /**
   * Every result folds, whether or not its hit is shown: "git worktree" was "3 of 114 hits" at
   * --limit 3 and "20 of 110" at 20 (only the sessions read for the hits shown folded their
   * copies); all of them read, 102.
   */
  test('a total is the same whatever the limit', async () => {
    const index = await SearchIndex.open(dir);
    const totals = await Promise.all([1, 3, 20, 1000].map(async (limit) => (await index.search('git worktree', { limit })).total));
    assert.deepEqual(totals, [102, 102, 102, 102]);
  });
});
