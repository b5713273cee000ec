/** A SELECT's solutions as plain values. */
type Rows = Record<string, string>[];

/**
 * Every query of a set, asked at once through `select`, as rows by name. It loads nothing else, so
 * the model and the light client can use it without Oxigraph.
 */
export async function selectAll<Q extends Record<string, string>>(
  queries: Q,
  select: (query: string) => Rows | Promise<Rows>,
): Promise<Record<keyof Q, Rows>> {
  const names = Object.keys(queries) as (keyof Q)[];
  const rows = await Promise.all(names.map((name) => select(queries[name])));
  return Object.fromEntries(names.map((name, i) => [name, rows[i]])) as Record<keyof Q, Rows>;
}
