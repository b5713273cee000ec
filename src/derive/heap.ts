import { setFlagsFromString } from 'node:v8';

/**
 * V8 lets its heap grow to up to four times what its last collection found alive: a 1 GB
 * session's read reached 5.2 GB of RSS, most of it garbage. Grown by half at most
 * (--heap-growing-percent=50) it peaked at 3.9 GB in the same time, and eight copies of the
 * corpus went into Virtuoso in 1,176 MiB against 1,586. The extra collections cost a sixth more
 * CPU, and on a run of a few hundred MB they hold back nothing worth it, so the heap is held only
 * while much is read and derived: a large session, a large run, a large search index (V8 reads
 * the flag at each collection; it is the process's, every thread's). Node warns that a flag set
 * after start may act unpredictably: this one is a number V8 reads when it sizes the heap, and
 * set at run time it held a test's heap as it does given at start (docs/benchmarks.md).
 */

/** A run reading more than this many bytes of transcripts (a first ingest of a long history, a rebuild) holds the heap. */
export const LARGE_RUN_BYTES = 256 << 20;
/** Search documents past this many bytes make an index whose update holds the heap (32 copies of the corpus: 503 MB, 2.7 GB of index). */
export const LARGE_INDEX_BYTES = 64 << 20;

let holders = 0;

/** Holds the heap's growth to half of what a collection found alive, until the returned release is called (holds nest). */
export function holdHeapGrowth(): () => void {
  if (holders++ === 0) setFlagsFromString('--heap-growing-percent=50');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // 0 is V8's default: the factor it works out from its collector's speed.
    if (--holders === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}

/** Whether the heap's growth is held now. */
export function heapGrowthHeld(): boolean {
  return holders > 0;
}
