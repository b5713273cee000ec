import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { test } from 'node:test';
import { REPO } from './helpers.ts';

/**
 * Errors a job leaves unhandled (src/federation/strays.ts), in a real worker thread as a
 * query worker is: each fails the job it came from, later ones from that job are dropped, and
 * the thread goes on with the next job. Comunica raised such errors in federated queries (an
 * endpoint's invalid IRI, an answer cut off); those inputs are handled now, so the jobs here
 * raise them themselves.
 */

const JOBS = `
  const { parentPort } = require('node:worker_threads');
  const jobs = {
    // A rejection nobody handles, and the job's own promise never settles.
    'never-settles': () => new Promise(() => void Promise.reject(new URIError('data the message must not quote'))),
    // Two exceptions thrown in callbacks: the second after the job failed, while the next job runs.
    'throws-twice': () =>
      new Promise(() => {
        setTimeout(() => { throw new TypeError('first'); }, 5);
        setTimeout(() => { throw new RangeError('second'); }, 60);
      }),
    'slow-ok': () => new Promise((resolve) => setTimeout(() => resolve('slow-ok answered'), 150)),
    // Answered, then a rejection from its own work.
    'late-after-answer': async () => {
      setTimeout(() => void Promise.reject(new Error('late')), 20);
      return 'late-after-answer answered';
    },
    ok: async () => 'ok answered',
  };
  (async () => {
    const { tsImport } = await import(${JSON.stringify(pathToFileURL(join(REPO, 'node_modules/tsx/dist/esm/api/index.mjs')).href)});
    const { contained } = await tsImport(${JSON.stringify(pathToFileURL(join(REPO, 'src/federation/strays.ts')).href)}, ${JSON.stringify(pathToFileURL(`${REPO}/`).href)});
    let chain = Promise.resolve();
    parentPort.on('message', (name) => {
      if (name === 'outside') return void setTimeout(() => { throw new SyntaxError('no job'); }, 0);
      chain = chain.then(() =>
        contained(jobs[name], (e) => new Error('the job failed (' + e.name + ')')).then(
          (value) => parentPort.postMessage({ name, done: value }),
          (e) => parentPort.postMessage({ name, failed: e.message }),
        ),
      );
    });
    parentPort.postMessage('ready');
  })();
`;

test('an error a job leaves unhandled fails that job only; a later one from it is dropped; one from no job ends the thread, as before', async () => {
  const worker = new Worker(JOBS, { eval: true });
  const messages: unknown[] = [];
  let ended: Error | undefined;
  worker.on('message', (m) => messages.push(m));
  worker.on('error', (e) => (ended = e));
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const received = async (n: number) => {
    const until = performance.now() + 20_000;
    while (messages.length < n && !ended && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
    return messages.slice(0, n);
  };
  try {
    await received(1);
    for (const job of ['never-settles', 'throws-twice', 'slow-ok', 'late-after-answer', 'ok']) worker.postMessage(job);
    assert.deepEqual(await received(6), [
      'ready',
      { name: 'never-settles', failed: 'the job failed (URIError)' },
      { name: 'throws-twice', failed: 'the job failed (TypeError)' },
      { name: 'slow-ok', done: 'slow-ok answered' },
      { name: 'late-after-answer', done: 'late-after-answer answered' },
      { name: 'ok', done: 'ok answered' },
    ]);
    // The late rejection of 'late-after-answer' (20 ms on) is dropped too: the thread still answers.
    await new Promise((r) => setTimeout(r, 100));
    worker.postMessage('ok');
    assert.deepEqual((await received(7))[6], { name: 'ok', done: 'ok answered' });
    assert.equal(ended, undefined);
    worker.postMessage('outside');
    assert.equal(await exited, 1);
    assert.equal((ended as Error | undefined)?.name, 'SyntaxError');
  } finally {
    await worker.terminate();
  }
});
