import { setFlagsFromString } from 'node:v8';

/**
 * V8 lets its heap grow to up to four times what its last collection found alive: a 1 GB
 * session's read reached 5.2 GB of RSS, most of it garbage. Grown by half at most
 * (--heap-growing-percent=50) it peaked at 3.9 GB in the same time. On many small sessions the
 * extra collections cost a sixth more CPU and hold back nothing, so the heap is held only while a
 * large session is read and derived (V8 reads the flag at each collection; it is the process's,
 * every thread's).
 */

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
