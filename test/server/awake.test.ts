import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { AwakeLoop, awaitNextAwake } from '../../src/server/workers/awake.ts';

test('a worker awake after a short job takes the next message from its port, once', async (t) => {
  const { port1, port2 } = new MessageChannel();
  // Closed whatever the test's end: a port with a listener left open keeps the file's process alive.
  t.after(() => port1.close());
  const events: unknown[] = [];
  const delivered = new Promise((resolve) =>
    port2.on('message', (m) => {
      events.push(['event', m]);
      resolve(m);
    }),
  );
  port1.postMessage({ type: 'job', id: 7 });
  const taken: unknown[] = [];
  // Posted before the wait: polled at once; the 'message' event never sees it.
  awaitNextAwake(port2, (m: unknown) => taken.push(m), 50);
  assert.deepEqual([...taken], [{ type: 'job', id: 7 }]);
  // Nothing waiting: it returns after its moment without taking anything.
  awaitNextAwake(port2, (m: unknown) => taken.push(m), 1);
  assert.equal(taken.length, 1);
  port1.postMessage({ type: 'job', id: 8 });
  // Waited for, not timed: on a loaded machine a 20 ms timer can fire before the port is polled.
  await delivered;
  assert.deepEqual(events, [['event', { type: 'job', id: 8 }]]);
  assert.equal(taken.length, 1);
});

test('the server loop turns while a short job of a run is on and stops soon after, so an idle server sleeps', async () => {
  let running = true;
  const loop = new AwakeLoop(() => running);
  // A lone job (no answer just before it) is waited for asleep.
  loop.started();
  assert.equal(loop.turning, false);
  let timers = 0;
  const timer = setInterval(() => timers++, 1);
  loop.answered();
  loop.started();
  await new Promise((r) => setTimeout(r, 30));
  // Kept turning while the job runs, and timers still fire meanwhile.
  assert.equal(loop.turning, true);
  assert.ok(timers > 0);
  running = false;
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(loop.turning, false);
  clearInterval(timer);
});
