import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { alignmentGraphIri } from '../rdf/iri.ts';
import { ONTOLOGY_GRAPH } from '../rdf/vocab.ts';
import { readTextIfThere } from './atomic.ts';
import { isArchiveFile, isFoundFileOf, isGraphFileOf, MANIFEST_FILE } from './layout.ts';

/**
 * The manifest: which graphs the store holds, in which files, built from what. Everything that
 * reads a store reads it through `readManifest`, which checks every field, so a damaged or
 * foreign manifest is one clear error naming the file and the field, never a crash later on.
 */

const STORE_FORMAT = 'weave-store/1';

/** The key of the store's own (unnamed) default graph, where the server saves writes to it. Not an IRI, on purpose. */
export const DEFAULT_GRAPH_KEY = 'default';

export interface SourceStamp {
  path: string;
  size: number;
  mtimeMs: number;
  /** The file's identity, `<device>:<inode>`: a file renamed over this one is another file. */
  id?: string;
  /**
   * SHA-1 of the file's first bytes (up to 4 KiB): what a stamp written before `digest` compared
   * (a side file of such a store is checked by it once); the search index keys its documents by it.
   */
  head?: string;
  /**
   * SHA-1 of each MiB of the file's first `bytes` bytes, every byte read of it (store/digest.ts;
   * the archive holds as many): a file whose stamp changed is carried on only when these bytes
   * are still its first. Absent in stamps written before it was recorded: such a file is read
   * whole once.
   */
  digest?: SourceDigest;
  /** How far the file has been read into the graph: the end of its last complete line. */
  read?: number;
  /** How many lines that is (the next line read is line `lines + 1`). */
  lines?: number;
  /** The compressed copy of the file's bytes as read (gzip members, one per read). */
  archive?: ArchivedFile;
  /**
   * Earlier versions of the file, oldest first, archived before it was replaced, cut short or
   * rewritten: the archive only grows, while the graph follows the file as it is now.
   */
  versions?: ArchivedVersion[];
  /** The file is gone from its folder: what the graph holds of it is read from the archive. */
  gone?: true;
}

export interface ArchivedFile {
  /** `archive/<SHA-1 of the source path>.<tag>.gz`, relative to the store directory. */
  file: string;
  /** How much of the file is the archive: gzip members after it are an append that was cut off. */
  bytes: number;
  /** How many bytes of the source it holds (its first `raw` bytes). */
  raw: number;
}

export interface SourceDigest {
  bytes: number;
  chunks: string[];
}

/** An earlier version of a source file in the archive: its bytes, and how many lines had been read of it. */
export interface ArchivedVersion extends ArchivedFile {
  lines: number;
}

export interface GraphEntry {
  /** The graph's file, relative to the store directory (a `graphFileName` of the graph). */
  file: string;
  /**
   * How much of `file` is the graph: readers read this many bytes. Bytes past it are a write that
   * was cut off, which the next writer removes. Absent in entries written before it was recorded.
   */
  bytes?: number;
  /** SHA-1 of each MiB of those bytes (store/digest.ts), for `verify --self`; absent in entries written before it was recorded. */
  digest?: string[];
  quads: number;
  /** What the graph was built from, so an unchanged session need not be read again. */
  sources?: SourceStamp[];
  /** Session id, for graphs that hold one session. */
  sessionId?: string;
  /** The reader that wrote the graph, for reader output. */
  reader?: string;
  builtWith?: string;
  /** The session as discovery found it (its files and what they are), kept so it can be read from the archive alone. */
  found?: string;
  /**
   * A session graph kept in parts: `file` is then its spine, appended to as the transcripts grow,
   * and this the part derived from the whole session, rewritten at each read. `quads` counts both.
   */
  derived?: { file: string; bytes: number; quads: number; digest?: string[] };
  /** The state a read of the session carries on from, so appended lines are read without the rest. */
  state?: { file: string; bytes: number; digest?: string[] };
  /**
   * Files the session was read from that are no longer its (a sub-agent file whose lines now name
   * another session): what the archive holds of them stays, as versions, since the archive only grows.
   */
  left?: LeftFile[];
}

export interface LeftFile {
  path: string;
  versions: ArchivedVersion[];
}

