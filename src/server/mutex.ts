/**
 * One holder at a time, in arrival order. The store directory has one writer: an ingest run or
 * a write over HTTP, never both, because each rewrites the manifest from its own copy.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  /** Whether someone holds the lock or waits for it. */
  get busy(): boolean {
    return this.holders > 0;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    this.holders++;
    const result = this.tail.then(work);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      this.holders--;
    });
    return result;
  }
}
