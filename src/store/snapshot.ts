import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile, open } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The store on disk: one N-Quads file per named graph and a manifest naming them. Replacing a
 * session rewrites exactly one file (written aside, then renamed over), so a reader in another
 * process sees the old graph or the new one, never half of either.
 */

export interface SourceStamp {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface GraphEntry {
  /** The graph's file, relative to the store directory. */
  file: string;
  quads: number;
  /** What the graph was built from, so an unchanged session need not be read again. */
  sources?: SourceStamp[];
  /** Session id, for graphs that hold one session. */
  sessionId?: string;
  /** The reader that wrote the graph, for reader output. */
  reader?: string;
  builtWith?: string;
}

export interface Manifest {
  format: 'weave-store/1';
  soul: string;
  graphs: Record<string, GraphEntry>;
}

const MANIFEST = 'manifest.json';

export async function readManifest(dir: string): Promise<Manifest | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${join(dir, MANIFEST)}: ${(e as Error).message}`);
  }
}

export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeAtomically(join(dir, MANIFEST), JSON.stringify(manifest, null, 1));
}

export function graphFileName(graph: string): string {
  return join('graphs', `${createHash('sha1').update(graph).digest('hex')}.nq`);
}

/** Streams N-Quads text to a graph file written aside and renamed into place on `commit`. */
export async function openGraphWriter(dir: string, graph: string) {
  const file = graphFileName(graph);
  const final = join(dir, file);
  await mkdir(join(dir, 'graphs'), { recursive: true });
  const temp = `${final}.${process.pid}.tmp`;
  const handle = await open(temp, 'w');
  return {
    file,
    async write(text: string) {
      await handle.write(text);
    },
    async commit() {
      await handle.close();
      await rename(temp, final);
    },
    async abort() {
      await handle.close();
      await rm(temp, { force: true });
    },
  };
}

export async function removeGraphFile(dir: string, entry: GraphEntry): Promise<void> {
  await rm(join(dir, entry.file), { force: true });
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
}
