import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AtomicFile, NODE_FS, syncDirectory, writeFileAtomically, type StoreFs } from './atomic.ts';
import { graphFileName, GRAPHS_DIR, MANIFEST_FILE, tempFileOwner } from './layout.ts';
import { emptyManifest, entryProblem, readManifest, renderManifest, type GraphEntry, type Manifest } from './manifest.ts';
import { ONTOLOGY_GRAPH } from '../rdf/vocab.ts';
import { ONTOLOGY_FILE } from './ontology.ts';
import { RemoteStore } from './remote/client.ts';
import { readRemoteConfig } from './remote/config.ts';

/**
 * The one writer of a store directory. Ingest, the readers, the links pass and the server's
 * writes all change the store through it:
 *
 * - a graph file is written aside, flushed and renamed into place whole (see atomic.ts), and only
 *   then is its manifest entry recorded, so the manifest never names a file that is not complete;
 * - manifest changes are kept as a list of puts and removals and merged into the manifest as it
 *   is on disk when they are written, so writers that share a store (in this thread, or one
 *   after another) never drop each other's entries;
 * - the manifest is written once a batch of changes has gathered (at least `batch`, or an eighth
 *   of the manifest) and on `flush`/`close`, so the manifest bytes an ingest writes grow with the
 *   store, not with its square. Before each manifest write the graphs folder is flushed once,
 *   making the renames durable before the manifest can name them. A crash in between leaves
 *   graph files the manifest does not name yet, or names with their old sources: the next ingest
 *   sees those sessions as changed and reads them again. A removed graph's file is deleted only
 *   after the manifest stops naming it.
 *
 * Opening a writer removes the temporary files of writers that died (a pid no longer running).
 * Writers in other threads or processes are not serialised here: the server holds its store
 * lock around ingest runs and HTTP writes.
 */

export interface StoreWriterOptions {
  /** File operations, for tests that make a write fail; node:fs/promises by default. */
  fs?: StoreFs;
  /** The fewest changes worth a manifest write (default 64). */
  batch?: number;
  /** Where committed graphs also go; default: the store's external store when it has one (remote.json). */
  mirror?: GraphMirror;
}

/**
 * A second home for the graphs: an external SPARQL store that queries are sent to (store/remote/).
 * A graph is put there after its file is in place and before the manifest names it, so the
 * manifest names only graphs the external store holds; a failed put leaves the session to be read
 * again by the next ingest.
 */
export interface GraphMirror {
  put(graph: string, path: string): Promise<void>;
  remove(graph: string): Promise<void>;
}

/** The manifest's key for the store's own default graph (the server saves writes to it). */
const DEFAULT_GRAPH_KEY = 'default';

/**
 * Graphs sent to an external store with the Graph Store Protocol: a PUT replaces each whole. The
 * ontology goes there too, into its own graph, as opening a local store adds it.
 */
export async function remoteMirror(remote: RemoteStore): Promise<GraphMirror> {
  await remote.putTurtle(ONTOLOGY_GRAPH, await readFile(ONTOLOGY_FILE, 'utf8'), ONTOLOGY_GRAPH);
  const name = (graph: string) => (graph === DEFAULT_GRAPH_KEY ? null : graph);
  return {
    put: async (graph, path) => remote.putGraph(name(graph), await readFile(path, 'utf8')),
    remove: (graph) => remote.deleteGraph(name(graph)),
  };
}

/** A graph file being written; nothing is visible until `commit`. */
export interface GraphFile {
  /** The file, relative to the store directory. */
  readonly file: string;
  write(text: string): Promise<void>;
  /** Puts the file in place and records its manifest entry (`file` is filled in). */
  commit(fields: Omit<GraphEntry, 'file'>): Promise<GraphEntry>;
  abort(): Promise<void>;
}

type Change = { graph: string; entry: GraphEntry | null };

export async function openStoreForWriting(dir: string, soul: string, options: StoreWriterOptions = {}): Promise<StoreWriter> {
  const manifest = (await readManifest(dir)) ?? emptyManifest(soul);
  if (manifest.soul !== soul) throw soulMismatch(dir, manifest.soul, soul);
  const fs = options.fs ?? NODE_FS;
  if (!swept.has(resolve(dir))) {
    await removeStaleTemps(dir, fs);
    swept.add(resolve(dir));
  }
  const remote = options.mirror ? undefined : await readRemoteConfig(dir);
  const mirror = options.mirror ?? (remote && (await remoteMirror(new RemoteStore(remote))));
  return new StoreWriter(dir, soul, manifest, fs, options.batch ?? 64, mirror);
}

export class StoreWriter {
  private changes: Change[] = [];
  private flushAt: number;
  private graphsDirMade = false;
  /** Graph files renamed into place since the graphs folder was last flushed to the disk. */
  private unsyncedRenames = false;

  constructor(
    readonly dir: string,
    readonly soul: string,
    private view: Manifest,
    private readonly fs: StoreFs,
    private readonly batch: number,
    private readonly mirror?: GraphMirror,
  ) {
    this.flushAt = this.threshold();
  }

