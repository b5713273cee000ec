import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Walking the sources on disk, for any dialect: which files are its own is the dialect's to say. */

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Folders never walked into: they hold no transcripts, and can be huge. */
const NEVER = new Set(['node_modules', '.git']);

/**
 * Every file under `dir` whose name `wanted` accepts, depth first in directory order; folders
 * `skip` names (and node_modules, .git) are not entered.
 */
export async function walkFiles(dir: string, wanted: (name: string) => boolean, skip: ReadonlySet<string> = NEVER): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (NEVER.has(entry.name) || skip.has(entry.name)) continue;
      out.push(...(await walkFiles(path, wanted, skip)));
    } else if (entry.isFile() && wanted(entry.name)) out.push(path);
  }
  return out;
}
