import { openStore } from './src/store/store.ts';
const t0 = performance.now();
const { store } = await openStore(process.argv[2]);
const ms = performance.now() - t0;
const m = process.memoryUsage();
console.log(JSON.stringify({ quads: store.size, ms: Math.round(ms), rssMiB: Math.round(m.rss / 2**20), heap: Math.round(m.heapUsed/2**20), ext: Math.round(m.external/2**20), ab: Math.round(m.arrayBuffers/2**20) }));
