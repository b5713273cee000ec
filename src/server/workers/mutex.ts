/**
 * One holder at a time, in arrival order. The store directory has one writer: an ingest run or
 * a write over HTTP, never both, because each rewrites the manifest from its own copy.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
