// Preloaded (NODE_OPTIONS=--require) into `weave ingest` by bench/big-session.ts when
// WEAVE_BENCH_PHASES names a file: samples RSS and V8's heap in use every 250 ms and writes, at
// each full collection the derivation loop asks for between its passes over a large session
// (src/derive/loop.ts) and at exit, one JSON line with the highest of each since the last. The
// phases are then told apart as the loop tells them: the read and the conversation model, then
// one pass per input, then the store derivations. Nothing here runs unless the bench asks.
const { isMainThread } = require('node:worker_threads');
const out = process.env.WEAVE_BENCH_PHASES;
if (out && isMainThread && typeof global.gc === 'function') {
  const fs = require('node:fs');
  const fd = fs.openSync(out, 'a');
  const started = Date.now();
  let high = { rss: 0, heap: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    high = { rss: Math.max(high.rss, m.rss), heap: Math.max(high.heap, m.heapUsed) };
  };
  setInterval(sample, 250).unref();
  const end = () => {
    sample();
    const MiB = 2 ** 20;
    fs.writeSync(fd, `${JSON.stringify({ seconds: (Date.now() - started) / 1000, rssMiB: high.rss / MiB, heapMiB: high.heap / MiB })}\n`);
    high = { rss: 0, heap: 0 };
  };
  const gc = global.gc;
  global.gc = (...args) => {
    end();
    return gc(...args);
  };
  process.on('exit', end);
}
