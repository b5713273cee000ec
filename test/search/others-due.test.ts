import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OTHERS_EVERY_MS, othersAsked, othersDue } from '../../src/search/others.ts';

/**
 * A live pass (weave serve, ingest --watch) asks the external store for other machines' sessions
 * at most once a minute; every other run asks, whenever the last ask was (the runs of
 * test/store/remote-commands.test.ts ask a real Virtuoso twice within seconds).
 */
test('a live pass asks the store for other machines’ sessions a minute after the last ask; any other run always', () => {
  const dir = '/nowhere/a-store';
  assert.equal(othersDue(dir, true), true, 'never asked: a live pass asks');
  const t = 1_000_000;
  othersAsked(dir, t);
  assert.equal(othersDue(dir, true, t + OTHERS_EVERY_MS - 1), false);
  assert.equal(othersDue(`${dir}/`, true, t + 1), false, 'the same directory, however written');
  assert.equal(othersDue(dir, true, t + OTHERS_EVERY_MS), true);
  assert.equal(othersDue(dir, false, t + 1), true, 'a run that is not live always asks');
  assert.equal(othersDue('/nowhere/another-store', true, t + 1), true);
  assert.equal(OTHERS_EVERY_MS, 60_000);
});
