/**
 * `node --import tsx bench/open-store.ts DIR [raw]`: one copy of the store in a process of its own,
 * for the bench's baselines. Without `raw`: Weave's openStore from the graph files. With `raw`:
 * Oxigraph's own fastest load of the same quads (the files read into memory first, then loaded in
 * ~4 MB slices with no transaction), the floor openStore is compared with. Prints JSON: quads,
 * milliseconds, and RSS after the load.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import oxigraph from 'oxigraph';
import { openStore } from '../src/store/store.ts';

const [dir, mode] = process.argv.slice(2);
let quads: number;
let ms: number;
if (mode === 'raw') {
  const names = (await readdir(join(dir, 'graphs'))).filter((n) => n.endsWith('.nq'));
  const files = await Promise.all(names.map((n) => readFile(join(dir, 'graphs', n))));
  const t0 = performance.now();
  const store = new oxigraph.Store();
  let slice: Buffer[] = [];
  let bytes = 0;
  const load = () => {
    if (slice.length) store.load(Buffer.concat(slice), { format: 'application/n-quads', no_transaction: true });
    slice = [];
    bytes = 0;
  };
  for (const f of files) {
    slice.push(f);
    bytes += f.length;
    if (bytes >= 4e6) load();
  }
  load();
  ms = performance.now() - t0;
  quads = store.size;
} else {
  const t0 = performance.now();
  const { store } = await openStore(dir);
  ms = performance.now() - t0;
  quads = store.size;
}
console.log(JSON.stringify({ quads, ms, rss: process.memoryUsage().rss }));
