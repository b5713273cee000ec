/**
 * A count and its noun as a person says it: "1 session", "2 sessions", "1,200 lines". `many` is
 * the plural where adding "s" does not make it ("1 file of an unfinished version").
 */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
