import { createHash } from 'node:crypto';
import { readdir, readFile, stat, truncate } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { createGzip } from 'node:zlib';
import { occurrences } from '../acquire/lines.ts';
import {
  AtomicFile,
  NODE_FS,
  syncDirectory,
  writeAll,
  writeError,
  writeFileAtomically,
  type StoreFs,
  type WritableHandle,
} from './atomic.ts';
import {
  ARCHIVE_DIR,
  archiveFileName,
  contentTag,
  derivedDirs,
  foundFileName,
  isDerivedFileName,
  versionedFileName,
  graphFileName,
  GRAPHS_DIR,
  isStoreFileName,
  MANIFEST_FILE,
  randomTag,
  tempFileOwner,
} from './layout.ts';
import { holdsStoreLock, takeStoreLock, type LockOptions, type StoreLock } from './lock.ts';
import {
  DEFAULT_GRAPH_KEY,
  emptyManifest,
  entryProblem,
  readManifest,
  renderManifest,
  readGraphBytes,
  storeFilesOf,
  fileEntryProblem,
  type ArchivedFile,
  type FileEntry,
  type GraphEntry,
  type Manifest,
} from './manifest.ts';
import { ONTOLOGY_GRAPH } from '../rdf/vocab.ts';
import { ONTOLOGY_FILE } from './ontology.ts';
import type { GraphMirror, OnSent } from './mirror.ts';
import { RemoteStore } from './remote/client.ts';
import { ChunkDigest, digestFile, resumeDigest } from './digest.ts';
import { readRemoteConfig } from './remote/config.ts';
import { VirtuosoLoader } from './remote/bulk.ts';
import { gatheredMirror } from './remote/gathered.ts';
import { instancePrefix } from '../rdf/iri.ts';

/**
 * The one writer of a store directory. Ingest, the readers, the links pass and the server's
 * writes all change the store through it, under the store's lock (lock.ts, taken by `lockStore`):
 *
 * - every version of a graph is a new file (layout.ts), written aside, flushed and renamed into
 *   place whole (see atomic.ts); only then is its manifest entry recorded, so the manifest never
 *   names a file that is not complete, and the manifest write is what makes a version the
 *   store's. A crash before it leaves the previous version, whole; the files of the version cut
 *   off are removed by the next writer to take the lock (`recoverStore`);
 * - manifest changes are kept as a list of puts and removals and merged into the manifest as it
 *   is on disk when they are written, so writers that share a store (in this thread, or one
 *   after another) never drop each other's entries;
 * - the manifest is written once a batch of changes has gathered (at least `batch`, or an eighth
 *   of the manifest) and on `flush`/`close`, so the manifest bytes an ingest writes grow with the
 *   store, not with its square. Before each manifest write each folder a file was renamed into
 *   is flushed once, making the renames durable before the manifest can name them. A file the
 *   manifest stops naming (a replaced version, a removed graph) is deleted only after the
 *   manifest is written. With a mirror that gathers graphs for a bulk load, the batch counts the
 *   graphs it gathered, and the manifest write (after their load) runs behind the writer, one at
 *   a time, while the writer gathers on.
 */

export interface StoreWriterOptions {
  /** File operations, for tests that make a write fail; node:fs/promises by default. */
  fs?: StoreFs;
  /** The fewest changes worth a manifest write (default 64). */
  batch?: number;
  /** Where committed graphs also go; default: the store's external store when it has one (remote.json). */
  mirror?: GraphMirror;
  /** Told of graphs the external store now holds (`bulk`: loaded by its bulk loader). */
  onSent?: OnSent;
  /** Told of what failed and was mended on the way: a bulk load that failed once and was made again. */
  onNote?: (note: string) => void;
}

export type { GraphMirror, OnSent } from './mirror.ts';

/**
 * Graphs sent to an external store with the Graph Store Protocol: a PUT replaces each whole. With
 * a bulk loader configured (remote.json's `bulk`), they are gathered and loaded many at a time
 * (remote/gathered.ts). The ontology goes there too, into its own graph, as opening a local
 * store adds it (the same triples from every machine of one version). Several machines may feed
 * the store: each puts and deletes only graphs under its own soul's `urn:soul:<soul>:` (the
 * manifest's), never another's, nor the default graph.
 */