  /** The manifest as this writer sees it: as on disk when last read, with its own changes applied. */
  get manifest(): Readonly<Manifest> {
    return this.view;
  }

  /** The absolute path of a graph's file. */
  pathOf(entry: GraphEntry): string {
    return join(this.dir, entry.file);
  }

  async beginGraph(graph: string): Promise<GraphFile> {
    if (!this.graphsDirMade) {
      await this.fs.mkdir(join(this.dir, GRAPHS_DIR), { recursive: true });
      this.graphsDirMade = true;
    }
    const file = graphFileName(graph);
    const atomic = await AtomicFile.create(join(this.dir, file), this.fs);
    return {
      file,
      write: (text) => atomic.write(text),
      commit: async (fields) => {
        const entry: GraphEntry = { file, ...fields };
        const problem = entryProblem(graph, entry);
        if (problem) {
          await atomic.abort();
          throw new Error(`the manifest entry for ${graph} is not sound: ${problem.replace(/^[.:] ?/, '')}`);
        }
        // The folder is flushed once per manifest write, before the manifest names the file.
        await atomic.commit({ syncDirectory: false });
        this.unsyncedRenames = true;
        await this.mirror?.put(graph, join(this.dir, file));
        await this.record({ graph, entry });
        return entry;
      },
      abort: () => atomic.abort(),
    };
  }

  /** Writes a whole graph file and records its entry. */
  async writeGraph(graph: string, text: string, fields: Omit<GraphEntry, 'file'>): Promise<GraphEntry> {
    const file = await this.beginGraph(graph);
    try {
      await file.write(text);
      return await file.commit(fields);
    } catch (e) {
      await file.abort();
      throw e;
    }
  }

  /** Takes a graph out of the store: out of the manifest first, then its file. */
  async removeGraph(graph: string): Promise<void> {
    await this.record({ graph, entry: null });
  }

  /** Writes the pending changes into the manifest on disk, merged with what it holds now. */
  async flush(): Promise<void> {
    if (!this.changes.length) return;
    await serially(this.dir, async () => {
      const taken = this.changes;
      if (!taken.length) return;
      this.changes = [];
      try {
        const disk = (await readManifest(this.dir)) ?? emptyManifest(this.soul);
        if (disk.soul !== this.soul) throw soulMismatch(this.dir, disk.soul, this.soul);
        apply(disk, taken);
        if (this.unsyncedRenames) {
          await syncDirectory(join(this.dir, GRAPHS_DIR), this.fs);
          this.unsyncedRenames = false;
        }
        await this.fs.mkdir(this.dir, { recursive: true });
        await writeFileAtomically(join(this.dir, MANIFEST_FILE), renderManifest(disk), this.fs);
        // Changes recorded while this write ran are still pending; the view keeps them.
        this.view = apply(disk, this.changes);
        this.flushAt = this.threshold();
      } catch (e) {
        this.changes = [...taken, ...this.changes];
        throw e;
      }
      const removed = new Map(taken.map((c) => [c.graph, c.entry]));
      for (const later of this.changes) removed.delete(later.graph);
      for (const [graph, entry] of removed) {
        if (entry !== null) continue;
        await this.mirror?.remove(graph);
        await this.fs.rm(join(this.dir, graphFileName(graph)), { force: true });
      }
    });
  }

  /** Writes what is pending; call it when done. A writer never closed is a crash: its last batch is not in the manifest. */
  async close(): Promise<void> {
    await this.flush();
  }

  private async record(change: Change): Promise<void> {
    apply(this.view, [change]);
    this.changes.push(change);
    if (this.changes.length >= this.flushAt) await this.flush();
  }

  private threshold(): number {
    return Math.max(this.batch, Math.ceil(Object.keys(this.view.graphs).length / 8));
  }
}

function apply(manifest: Manifest, changes: Change[]): Manifest {
  for (const { graph, entry } of changes) {
    if (entry) manifest.graphs[graph] = entry;
    else delete manifest.graphs[graph];
  }
  return manifest;
}

function soulMismatch(dir: string, stored: string, wanted: string): Error {
  return new Error(`the store in ${dir} was built for soul "${stored}", not "${wanted}"; use another --store`);
}

/** Store directories whose stale temporary files this thread has already removed. */
const swept = new Set<string>();

/** Manifest writes in this thread, one store at a time, so two writers' merges never interleave. */
const queues = new Map<string, Promise<unknown>>();

function serially<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const key = resolve(dir);
  const result = (queues.get(key) ?? Promise.resolve()).then(work);
  queues.set(
    key,
    result.catch(() => undefined),
  );
  return result;
}

/** Removes temporary files of processes that no longer run; returns how many. */
export async function removeStaleTemps(dir: string, fs: StoreFs = NODE_FS): Promise<number> {
  let removed = 0;
  for (const folder of [dir, join(dir, GRAPHS_DIR)]) {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    for (const name of names) {
      const pid = tempFileOwner(name);
      // Our own pid's files may be another thread's writes in flight.
      if (pid === undefined || pid === process.pid || isRunning(pid)) continue;
      await fs.rm(join(folder, name), { force: true });
      removed++;
    }
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
