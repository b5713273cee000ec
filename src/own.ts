/**
 * A table's own entry for a key that came from outside (a URL, a header, a flag). Plain objects
 * inherit `constructor`, `toString`, `__proto__` and the rest from Object.prototype, so
 * `TABLE[key]` on such a key returns a function instead of nothing: `/assets/constructor` was a
 * 500. Every lookup by an outside key goes through here.
 */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