export async function remoteMirror(
  remote: RemoteStore,
  dir: string,
  manifest: Manifest,
  { onSent, onNote }: Pick<StoreWriterOptions, 'onSent' | 'onNote'> = {},
): Promise<GraphMirror> {
  await remote.putTurtle(ONTOLOGY_GRAPH, await readFile(ONTOLOGY_FILE, 'utf8'), ONTOLOGY_GRAPH);
  if (remote.config.bulk) {
    const loader = new VirtuosoLoader(remote.config.bulk, remote.config.tripleTerms, onNote);
    return ownGraphsOnly(await gatheredMirror(remote, loader, dir, manifest.graphs, onSent), manifest.soul);
  }
  const name = (graph: string) => (graph === DEFAULT_GRAPH_KEY ? null : graph);
  return ownGraphsOnly(
    {
      put: async (graph, read) => {
        await remote.putGraph(name(graph), await read());
        onSent?.(1, false);
      },
      remove: (graph) => remote.deleteGraph(name(graph)),
    },
    manifest.soul,
  );
}

/** `mirror`, refusing any graph not under `soul`'s `urn:soul:<soul>:` (the default graph too): a rejected promise naming it. */
function ownGraphsOnly(mirror: GraphMirror, soul: string): GraphMirror {
  const own = instancePrefix(soul);
  const checked = (graph: string, what: string) => {
    if (graph !== DEFAULT_GRAPH_KEY && graph.startsWith(own)) return graph;
    throw new Error(
      `${what} of graph ${graph} refused: the external store is shared, and soul "${soul}" writes only its own graphs (${own}…)`,
    );
  };
  return {
    ...mirror,
    put: async (graph, read) => mirror.put(checked(graph, 'PUT'), read),
    remove: async (graph) => mirror.remove(checked(graph, 'DELETE')),
  };
}

/** A graph file being written; nothing is visible until `commit`. */
export interface GraphFile {
  write(text: string): Promise<void>;
  /** Puts the file in place and records its manifest entry (`file` and `bytes` are filled in). */
  commit(fields: EntryFields): Promise<GraphEntry>;
  abort(): Promise<void>;
}

/** Bytes of one source file going into the archive, as one gzip member; named by nothing until an entry names what `finish` returns. */
export interface ArchiveAppend {
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the member and flushes it to the disk; returns the archive file, its new length, and `raw`: how much of the source it now holds. */
  finish(raw: number): Promise<ArchivedFile>;
  /** Drops what was written: the archive stays as `previous` named it. */
  abort(): Promise<void>;
}

/** gzip's level for the archive: its default, a good ratio at a speed well above reading and lowering. */
const ARCHIVE_LEVEL = 6;

/**
 * A session graph being written in parts: its spine (the quads of complete lines: appended to the
 * spine the entry `resume` names, or a new one), the part derived from the whole session, and the
 * state the next read carries on from (none written: the next read is whole). Each is written a
 * batch at a time, never as one string. Nothing is visible until `commit`.
 */
export interface SessionGraphFile {
  writeSpine(text: string): Promise<void>;
  writeDerived(text: string): Promise<void>;
  writeState(text: string): Promise<void>;
  commit(fields: SessionFields): Promise<GraphEntry>;
  abort(): Promise<void>;
}

export type SessionFields = Omit<GraphEntry, 'file' | 'bytes' | 'digest' | 'quads' | 'derived' | 'state'> & {
  /** Quads written to the spine by this read (added to those it had), and to the derived part. */
  spineQuads: number;
  derivedQuads: number;
};

/** What a caller says about a graph it writes whole; the files and their lengths are the writer's to fill in. */
export type EntryFields = Omit<GraphEntry, 'file' | 'bytes'> & Partial<Pick<GraphEntry, 'file' | 'bytes'>>;

/** A change to the manifest: a graph's entry, or a store file's (`name`). */
export type Change = { graph: string; entry: GraphEntry | null } | { name: string; file: FileEntry | null };

/**
 * What a writer that never writes the manifest (a pool worker's, sessionWriter) recorded: its
 * changes in order, and the folders (from the store's) it renamed files into, whose flush the
 * writer that adopts them owes before its manifest names them.
 */
export interface Recorded {
  changes: Change[];
  unsynced: string[];
}

/** What a caller says about a store file it writes; the length and digest are the writer's to fill in. */
export type FileFields = Omit<FileEntry, 'file' | 'bytes' | 'sha1'>;

/**
 * Takes the store's writer lock (see lock.ts). The first holder after a crash finds what the
 * crashed writer left: temporary files, files of versions the manifest never named, bytes
 * appended past what the manifest names; those go before anything is written.
 */