/** Every source file of an entry with earlier versions in the archive: its own files', and those that left it. */
export function archivedVersions(entry: GraphEntry): LeftFile[] {
  return [
    ...(entry.sources ?? []).flatMap((s) => (s.versions?.length ? [{ path: s.path, versions: s.versions }] : [])),
    ...(entry.left ?? []),
  ];
}

/**
 * A store file that is not a graph: a derivation's output kept as a file (a session's search
 * documents, the search index) or the store's secret key. Written whole and in place by the store
 * writer (atomic.ts), named here with its length and digest, so `verify --self` checks it as it
 * checks a graph.
 */
export interface FileEntry {
  /** Relative to the store directory. */
  file: string;
  bytes: number;
  /** SHA-1 of its bytes. */
  sha1: string;
  /** The session it was derived from, for a derivation's output per session. */
  sessionId?: string;
  /** `<derivation>@<version>`, for a derivation's output. */
  builtWith?: string;
  /** What it was derived from (a session graph's version, see derive/stamp.ts). */
  sources?: SourceStamp[];
}

export interface Manifest {
  format: typeof STORE_FORMAT;
  soul: string;
  /** The folders and files ingest was given, so `weave verify` can tell a session the store lacks. */
  roots?: string[];
  graphs: Record<string, GraphEntry>;
  /** Store files other than graphs, by name (`search/index`, `search/documents/<session>`, `secret.key`). */
  files?: Record<string, FileEntry>;
}

/** A file an entry names, with how much of it is the graph (undefined: all of it). */
export interface NamedFile {
  file: string;
  bytes?: number;
  /** SHA-1 of each MiB of those bytes, where the entry records it. */
  digest?: string[];
}

/** The N-Quads files of a graph entry, relative to the store directory: what a reader of the graph loads. */
export function filesOf(entry: GraphEntry): NamedFile[] {
  const files: NamedFile[] = [{ file: entry.file, bytes: entry.bytes, digest: entry.digest }];
  if (entry.derived) files.push({ file: entry.derived.file, bytes: entry.derived.bytes, digest: entry.derived.digest });
  return files;
}

/** The N-Quads of one graph entry as bytes: each of its files, as much of each as the entry names. */
export async function readGraphBytes(dir: string, entry: GraphEntry): Promise<Buffer> {
  const parts = await Promise.all(filesOf(entry).map(async ({ file, bytes }) => (await readFile(join(dir, file))).subarray(0, bytes)));
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/**
 * What a read that carried a session on changed in its graph, for a copy of the graph already
 * loaded (a query worker's): the spine's new bytes, and the lines of the derived part that went
 * and came. Spine and derived part hold no quad in common, so the copy is brought up to date by
 * deleting `removed`, then loading the spine's new bytes and `added`.
 */
export interface GraphDelta {
  spine: { file: string; from: number; to: number };
  removed: string;
  added: string;
}

/** Every file a graph entry names: its N-Quads, the archive of its sources, the session as found. */
export function storeFilesOf(entry: GraphEntry): NamedFile[] {
  const files = filesOf(entry);
  if (entry.state) files.push(entry.state);
  for (const source of entry.sources ?? []) {
    if (source.archive) files.push(source.archive);
    for (const version of source.versions ?? []) files.push(version);
  }
  for (const left of entry.left ?? []) files.push(...left.versions);
  if (entry.found) files.push({ file: entry.found });
  return files;
}

/** The sessions a store holds graphs of (a reader's graph names its session too, and is not one). */
export function sessionsHere(manifest: Pick<Manifest, 'graphs'>): Set<string> {
  return new Set(Object.values(manifest.graphs).flatMap((e) => (e.sessionId && !e.reader ? [e.sessionId] : [])));
}

/**
 * The named graphs a query of the store sees (`GRAPH ?g {}` lists them, /void counts them, and
 * `weave status` and /status say how many): every graph the manifest names, empty ones included
 * (a reader that found nothing in a session still has its graph), but the stored default graph,
 * and the ontology's and the alignment's, which every opened store holds beside them.
 */
export function namedGraphs(manifest: Manifest | undefined): Set<string> {
  const named = new Set(Object.keys(manifest?.graphs ?? {}).filter((name) => name !== DEFAULT_GRAPH_KEY));
  named.add(ONTOLOGY_GRAPH);
  named.add(alignmentGraphIri(manifest?.soul ?? 'local'));
  return named;
}

export function emptyManifest(soul: string): Manifest {
  return { format: STORE_FORMAT, soul, graphs: {} };
}

/** The manifest's bytes on disk (one-space indent, keys in insertion order). */
export function renderManifest(manifest: Manifest): string {
  return JSON.stringify(manifest, null, 1);
}

/** What every command says of a directory that holds no store: the same one line everywhere. */
export function noStore(dir: string): string {
  return `no store in ${dir}: run "weave ingest" first, or name a store with --store DIR`;
}

/** The store's manifest, or undefined when the directory holds no store yet. */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  const path = join(dir, MANIFEST_FILE);
  const text = await readTextIfThere(path);
  if (text === undefined) return undefined;
  return parseManifest(text, path);
}

