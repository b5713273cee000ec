import { fileURLToPath } from 'node:url';
import { exists } from '../acquire/files.ts';
import type { Dialect } from '../dialect/dialect.ts';
import { DIALECTS } from '../dialect/index.ts';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/**
 * What to read when no path is given: where each dialect's runtime keeps its transcripts (the
 * user's Claude Code projects), or, when there are none, the bundled fixtures (with a note).
 */
export async function defaultSources(
  fallbackToFixtures: boolean,
  dialects: readonly Dialect[] = DIALECTS,
): Promise<{ paths: string[]; note?: string }> {
  const roots = dialects.flatMap((d) => d.defaultPaths?.(process.env) ?? []);
  const found: string[] = [];
  for (const root of roots) if (await exists(root)) found.push(root);
  if (found.length) return { paths: found };
  const where = roots.join(', ');
  if (!fallbackToFixtures) throw new Error(`no transcripts at ${where}; name a path (a projects root, a project folder or a .jsonl file)`);
  return { paths: [FIXTURES_DIR], note: `no transcripts at ${where}: using the bundled fixtures in ${FIXTURES_DIR}` };
}
