/**
 * Which copy of a session to read where several souls hold one session id in a store several
 * machines feed and none is this machine's: the one read furthest (the most transcript bytes),
 * so a copy that went on after it was copied wins over the stale one it went on from, whatever
 * the souls are called; of copies read as far, the first by graph name. Every machine reading
 * the store picks the same one: usage's owners, ingest's sessions held elsewhere, titles and
 * other machines' search documents all choose here.
 */
export interface HeldCopyOf {
  graph: string;
  /** The bytes of its transcripts the copy read (their weave:byteLength, summed). */
  bytes: number;
}

/** Sorts copies as they are preferred: the first is the one to read. */
function byPreference(x: HeldCopyOf, y: HeldCopyOf): number {
  return y.bytes - x.bytes || x.graph.localeCompare(y.graph);
}

/** Of the copies of one session (at least one), the one to read. */
export function preferredCopy<C extends HeldCopyOf>(copies: readonly C[]): C {
  return [...copies].sort(byPreference)[0];
}

/** Of the copies of many sessions, the one to read of each: session id → that copy, the most preferred first. */
export function preferredCopies<C extends HeldCopyOf & { sessionId: string }>(copies: Iterable<C>): Map<string, C> {
  const preferred = new Map<string, C>();
  for (const copy of [...copies].sort(byPreference)) if (!preferred.has(copy.sessionId)) preferred.set(copy.sessionId, copy);
  return preferred;
}

/**
 * The copies of sessions a query's rows name, a row per transcript of a copy (the same one more
 * than once where the values beside it differ): a copy has read the bytes of its transcripts,
 * each counted once.
 */
export class SessionCopies<T> {
  private readonly copies = new Map<string, { sessionId: string; graph: string; data: T; read: Map<string, number> }>();

  /** The data of the copy of `sessionId` in `graph`, made by `make` at its first row; of it, `transcript` (if named) read `bytes`. */
  add(sessionId: string, graph: string, make: () => T, transcript?: string, bytes = 0): T {
    const key = JSON.stringify([sessionId, graph]);
    let copy = this.copies.get(key);
    if (!copy) this.copies.set(key, (copy = { sessionId, graph, data: make(), read: new Map() }));
    if (transcript) copy.read.set(transcript, bytes);
    return copy.data;
  }

  /** Session id → its preferred copy: its data, and the bytes it read of each transcript. */
  preferred(): Map<string, { data: T; read: Map<string, number> }> {
    const sized = [...this.copies.values()].map((copy) => ({ ...copy, bytes: [...copy.read.values()].reduce((n, b) => n + b, 0) }));
    return new Map([...preferredCopies(sized)].map(([id, { data, read }]) => [id, { data, read }]));
  }
}
