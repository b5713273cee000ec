/** Loads N-Quads into a fresh Oxigraph store one way, in a worker, so a slow way can be cut off. */
import { parentPort, workerData } from 'node:worker_threads';
import oxigraph from 'oxigraph';

const { strategy, lines } = (workerData ?? { lines: [] }) as { strategy?: string; lines: string[] };
const format = 'application/n-quads';
const chunks = (size: number) =>
  Array.from({ length: Math.ceil(lines.length / size) }, (_, i) => `${lines.slice(i * size, (i + 1) * size).join('\n')}\n`);

export const STRATEGIES: Record<string, () => oxigraph.Store> = {
  // Weave's graph files hold terms it wrote itself: they are loaded without checking each IRI again (src/store/store.ts).
  '10k-quad chunks, lenient (used)': () => {
    const s = new oxigraph.Store();
    for (const c of chunks(10_000)) s.load(c, { format, no_transaction: true, lenient: true });
    return s;
  },
  '10k-quad chunks, checked': () => {
    const s = new oxigraph.Store();
    for (const c of chunks(10_000)) s.load(c, { format, no_transaction: true });
    return s;
  },
  '100k-quad chunks': () => {
    const s = new oxigraph.Store();
    for (const c of chunks(100_000)) s.load(c, { format, no_transaction: true });
    return s;
  },
  'iterable of 10k chunks': () => {
    const s = new oxigraph.Store();
    s.load(chunks(10_000), { format, no_transaction: true });
    return s;
  },
  'one string': () => {
    const s = new oxigraph.Store();
    s.load(lines.join('\n'), { format });
    return s;
  },
  'one string, no transaction': () => {
    const s = new oxigraph.Store();
    s.load(lines.join('\n'), { format, no_transaction: true });
    return s;
  },
  'new Store(parsed quads)': () => new oxigraph.Store(oxigraph.parse(lines.join('\n'), { format }) as oxigraph.Quad[]),
  'per-quad add': () => {
    const s = new oxigraph.Store();
    for (const q of oxigraph.parse(lines.join('\n'), { format }) as oxigraph.Quad[]) s.add(q);
    return s;
  },
};

if (parentPort && strategy) {
  const t0 = performance.now();
  const store = STRATEGIES[strategy]();
  parentPort.postMessage({ ms: performance.now() - t0, size: store.size });
}