/** Parses and checks a manifest; `path` names it in the error. */
export function parseManifest(text: string, path: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${withoutSnippet((e as Error).message)}); the store's manifest is damaged`);
  }
  const problem = manifestProblem(json);
  if (problem) throw new Error(`${path}: ${problem}`);
  return json as Manifest;
}

/** What is wrong with a graph entry, as `.field: expected …`, or undefined when it is sound. */
export function entryProblem(graph: string, entry: unknown): string | undefined {
  if (!isObject(entry)) return `: expected an object, found ${kindOf(entry)}`;
  const unknown = Object.keys(entry).find((k) => !ENTRY_FIELDS.has(k));
  if (unknown !== undefined) return `: unknown field ${JSON.stringify(unknown)}`;
  if (typeof entry.file !== 'string') return `.file: expected a string, found ${kindOf(entry.file)}`;
  if (!isGraphFileOf(graph, entry.file)) return '.file: expected graphs/<SHA-1 of the graph>[.<tag>].nq, the file named by the graph';
  if (entry.bytes !== undefined && !isCount(entry.bytes)) return `.bytes: expected a whole number ≥ 0, found ${kindOf(entry.bytes)}`;
  if (!isCount(entry.quads)) return `.quads: expected a whole number ≥ 0, found ${kindOf(entry.quads)}`;
  if (entry.found !== undefined && (typeof entry.found !== 'string' || !isFoundFileOf(graph, entry.found)))
    return '.found: expected archive/<SHA-1 of the graph>.<tag>.json, the session as found';
  for (const part of ['derived', 'state'] as const) {
    const named = entry[part];
    if (named === undefined) continue;
    if (!isObject(named)) return `.${part}: expected an object, found ${kindOf(named)}`;
    const fields = part === 'derived' ? ['file', 'bytes', 'quads'] : ['file', 'bytes'];
    const extra = Object.keys(named).find((k) => !fields.includes(k) && k !== 'digest');
    if (extra !== undefined) return `.${part}: unknown field ${JSON.stringify(extra)}`;
    if (typeof named.file !== 'string' || !isGraphFileOf(graph, named.file, part))
      return `.${part}.file: expected graphs/<SHA-1 of the graph>.<tag>${part === 'derived' ? '.derived.nq' : '.state.json'}`;
    for (const count of fields.slice(1))
      if (!isCount(named[count])) return `.${part}.${count}: expected a whole number ≥ 0, found ${kindOf(named[count])}`;
    if (!isDigest(named.digest)) return `.${part}.digest: expected an array of SHA-1s (40 hex digits each)`;
  }
  if (!isDigest(entry.digest)) return '.digest: expected an array of SHA-1s (40 hex digits each)';
  if (entry.left !== undefined) {
    if (!Array.isArray(entry.left)) return `.left: expected an array, found ${kindOf(entry.left)}`;
    for (const [i, left] of entry.left.entries()) {
      if (!isObject(left) || typeof left.path !== 'string' || !left.path || !Array.isArray(left.versions))
        return `.left[${i}]: expected { path, versions }`;
      for (const [j, version] of left.versions.entries()) {
        const problem = archiveProblem(version, true);
        if (problem) return `.left[${i}].versions[${j}]${problem}`;
      }
    }
  }
  if (entry.derived && entry.bytes === undefined) return '.bytes: a graph kept in parts names the length of its spine';
  for (const key of ['sessionId', 'reader', 'builtWith'] as const)
    if (entry[key] !== undefined && typeof entry[key] !== 'string') return `.${key}: expected a string, found ${kindOf(entry[key])}`;
  return sourcesProblem(entry.sources);
}

