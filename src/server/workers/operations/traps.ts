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
