import assert from 'node:assert/strict';
import { setImmediate } from 'node:timers/promises';
import { test } from 'node:test';
import { startChild } from '../../bench/scale/child.ts';

const DIES = new URL('./fixtures/dies.ts', import.meta.url);
/** Longer than any run of this test: a wait that only its silence ends never ends here. */
const FOREVER = 2 ** 31 - 1;

test('a step whose process dies ends the wait for its next figure once it has ended, not after the silence', async () => {
  const child = startChild(DIES, []);
  const waiting = child.next('query', FOREVER);
  let settled = false;
  void waiting.then(() => (settled = true));
  assert.equal(await child.exited, 3);
  await setImmediate();
  assert.equal(settled, true, 'still waiting for a figure from a process that has ended');
  assert.equal(await waiting, undefined);
  // What it wrote before dying is still read, and how it ended is told.
  assert.deepEqual(await child.next('open', FOREVER), { step: 'open', quads: 3 });
  assert.equal(child.death(), 'exited with 3: QueryError: unreachable');
});
