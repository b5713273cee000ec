import type { Dirent } from 'node:fs';
import { access, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Unreadable } from '../dialect/dialect.ts';

/** Walking the sources on disk, for any dialect: which files are its own is the dialect's to say. */

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * A path as the store keys it: absolute, with the links among its folders resolved, so that a
 * `~/.claude` linked from a dotfiles folder and that folder's real path name one file (and one
 * source, one archive). A file keeps its own name (a linked transcript is named where it is
 * found); a path that cannot be resolved is kept as given, for the reader to report.
 */
export async function canonicalPath(path: string): Promise<string> {
  const abs = resolve(path);
  try {
    if ((await stat(abs)).isDirectory()) return await realpath(abs);
    return join(await realpath(dirname(abs)), basename(abs));
  } catch {
    return abs;
  }
}

/** Folders never walked into: they hold no transcripts, and can be huge. */
const NEVER = new Set(['node_modules', '.git']);

/**
 * Every file under `dir` whose name `wanted` accepts, by its folder's real path, depth first in directory order; folders
 * `skip` names (and node_modules, .git) are not entered. Symbolic links are followed, to files
 * and to folders (a project folder linked from elsewhere is read like any other), each real
 * folder once. What cannot be read (a folder without permission, a link to nothing, a link back
 * into a folder already walked) is reported to `onProblem` and passed over, never silently.
 * The walk keeps its own stack, so a deep tree costs no recursion.
 */
export async function walkFiles(
  dir: string,
  wanted: (name: string) => boolean,
  skip: ReadonlySet<string> = NEVER,
  onProblem: (problem: Unreadable) => void = () => {},
): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  const report = (path: string, message: string) => onProblem({ path, lineNo: 0, message });
  const stack = [dir];
  while (stack.length) {
    const folder = stack.pop()!;
    let entries: Dirent[];
    let real: string;
    try {
      real = await realpath(folder);
      if (seen.has(real)) {
        report(folder, 'a link to a folder already read; not read twice');
        continue;
      }
      seen.add(real);
      entries = await readdir(folder, { withFileTypes: true });
    } catch (e) {
      report(folder, `cannot be read (${code(e)}); skipped`);
      continue;
    }
    const folders: string[] = [];
    for (const entry of entries) {
      // Named by its folder's real path, as canonicalPath names a file given by itself: a project
      // folder linked into the projects root keys its files one way, however they are reached.
      const path = join(real, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        if (!wanted(entry.name) && (NEVER.has(entry.name) || skip.has(entry.name))) continue;
        try {
          const target = await stat(path);
          isDirectory = target.isDirectory();
          isFile = target.isFile();
        } catch (e) {
          // A link to a transcript that is gone, or to a folder: worth a line either way.
          if (wanted(entry.name) || !/\.[^.]+$/.test(entry.name)) report(path, `a link that cannot be followed (${code(e)}); skipped`);
          continue;
        }
      }
      if (isDirectory) {
        if (!NEVER.has(entry.name) && !skip.has(entry.name)) folders.push(path);
      } else if (isFile && wanted(entry.name)) out.push(path);
    }
    // Depth first in directory order: the first folder is walked next.
    for (let i = folders.length - 1; i >= 0; i--) stack.push(folders[i]);
  }
  return out;
}

function code(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? (e as Error)?.name ?? 'error';
}