export async function lockStore(dir: string, options: LockOptions = {}): Promise<StoreLock> {
  const lock = await takeStoreLock(dir, options);
  if (lock.fresh) {
    try {
      const recovered = await recoverStore(dir);
      const what = Object.entries(recovered)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => (n === 1 ? `1 ${ONE[k as keyof Recovered]}` : `${n} ${k}`));
      if (what.length) options.onNote?.(`removed what an interrupted write left: ${what.join(', ')}`);
    } catch (e) {
      await lock.release();
      throw e;
    }
  }
  return lock;
}

export async function openStoreForWriting(dir: string, soul: string, options: StoreWriterOptions = {}): Promise<StoreWriter> {
  if (!(await holdsStoreLock(dir))) throw new Error(`${dir}: the store is written only under its lock (lockStore)`);
  const manifest = (await readManifest(dir)) ?? emptyManifest(soul);
  if (manifest.soul !== soul) throw soulMismatch(dir, manifest.soul, soul);
  const fs = options.fs ?? NODE_FS;
  if (!swept.has(resolve(dir))) {
    await removeStaleTemps(dir, fs);
    swept.add(resolve(dir));
  }
  const remote = options.mirror ? undefined : await readRemoteConfig(dir);
  const mirror = options.mirror ?? (remote && (await remoteMirror(new RemoteStore(remote), dir, manifest, options)));
  // A mirror that gathers graphs for a bulk load sets the batch, in graphs: each manifest write is one load.
  return new StoreWriter(dir, soul, manifest, fs, options.batch ?? mirror?.batch ?? 64, mirror);
}

/**
 * A writer for one session's files in a pool worker (session-pool.ts): it writes and renames them
 * into place like any writer, but never writes the manifest; the store's own writer, under the
 * lock, adopts what it recorded (`adopt`). `view` holds the entries of that session's outputs.
 */
export function sessionWriter(dir: string, soul: string, view: Manifest): StoreWriter {
  return new StoreWriter(dir, soul, view, NODE_FS, Number.POSITIVE_INFINITY);
}

