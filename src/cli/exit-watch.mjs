// Node 20 can deadlock as it exits (nodejs/node#54918): an optimizing compile on a background
// thread waits for a collection only the main thread can make, while the main thread, its event
// loop done, waits for that compile. The command's work is done and written, and the process
// never ends (seen once in a test run: `weave ingest` of a file that is no transcript, 40 minutes
// at 0 % CPU). Nothing in this thread can act then, so a watch in a thread of its own ends the
// process if it is still there `graceMs` after the command finished, and says why on the
// descriptor itself (a thread's process.stderr is written by the main thread, which is stuck).
import { Worker } from 'node:worker_threads';

const WATCH = `
const { writeSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
setTimeout(() => {
  writeSync(2, 'weave: the command finished (exit code ' + workerData.code + ') but node did not end ' + workerData.seconds + ' s later (a shutdown deadlock of Node 20, nodejs/node#54918); ending it\\n');
  process.kill(workerData.pid, 'SIGKILL');
}, workerData.graceMs);
`;

/** Ends this process `graceMs` after now unless it has ended by then; a thread that never holds it open. */
export function watchExit(code, graceMs = 20_000) {
  const worker = new Worker(WATCH, {
    eval: true,
    // Its code is CommonJS whatever this process runs (--input-type=module would make it a module).
    execArgv: [],
    workerData: { code, graceMs, seconds: graceMs / 1000, pid: process.pid },
  });
  worker.unref();
  // Ending with the process, the thread may be cut off as it starts; that is no failure.
  worker.on('error', () => undefined);
}
