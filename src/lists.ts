/**
 * Lists a long session keeps by the million (a list per record, per turn, per block, per node),
 * kept small: each at its length, and those made of the same few items shared.
 */

/** The empty list every holder of one shares (frozen: never added to). */
export const NONE: never[] = Object.freeze([]) as never;

/**
 * A list as something long-lived keeps it: exactly as long as it is, the empty one shared. An
 * array grown by `push` has room for 17 entries.
 */
export function fitted<T>(list: T[]): T[] {
  return list.length ? list.slice() : NONE;
}

/**
 * Lists made by adding an item to a list, each made once: every holder of the same items added in
 * the same order holds the same list (the classes of a node: a few dozen lists in all).
 */
export class SharedLists<T> {
  private readonly added = new Map<readonly T[], Map<T, readonly T[]>>();

  /** The list of `list`'s items and then `item`, shared; `list` is NONE or one this made. */
  with(list: readonly T[], item: T): readonly T[] {
    let next = this.added.get(list);
    if (!next) this.added.set(list, (next = new Map()));
    let made = next.get(item);
    if (!made) next.set(item, (made = [...list, item]));
    return made;
  }
}
