/**
 * One holder at a time, in arrival order: the server's ingest runs and its writes over HTTP take
 * turns, so a graph an update replaces is never being rewritten by ingest at the same moment.
 * (The store writer merges manifest changes; this orders the graph writes themselves.)
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
