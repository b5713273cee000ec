/** The empty list every holder of one shares (frozen: never added to). */
const NONE: never[] = Object.freeze([]) as never;

/**
 * A list as something long-lived keeps it: exactly as long as it is, the empty one shared. An
 * array grown by `push` has room for 17 entries, and a long session keeps a list per record, per
 * turn and per block.
 */
export function fitted<T>(list: T[]): T[] {
  return list.length ? list.slice() : NONE;
}
