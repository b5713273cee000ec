import { fileURLToPath } from 'node:url';
import { defaultProjectsRoot, exists } from '../acquire/discover.ts';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/**
 * What to read when no path is given: the user's Claude Code projects, or, when there are
 * none, the bundled fixtures (with a note saying so).
 */
export async function defaultSources(fallbackToFixtures: boolean): Promise<{ paths: string[]; note?: string }> {
  const root = defaultProjectsRoot();
  if (await exists(root)) return { paths: [root] };
  if (!fallbackToFixtures) throw new Error(`no transcripts at ${root}; name a path (a projects root, a project folder or a .jsonl file)`);
  return { paths: [FIXTURES_DIR], note: `no transcripts at ${root}: using the bundled fixtures in ${FIXTURES_DIR}` };
}
