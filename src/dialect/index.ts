import type { Dialect } from './dialect.ts';
import { dialect as claudeCode } from './claude-code/index.ts';

/**
 * The dialects Weave reads, one line each; the first is the default (`weave glossary`). A new
 * runtime is a folder beside claude-code/ exporting its `dialect` (src/dialect/dialect.ts),
 * and one line here.
 */
// biome-ignore format: one line per dialect
export const DIALECTS: readonly Dialect[] = [
  claudeCode,
];

/** Whether each of these dialect modules is one of Weave's own: a thread loading another needs a TypeScript loader (src/server/workers/boot.mjs). */
export function allOwn(modules: readonly string[]): boolean {
  return modules.every((m) => DIALECTS.some((d) => d.module === m));
}

/** The dialect of a module, loaded in a thread that has only its URL: Weave's own from this list, another imported. */
export async function dialectAt(module: string): Promise<Dialect> {
  return DIALECTS.find((d) => d.module === module) ?? ((await import(module)).dialect as Dialect);
}