export class StoreWriter {
  private changes: Change[] = [];
  private roots = new Set<string>();
  /** Files entries named before this writer replaced them: deleted once the manifest stops naming them. */
  private superseded = new Set<string>();
  private flushAt: number;
  /** Folders (from the store's) this writer made, each made once. */
  private readonly made = new Set<string>();
  /**
   * Folders files were renamed or made in since they were last flushed to the disk: each is
   * flushed once per manifest write, before the manifest names those files, not once per file.
   */
  private readonly unsynced = new Set<string>();
  /** The manifest write (with its bulk load) running behind the writer, when its mirror gathers graphs. */
  private behind?: Promise<void>;
  /** Whether that write is still running (its failure, if any, is the next flush's). */
  private loading = false;
  /** Whether what was gathered is to be sent as soon as that write ends (`sendGathered`). */
  private sendAfterLoad = false;

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
    await this.folder(GRAPHS_DIR);
    // Written under the graph's plain name (one write of a graph at a time); renamed, once whole,
    // to the name its bytes give it.
    const atomic = await AtomicFile.create(join(this.dir, graphFileName(graph)), this.fs);
    let bytes = 0;
    const chunks = new ChunkDigest([], true);
    return {
      write: async (text) => {
        const data = Buffer.from(text, 'utf8');
        await atomic.write(data);
        bytes += data.length;
        chunks.update(data);
      },
      commit: async (fields) => {
        // A graph written whole is one file: what named parts of an earlier version goes with it.
        const { file: _file, bytes: _bytes, digest: _digest, derived: _derived, state: _state, ...rest } = fields;
        const file = graphFileName(graph, contentTag(chunks.sha1()));
        const entry: GraphEntry = { file, bytes, digest: chunks.digests(), ...rest };
        const problem = entryProblem(graph, entry);
        if (problem) {
          await atomic.abort();
          throw new Error(`the manifest entry for ${graph} is not sound: ${problem.replace(/^[.:] ?/, '')}`);
        }
        // The folder is flushed once per manifest write, before the manifest names the file.
        await atomic.commit({ syncDirectory: false, to: join(this.dir, file) });
        this.unsynced.add(GRAPHS_DIR);
        // The same bytes and the same entry: nothing changed (a version is named by its bytes).
        if (JSON.stringify(this.view.graphs[graph]) !== JSON.stringify(entry)) await this.record({ graph, entry });
        return entry;
      },
      abort: () => atomic.abort(),
    };
  }

  async beginSession(graph: string, resume?: GraphEntry): Promise<SessionGraphFile> {
    await this.folder(GRAPHS_DIR);
    if (resume && (!resume.derived || resume.bytes === undefined)) throw new Error(`${graph}: not kept in parts; it cannot be appended to`);
    // A spine carried on is appended to in place, past the length its entry names (cut back to it
    // first: a write cut off may have left more); a new one is written aside like any graph file.
    let spine: { atomic: AtomicFile } | { handle: WritableHandle; path: string };
    // The spine's digests carry on from its last whole MiB (an entry from before digests were kept: its bytes digested once);
    // a new spine's give its name too.
    let spineDigest = new ChunkDigest([], true);
    if (resume) {
      const path = join(this.dir, resume.file);
      try {
        await this.fs.truncate(path, resume.bytes!);
        const carried = resume.digest && (await resumeDigest(path, resume.digest, resume.bytes!));
        const whole = carried ? undefined : await digestFile(path, resume.bytes!);
        if (!carried && !whole) throw new Error(`${resume.bytes} bytes named, fewer there`);
        spineDigest = carried || new ChunkDigest(whole);
        spine = { handle: await this.fs.open(path, 'a'), path };
      } catch (e) {
        throw writeError(path, e, 'the graph stays as it was');
      }
    } else spine = { atomic: await AtomicFile.create(join(this.dir, graphFileName(graph)), this.fs) };
    const derived = await AtomicFile.create(join(this.dir, graphFileName(graph, undefined, 'derived')), this.fs).catch(async (e) => {
      if ('atomic' in spine) await spine.atomic.abort();
      else await spine.handle.close();
      throw e;
    });
    const derivedChunks = new ChunkDigest([], true);
    let spineBytes = resume?.bytes ?? 0;
    let derivedBytes = 0;
    /** The state, once its first batch is written. */
    let state: { atomic: AtomicFile; chunks: ChunkDigest; bytes: number } | undefined;
    const undoSpine = async () => {
      if ('atomic' in spine) return spine.atomic.abort();
      await spine.handle.close().catch(() => undefined);
      await this.fs.truncate(spine.path, resume!.bytes!).catch(() => undefined);
    };
    const undoState = () => state?.atomic.abort();
    return {
      writeSpine: async (text) => {
        const bytes = Buffer.from(text, 'utf8');
        if ('atomic' in spine) await spine.atomic.write(bytes);
        else
          await writeAll(spine.handle, bytes).catch(async (e) => {
            await undoSpine();
            throw writeError(spine.path, e, 'the graph stays as it was');
          });
        spineDigest.update(bytes);
        spineBytes += bytes.length;
      },
      writeDerived: async (text) => {
        const bytes = Buffer.from(text, 'utf8');
        await derived.write(bytes);
        derivedChunks.update(bytes);
        derivedBytes += bytes.length;
      },
      writeState: async (text) => {
        state ??= {
          atomic: await AtomicFile.create(join(this.dir, graphFileName(graph, undefined, 'state')), this.fs),
          chunks: new ChunkDigest([], true),
          bytes: 0,
        };
        const bytes = Buffer.from(text, 'utf8');
        await state.atomic.write(bytes);
        state.chunks.update(bytes);
        state.bytes += bytes.length;
      },
      commit: async ({ spineQuads, derivedQuads, ...rest }) => {
        const derivedFile = graphFileName(graph, contentTag(derivedChunks.sha1()), 'derived');
        const stateFile = state && graphFileName(graph, contentTag(state.chunks.sha1()), 'state');
        let spineFile = resume?.file;
        if (!spineFile) {
          spineFile = graphFileName(graph, contentTag(spineDigest.sha1()));
          // A spine named by its first bytes may since have grown: a new one with those bytes is another file.
          const current = this.view.graphs[graph];
          if (current?.file === spineFile && current.bytes !== spineBytes) spineFile = graphFileName(graph, randomTag());
        }
        const entry: GraphEntry = {
          file: spineFile,
          bytes: spineBytes,
          digest: spineDigest.digests(),
          quads: (resume ? resume.quads - resume.derived!.quads : 0) + spineQuads + derivedQuads,
          ...rest,
          derived: { file: derivedFile, bytes: derivedBytes, quads: derivedQuads, digest: derivedChunks.digests() },
          ...(state && stateFile ? { state: { file: stateFile, bytes: state.bytes, digest: state.chunks.digests() } } : {}),
        };
        const problem = entryProblem(graph, entry);
        try {
          if (problem) throw new Error(`the manifest entry for ${graph} is not sound: ${problem.replace(/^[.:] ?/, '')}`);
          // The parts are flushed and renamed side by side: their waits on the disk overlap.
          const parts = await Promise.allSettled([
            'atomic' in spine ? spine.atomic.commit({ syncDirectory: false, to: join(this.dir, spineFile) }) : flushed(spine.handle),
            derived.commit({ syncDirectory: false, to: join(this.dir, derivedFile) }),
            state && stateFile ? state.atomic.commit({ syncDirectory: false, to: join(this.dir, stateFile) }) : undefined,
          ]);
          const failed = parts.find((part) => part.status === 'rejected');
          if (failed) throw failed.reason;
        } catch (e) {
          await undoSpine();
          await derived.abort();
          await undoState();
          throw e;
        }
        this.unsynced.add(GRAPHS_DIR);
        await this.record({ graph, entry });
        return entry;
      },
      abort: async () => {
        await undoSpine();
        await derived.abort();
        await undoState();
      },
    };
  }

  /**
   * Writes a whole graph file and records its entry. `text` may come in parts (a graph can be more
   * than one string holds), made as they are written; without `quads`, its lines are counted.
   */
  async writeGraph(
    graph: string,
    text: string | Iterable<string>,
    { quads, ...fields }: Omit<EntryFields, 'quads'> & { quads?: number },
  ): Promise<GraphEntry> {
    const file = await this.beginGraph(graph);
    try {
      let lines = 0;
      for (const part of typeof text === 'string' ? [text] : text) {
        await file.write(part);
        if (quads === undefined) lines += occurrences(part, '\n');
      }
      return await file.commit({ ...fields, quads: quads ?? lines });
    } catch (e) {
      await file.abort();
      throw e;
    }
  }

  /**
   * Appends a gzip member to the archive of `sourcePath`: to the file `previous` names (cut back to
   * the length it names first), or to a new file. Readers of the archive decompress the members
   * one after another, so the archive is the source's bytes as they were read, run after run.
   */
  async beginArchive(sourcePath: string, previous?: ArchivedFile): Promise<ArchiveAppend> {
    await this.folder(ARCHIVE_DIR);
    const file = previous?.file ?? archiveFileName(sourcePath, randomTag());
    const path = join(this.dir, file);
    const start = previous?.bytes ?? 0;
    let handle: WritableHandle;
    try {
      if (previous) await this.fs.truncate(path, start);
      handle = await this.fs.open(path, previous ? 'a' : 'wx');
    } catch (e) {
      throw writeError(path, e, 'the archive stays as it was');
    }
    if (!previous) this.unsynced.add(ARCHIVE_DIR);
    const gzip = createGzip({ level: ARCHIVE_LEVEL });
    let written = 0;
    let failed: unknown;
    let writing = Promise.resolve();
    gzip.on('data', (chunk: Buffer) => {
      writing = writing.then(async () => {
        if (failed) return;
        try {
          await writeAll(handle, chunk);
          written += chunk.length;
        } catch (e) {
          failed = e;
        }
      });
    });
    const ended = new Promise<void>((resolve, reject) => gzip.once('end', resolve).once('error', reject));
    const undo = async () => {
      gzip.destroy();
      await writing;
      await handle.close().catch(() => undefined);
      if (previous) await this.fs.truncate(path, start).catch(() => undefined);
      else await this.fs.rm(path, { force: true });
    };
    return {
      write: async (bytes) => {
        if (failed) return;
        if (!gzip.write(bytes)) await new Promise<void>((resolve) => gzip.once('drain', () => resolve()));
      },
      finish: async (raw) => {
        try {
          gzip.end();
          await ended;
          await writing;
          if (failed) throw failed;
          await handle.sync();
          await handle.close();
        } catch (e) {
          await undo();
          throw writeError(path, e, 'the archive stays as it was');
        }
        return { file, bytes: start + written, raw };
      },
      abort: undo,
    };
  }

  /** Writes the session as discovery found it, for reading it from the archive alone; returns its file. */
  async writeFound(graph: string, found: unknown): Promise<string> {
    const text = `${JSON.stringify(found)}\n`;
    const file = foundFileName(graph, createHash('sha1').update(text).digest('hex'));
    await this.folder(ARCHIVE_DIR);
    const atomic = await AtomicFile.create(join(this.dir, file), this.fs);
    await atomic.write(text);
    await atomic.commit({ syncDirectory: false });
    this.unsynced.add(ARCHIVE_DIR);
    return file;
  }

  /** Records an entry whose graph files are already in place (only what it says of its sources changed). */
  async putEntry(graph: string, entry: GraphEntry): Promise<void> {
    const problem = entryProblem(graph, entry);
    if (problem) throw new Error(`the manifest entry for ${graph} is not sound: ${problem.replace(/^[.:] ?/, '')}`);
    await this.record({ graph, entry });
  }

  /** Takes a graph out of the store: out of the manifest first, then its file. */
  async removeGraph(graph: string): Promise<void> {
    await this.record({ graph, entry: null });
  }

  /**
   * Writes a store file that is not a graph whole, flushed and renamed into place, and records it
   * as `name` with its length and digest. Like a graph's, each version is a file of its own, named
   * `file` with a tag of its bytes before the extension (`search/index.<tag>.json`), so a write cut
   * off before the manifest names it leaves the version the manifest names whole; `versioned:
   * false` writes `file` itself (the secret key, which never changes once made). `mode` narrows who
   * may read it (the secret key: its owner only).
   */
  async writeFile(
    name: string,
    file: string,
    data: string | Uint8Array | Iterable<string>,
    fields: FileFields = {},
    { mode, versioned = true }: { mode?: number; versioned?: boolean } = {},
  ): Promise<FileEntry> {
    // In parts, a file can be more than one string holds; parts made as they are written (a
    // generator) are never all held at once. Its name is known once its bytes are: it is written
    // under the plain name and renamed into place.
    const parts = typeof data === 'string' || data instanceof Uint8Array ? [data] : data;
    const folder = dirname(file);
    const atomic = await AtomicFile.create(join(await this.folder(folder), basename(file)), this.fs, mode);
    const digest = createHash('sha1');
    let length = 0;
    let entry: FileEntry;
    try {
      for (const part of parts) {
        digest.update(part);
        length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
        await atomic.write(part);
      }
      const sha1 = digest.digest('hex');
      if (versioned) file = versionedFileName(file, contentTag(sha1));
      entry = { file, bytes: length, sha1, ...fields };
      const problem = fileEntryProblem(entry);
      if (problem) throw new Error(`the manifest entry for ${name} is not sound: ${problem.replace(/^[.:] ?/, '')}`);
    } catch (e) {
      await atomic.abort();
      throw e;
    }
    await atomic.commit({ syncDirectory: false, to: join(this.dir, file) });
    this.unsynced.add(folder);
    if (JSON.stringify(this.view.files?.[name]) !== JSON.stringify(entry)) await this.record({ name, file: entry });
    return entry;
  }

  /** Takes a store file out of the store: out of the manifest first, then off the disk. */
  async removeFile(name: string): Promise<void> {
    if (this.view.files?.[name]) await this.record({ name, file: null });
  }

  /** Records folders or files the store is read from (`weave verify` looks there for sessions it lacks). */
  addRoots(paths: string[]): void {
    for (const path of paths) if (!this.view.roots?.includes(path)) this.roots.add(path);
    if (this.roots.size) this.view.roots = mergeRoots(this.view.roots, this.roots);
  }

  /** Writes the pending changes into the manifest on disk, merged with what it holds now. */
  async flush(): Promise<void> {
    // A load still running behind the writer comes first (and its failure is this one's).
    const behind = this.behind;
    this.behind = undefined;
    if (behind) await behind;
    if (!this.changes.length && !this.roots.size) return;
    await serially(this.dir, async () => {
      const taken = this.changes;
      const roots = this.roots;
      if (!taken.length && !roots.size) return;
      this.changes = [];
      this.roots = new Set();
      let disk: Manifest;
      try {
        // The external store holds what the manifest is about to name.
        await this.mirror?.settle?.();
        disk = (await readManifest(this.dir)) ?? emptyManifest(this.soul);
        if (disk.soul !== this.soul) throw soulMismatch(this.dir, disk.soul, this.soul);
        for (const change of taken) for (const file of filesOfChanged(disk, change)) this.superseded.add(file);
        apply(disk, taken);
        if (roots.size) disk.roots = mergeRoots(disk.roots, roots);
        await this.syncFolders();
        await this.fs.mkdir(this.dir, { recursive: true });
        await writeFileAtomically(join(this.dir, MANIFEST_FILE), renderManifest(disk), this.fs);
        // Changes recorded while this write ran are still pending; the view keeps them.
        this.view = apply(structuredClone(disk), this.changes);
        if (this.roots.size) this.view.roots = mergeRoots(this.view.roots, this.roots);
        this.flushAt = this.threshold();
      } catch (e) {
        this.changes = [...taken, ...this.changes];
        for (const root of roots) this.roots.add(root);
        throw e;
      }
      // What neither the manifest on disk nor a change still pending names is no longer the store's.
      const named = new Set([...namedFiles(disk), ...namedFiles(this.view)]);
      for (const file of this.superseded) {
        if (named.has(file)) continue;
        await this.fs.rm(join(this.dir, file), { force: true });
        this.superseded.delete(file);
      }
    });
  }

  /** The changes recorded so far, taken from the writer (a sessionWriter's, for the store's writer to adopt). */
  takeRecorded(): Recorded {
    const taken = { changes: this.changes, unsynced: [...this.unsynced] };
    this.changes = [];
    this.unsynced.clear();
    return taken;
  }

  /** Records, in order, the changes another writer made in this store (a pool worker's sessionWriter), its files already in place. */
  async adopt({ changes, unsynced }: Recorded): Promise<void> {
    for (const folder of unsynced) {
      this.unsynced.add(folder);
      this.made.add(folder);
    }
    for (const change of changes) await this.record(change);
  }

  /** Writes what is pending; call it when done. A writer never closed is a crash: its last batch is not in the manifest. */
  async close(): Promise<void> {
    await this.flush();
  }

  /**
   * Gives up what is pending (after a failure, when the manifest cannot be written): the files its
   * changes wrote and the bytes they appended go, so the store is as its manifest names it.
   */
  async abandon(): Promise<void> {
    this.changes = [];
    this.roots.clear();
    await serially(this.dir, () => recoverStore(this.dir)).catch(() => undefined);
  }

  private async record(change: Change): Promise<void> {
    // The external store holds a graph before the manifest names it (and loses it before the manifest forgets it).
    if (this.mirror && 'graph' in change)
      if (change.entry) {
        const entry = change.entry;
        await this.mirror.put(change.graph, () => readGraphBytes(this.dir, entry));
      } else if (this.view.graphs[change.graph]) await this.mirror.remove(change.graph);
    const kept = new Set('graph' in change ? (change.entry ? storeFilesOf(change.entry).map((f) => f.file) : []) : [change.file?.file]);
    for (const file of filesOfChanged(this.view, change)) if (!kept.has(file)) this.superseded.add(file);
    apply(this.view, [change]);
    this.changes.push(change);
    if ((this.mirror?.gathered?.() ?? this.changes.length) < this.flushAt) return;
    if (!this.mirror?.settle) return this.flush();
    // A bulk load runs behind the writer while it gathers the next batch: one at a time, and the
    // manifest still names a batch only once it is loaded. While one runs the writer gathers on,
    // past a batch, and the first change after it ends starts the next with all that was gathered:
    // waiting for it would leave the reading idle while the engine loads.
    if (!this.loading) this.loadBehind();
  }

  /**
   * Starts a load of what the mirror gathered, behind the writer, without waiting for it; one
   * already running starts it as it ends. Called once the sessions are read, so that the engine
   * loads the last of them while the store's own derivations (the links, the search index) run.
   */
  sendGathered(): void {
    if (!this.mirror?.settle || !this.mirror.gathered?.()) return;
    if (this.loading) this.sendAfterLoad = true;
    else this.loadBehind();
  }

  /** The manifest write, with the load before it, behind the writer (its failure is the next flush's). */
  private loadBehind(): void {
    const write = this.flush();
    this.loading = true;
    this.behind = write;
    const loaded = () => {
      this.loading = false;
      if (!this.sendAfterLoad) return;
      this.sendAfterLoad = false;
      this.sendGathered();
    };
    write.then(loaded, loaded);
  }

  /** `folder` (from the store's) made, once per writer; its path. */
  private async folder(folder: string): Promise<string> {
    const path = join(this.dir, folder);
    if (!this.made.has(folder)) {
      await this.fs.mkdir(path, { recursive: true });
      this.made.add(folder);
    }
    return path;
  }

  /**
   * Flushes the folders files were renamed into, together. A folder is taken off the list before
   * its flush, so a rename made while it runs puts it back for the next manifest write.
   */
  private async syncFolders(): Promise<void> {
    const folders = [...this.unsynced];
    this.unsynced.clear();
    try {
      await Promise.all(folders.map((folder) => syncDirectory(join(this.dir, folder), this.fs)));
    } catch (e) {
      for (const folder of folders) this.unsynced.add(folder);
      throw e;
    }
  }

  private threshold(): number {
    return Math.max(this.batch, Math.ceil(Object.keys(this.view.graphs).length / 8));
  }
}

