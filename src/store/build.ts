import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which Weave a process runs: a digest of the size and modification time of every file it is made
 * of and reads at start (its sources, ontology, prices, ready queries and package files). A
 * resident server records it in its run file (running.ts); a command that finds one of another
 * build (Weave upgraded or edited since the server started) has it replaced, since the code it
 * loaded would otherwise answer for as long as commands keep it from idling out.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['src', 'ontology', 'data', 'queries'];
const FILES = ['package.json', 'package-lock.json'];

let made: Promise<string> | undefined;

/** This process's build: computed once (some 300 stats), then kept. */
export function buildOf(): Promise<string> {
  made ??= digest();
  return made;
}

async function digest(): Promise<string> {
  const paths = [...FILES];
  for (const folder of FOLDERS) {
    const names = await readdir(join(ROOT, folder), { recursive: true }).catch(() => [] as string[]);
    for (const name of names) paths.push(join(folder, name));
  }
  paths.sort();
  const stats = await Promise.all(paths.map((p) => stat(join(ROOT, p)).catch(() => undefined)));
  const hash = createHash('sha1');
  for (const [i, path] of paths.entries()) {
    const s = stats[i];
    if (s?.isFile()) hash.update(`${path}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}
