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