function mergeRoots(known: string[] | undefined, added: Iterable<string>): string[] {
  return [...new Set([...(known ?? []), ...added])].sort();
}

function apply(manifest: Manifest, changes: Change[]): Manifest {
  for (const change of changes) {
    if ('graph' in change) {
      if (change.entry) manifest.graphs[change.graph] = change.entry;
      else delete manifest.graphs[change.graph];
    } else if (change.file) manifest.files = { ...manifest.files, [change.name]: change.file };
    else if (manifest.files) {
      delete manifest.files[change.name];
      if (!Object.keys(manifest.files).length) delete manifest.files;
    }
  }
  return manifest;
}

/** The files the manifest names now for what `change` changes (they may be superseded by it). */
function filesOfChanged(manifest: Manifest, change: Change): string[] {
  if ('graph' in change) {
    const old = manifest.graphs[change.graph];
    return old ? storeFilesOf(old).map((f) => f.file) : [];
  }
  const old = manifest.files?.[change.name];
  return old ? [old.file] : [];
}

/** Every file a manifest names: its graphs' and its store files. */
function namedFiles(manifest: Manifest): string[] {
  return [
    ...Object.values(manifest.graphs).flatMap((e) => storeFilesOf(e).map((f) => f.file)),
    ...Object.values(manifest.files ?? {}).map((f) => f.file),
  ];
}

