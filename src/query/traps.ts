/**
 * WebAssembly traps: Oxigraph's store is in an unknown state after one, so the worker that ran
 * the job must be replaced rather than answer another.
 */
export function isTrap(e: unknown): boolean {
  return (
    (e as Error)?.name === 'RuntimeError' ||
    /^(unreachable|memory access out of bounds)|WebAssembly\.Memory|Maximum memory size/.test((e as Error)?.message ?? '')
  );
}

/** How much of a query a trap's answer quotes to name it (its sender's own text, never logged). */
const QUOTED = 120;

/**
 * What the sender of a query that trapped is told: which query, that the store ran past what one
 * embedded copy can compute (a trap is how Oxigraph's WebAssembly ends when its memory runs out),
 * and the way on. `after` says what happens next (the server replaces the worker and stays up).
 */
export function trapMessage(query: string | undefined, e: unknown, after = ''): string {
  const what = query === undefined ? 'the request' : `the query "${quote(query)}"`;
  const trap = ((e as Error)?.message ?? '').split('\n')[0].slice(0, 80) || 'a trap';
  return (
    `${what} stopped the store inside WebAssembly (${trap}): it needs more memory than one embedded ` +
    'store has at this size. Narrow it (a LIMIT, one named graph, fewer joins, a subquery that ' +
    'aggregates first), or move the store to an external SPARQL store (docs/guide.md, "An external ' +
    `store").${after ? ` ${after}` : ''}`
  );
}

function quote(query: string): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTED ? `${flat.slice(0, QUOTED - 1)}…` : flat;
}