const MANIFEST_FIELDS = new Set(['format', 'soul', 'roots', 'graphs', 'files']);
const FILE_FIELDS = new Set(['file', 'bytes', 'sha1', 'sessionId', 'builtWith', 'sources']);
const ENTRY_FIELDS = new Set([
  'file',
  'bytes',
  'digest',
  'quads',
  'sources',
  'sessionId',
  'reader',
  'builtWith',
  'found',
  'derived',
  'state',
  'left',
]);
const SOURCE_FIELDS = new Set(['path', 'size', 'mtimeMs', 'id', 'head', 'digest', 'read', 'lines', 'archive', 'versions', 'gone']);

function manifestProblem(json: unknown): string | undefined {
  if (!isObject(json)) return `expected a JSON object, found ${kindOf(json)}`;
  const unknown = Object.keys(json).find((k) => !MANIFEST_FIELDS.has(k));
  if (unknown !== undefined) return `unknown field ${JSON.stringify(unknown)}`;
  if (json.format !== STORE_FORMAT) return `"format" is not "${STORE_FORMAT}" (a store of another Weave version?)`;
  if (typeof json.soul !== 'string' || !json.soul) return `"soul": expected a non-empty string, found ${kindOf(json.soul)}`;
  if (json.roots !== undefined && (!Array.isArray(json.roots) || !json.roots.every((r) => typeof r === 'string' && r)))
    return `"roots": expected an array of non-empty strings, found ${kindOf(json.roots)}`;
  if (!isObject(json.graphs)) return `"graphs": expected an object, found ${kindOf(json.graphs)}`;
  for (const [graph, entry] of Object.entries(json.graphs)) {
    const problem = entryProblem(graph, entry);
    if (problem) return `graphs[${JSON.stringify(graph.slice(0, 200))}]${problem}`;
  }
  if (json.files === undefined) return undefined;
  if (!isObject(json.files)) return `"files": expected an object, found ${kindOf(json.files)}`;
  for (const [name, entry] of Object.entries(json.files)) {
    const problem = fileEntryProblem(entry);
    if (problem) return `files[${JSON.stringify(name.slice(0, 200))}]${problem}`;
  }
  return undefined;
}

/** What is wrong with a store file's entry, as `.field: expected …`, or undefined when it is sound. */
export function fileEntryProblem(entry: unknown): string | undefined {
  if (!isObject(entry)) return `: expected an object, found ${kindOf(entry)}`;
  const unknown = Object.keys(entry).find((k) => !FILE_FIELDS.has(k));
  if (unknown !== undefined) return `: unknown field ${JSON.stringify(unknown)}`;
  if (typeof entry.file !== 'string' || !isOwnFile(entry.file)) return '.file: expected a relative path inside the store';
  if (!isCount(entry.bytes)) return `.bytes: expected a whole number ≥ 0, found ${kindOf(entry.bytes)}`;
  if (typeof entry.sha1 !== 'string' || !/^[0-9a-f]{40}$/.test(entry.sha1)) return '.sha1: expected 40 hex digits';
  for (const key of ['sessionId', 'builtWith'] as const)
    if (entry[key] !== undefined && typeof entry[key] !== 'string') return `.${key}: expected a string, found ${kindOf(entry[key])}`;
  return sourcesProblem(entry.sources);
}

/** A store file's name: relative, inside the store, never one of the graph or archive folders' (their names are the layout's). */
function isOwnFile(file: string): boolean {
  return /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/.test(file) && !file.split('/').includes('..') && !/^(graphs|archive)\//.test(file);
}