function soulMismatch(dir: string, stored: string, wanted: string): Error {
  // A store's soul is set once: its graphs and IRIs are named by it.
  return new Error(
    `the store in ${dir} was built for soul "${stored}", not "${wanted}"; a store's soul is set once: drop --soul/--soul-repo to write as "${stored}", or use another --store`,
  );
}

/** Each kind of leftover said of one. */
const ONE: Record<keyof Recovered, string> = {
  'temporary files': 'temporary file',
  'files of unfinished versions': 'file of an unfinished version',
  'cut-off appends': 'cut-off append',
};

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

export interface Recovered {
  'temporary files': number;
  'files of unfinished versions': number;
  'cut-off appends': number;
}

/**
 * What a writer killed mid-write leaves, removed by the next holder of the lock before it writes:
 * temporary files of processes that no longer run; versioned files no manifest entry names (a
 * version whose manifest write never came); bytes past what the manifest names of a file that is
 * appended to. Files of the unversioned layout are left alone: only this layout's are known to be
 * versions. The store as readers see it is not changed by any of it.
 */
export async function recoverStore(dir: string): Promise<Recovered> {
  const recovered: Recovered = { 'temporary files': await removeStaleTemps(dir), 'files of unfinished versions': 0, 'cut-off appends': 0 };
  // No manifest yet (a first ingest killed before its first write of it) names no file at all.
  const manifest = await readManifest(dir);
  const named = new Map(Object.values(manifest?.graphs ?? {}).flatMap((e) => storeFilesOf(e).map((f) => [f.file, f.bytes] as const)));
  const namedFiles = new Set(Object.values(manifest?.files ?? {}).map((f) => f.file));
  for (const folder of derivedDirs(namedFiles))
    for (const name of await namesIn(join(dir, folder)))
      if (isDerivedFileName(name) && !namedFiles.has(`${folder}/${name}`)) {
        await NODE_FS.rm(join(dir, folder, name), { force: true });
        recovered['files of unfinished versions']++;
      }
  for (const folder of [GRAPHS_DIR, ARCHIVE_DIR]) {
    for (const name of await namesIn(join(dir, folder))) {
      const file = `${folder}/${name}`;
      if (!isStoreFileName(name) || !/\.[0-9a-f]{12}\./.test(name)) continue;
      if (!named.has(file)) {
        await NODE_FS.rm(join(dir, file), { force: true });
        recovered['files of unfinished versions']++;
        continue;
      }
      const bytes = named.get(file);
      if (bytes !== undefined && (await stat(join(dir, file))).size > bytes) {
        await truncate(join(dir, file), bytes);
        recovered['cut-off appends']++;
      }
    }
  }
  return recovered;
}

async function namesIn(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** Removes temporary files of processes that no longer run; returns how many. */
export async function removeStaleTemps(dir: string, fs: StoreFs = NODE_FS): Promise<number> {
  let removed = 0;
  for (const folder of [dir, join(dir, GRAPHS_DIR), join(dir, ARCHIVE_DIR), ...derivedDirs([]).map((d) => join(dir, d))]) {
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

/** A file appended to, flushed to the disk and closed. */
async function flushed(handle: WritableHandle): Promise<void> {
  await handle.sync();
  await handle.close();
}
