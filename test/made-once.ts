import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * A directory made once and kept for every later caller, in this process or another: `make`
 * fills a private temp directory beside `path`, which is then renamed into place, so a directory
 * at `path` is always whole (a maker that fails or dies leaves only its temp directory). Two
 * processes racing both make it; the first rename wins and the other's copy is dropped (a
 * directory is not renamed over one that holds files).
 */

const making = new Map<string, Promise<string>>();

export function madeOnce(path: string, make: (dir: string) => Promise<void>): Promise<string> {
  let made = making.get(path);
  if (!made) {
    made = makeOnce(path, make);
    making.set(path, made);
    made.catch(() => making.delete(path));
  }
  return made;
}

async function makeOnce(path: string, make: (dir: string) => Promise<void>): Promise<string> {
  if (existsSync(path)) return path;
  await mkdir(dirname(path), { recursive: true });
  const work = await mkdtemp(`${path}.making-`);
  try {
    await mkdir(join(work, 'made'));
    await make(join(work, 'made'));
    await rename(join(work, 'made'), path).catch((e) => {
      if (!existsSync(path)) throw e;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return path;
}