/** What is wrong with an entry's `sources` (absent is sound). */
function sourcesProblem(sources: unknown): string | undefined {
  if (sources === undefined) return undefined;
  if (!Array.isArray(sources)) return `.sources: expected an array, found ${kindOf(sources)}`;
  for (const [i, source] of sources.entries()) {
    const problem = sourceProblem(source);
    if (problem) return `.sources[${i}]${problem}`;
  }
  return undefined;
}

function sourceProblem(source: unknown): string | undefined {
  if (!isObject(source)) return `: expected an object, found ${kindOf(source)}`;
  const unknown = Object.keys(source).find((k) => !SOURCE_FIELDS.has(k));
  if (unknown !== undefined) return `: unknown field ${JSON.stringify(unknown)}`;
  if (typeof source.path !== 'string' || !source.path) return `.path: expected a non-empty string, found ${kindOf(source.path)}`;
  if (!isCount(source.size)) return `.size: expected a whole number ≥ 0, found ${kindOf(source.size)}`;
  if (typeof source.mtimeMs !== 'number' || !Number.isFinite(source.mtimeMs))
    return `.mtimeMs: expected a number, found ${kindOf(source.mtimeMs)}`;
  for (const key of ['id', 'head'] as const)
    if (source[key] !== undefined && (typeof source[key] !== 'string' || !source[key]))
      return `.${key}: expected a non-empty string, found ${kindOf(source[key])}`;
  if (source.read !== undefined && !isCount(source.read)) return `.read: expected a whole number ≥ 0, found ${kindOf(source.read)}`;
  if (source.lines !== undefined && !isCount(source.lines)) return `.lines: expected a whole number ≥ 0, found ${kindOf(source.lines)}`;
  if (source.gone !== undefined && source.gone !== true) return `.gone: expected true, found ${kindOf(source.gone)}`;
  if (
    source.digest !== undefined &&
    (!isObject(source.digest) ||
      Object.keys(source.digest).some((k) => k !== 'bytes' && k !== 'chunks') ||
      !isCount(source.digest.bytes) ||
      source.digest.chunks === undefined ||
      !isDigest(source.digest.chunks))
  )
    return '.digest: expected { bytes, chunks: SHA-1s (40 hex digits each) }';
  if (source.versions !== undefined) {
    if (!Array.isArray(source.versions)) return `.versions: expected an array, found ${kindOf(source.versions)}`;
    for (const [i, version] of source.versions.entries()) {
      const problem = archiveProblem(version, true);
      if (problem) return `.versions[${i}]${problem}`;
    }
  }
  if (source.archive === undefined) return undefined;
  const problem = archiveProblem(source.archive, false);
  return problem && `.archive${problem}`;
}

/** What is wrong with an archived file (a version of one: with its `lines`). */
function archiveProblem(archive: unknown, version: boolean): string | undefined {
  if (!isObject(archive)) return `: expected an object, found ${kindOf(archive)}`;
  const extra = Object.keys(archive).find((k) => k !== 'file' && k !== 'bytes' && k !== 'raw' && (!version || k !== 'lines'));
  if (extra !== undefined) return `: unknown field ${JSON.stringify(extra)}`;
  if (typeof archive.file !== 'string' || !isArchiveFile(archive.file))
    return '.file: expected archive/<SHA-1 of the source path>.<tag>.gz';
  if (!isCount(archive.bytes)) return `.bytes: expected a whole number ≥ 0, found ${kindOf(archive.bytes)}`;
  if (!isCount(archive.raw)) return `.raw: expected a whole number ≥ 0, found ${kindOf(archive.raw)}`;
  if (version && !isCount(archive.lines)) return `.lines: expected a whole number ≥ 0, found ${kindOf(archive.lines)}`;
  return undefined;
}

/** Absent, or SHA-1s in hex. */
function isDigest(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.every((d) => typeof d === 'string' && /^[0-9a-f]{40}$/.test(d)));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The kind of a value, never the value: a manifest names source paths. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return 'a number too large';
    return !Number.isInteger(value) ? 'a fraction' : value < 0 ? 'a negative number' : 'a number';
  }
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** V8's JSON messages quote a snippet of the text; the position (when given) is enough. */
function withoutSnippet(message: string): string {
  return message.replace(/, ".*"(\.\.\.)? is not valid JSON$/s, '').replace(/^Unexpected token '.*?'/s, 'Unexpected token');
}
