import { startVirtuoso, type Virtuoso } from '../../test/store/virtuoso.ts';

/**
 * The scale bench's external store: the test suite's Virtuoso (test/store/virtuoso.ts), sized for
 * the data as its documentation sizes it (virtuoso.ini's table: NumberOfBuffers 340,000 and
 * MaxDirtyBuffers 250,000 for 4 GB of RAM, each buffer an 8 kB page; the machine is shared, so
 * 4 GB is its share, BENCH_VIRTUOSO_GB to change), in a directory of its own on the bench's port.
 */

/** Buffers per GB of RAM given to Virtuoso, from virtuoso.ini's own table (340,000 for 4 GB). */
const BUFFERS_PER_GB = 85_000;

export type BenchVirtuoso = Virtuoso;

/** Starts an empty Virtuoso in `dir` (made, and removed on stop) listening for HTTP on `httpPort`. */
export function startBenchVirtuoso(
  dir: string,
  httpPort: number,
  gigabytes = Number(process.env.BENCH_VIRTUOSO_GB ?? 4),
): Promise<Virtuoso> {
  return startVirtuoso({
    dir,
    httpPort,
    buffers: Math.round(gigabytes * BUFFERS_PER_GB),
    maxQueryMem: '1G',
    maxQuerySeconds: 3600,
    startSeconds: 120,
    stopSeconds: 30,
  });
}
