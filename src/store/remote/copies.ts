/**
 * Which copy of a session to read where several souls hold one session id in a store several
 * machines feed and none is this machine's: the one read furthest (the most transcript bytes),
 * so a copy that went on after it was copied wins over the stale one it went on from, whatever
 * the souls are called; of copies read as far, the first by graph name. Every machine reading
 * the store picks the same one.
 */
export interface HeldCopyOf {
  graph: string;
  /** The bytes of its transcripts the copy read (their weave:byteLength, summed). */
  bytes: number;
}

/** Sorts copies as they are preferred: the first is the one to read. */
export function byPreference(x: HeldCopyOf, y: HeldCopyOf): number {
  return y.bytes - x.bytes || x.graph.localeCompare(y.graph);
}
