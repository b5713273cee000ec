import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { graphFileName, MANIFEST_FILE } from './layout.ts';

/**
 * The manifest: which graphs the store holds, in which files, built from what. Everything that
 * reads a store reads it through `readManifest`, which checks every field, so a damaged or
 * foreign manifest is one clear error naming the file and the field, never a crash later on.
 */

export const STORE_FORMAT = 'weave-store/1';

export interface SourceStamp {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface GraphEntry {
  /** The graph's file, relative to the store directory (always `graphFileName` of the graph). */
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
  format: typeof STORE_FORMAT;
  soul: string;
  graphs: Record<string, GraphEntry>;
}

export function emptyManifest(soul: string): Manifest {
  return { format: STORE_FORMAT, soul, graphs: {} };
}

/** The manifest's bytes on disk (one-space indent, keys in insertion order). */
export function renderManifest(manifest: Manifest): string {
  return JSON.stringify(manifest, null, 1);
}

/** The store's manifest, or undefined when the directory holds no store yet. */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path}: ${(e as Error).message}`);
  }
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
  if (entry.file !== graphFileName(graph)) return `.file: expected ${graphFileName(graph)}, the file named by the graph`;
  if (!isCount(entry.quads)) return `.quads: expected a whole number ≥ 0, found ${kindOf(entry.quads)}`;
  for (const key of ['sessionId', 'reader', 'builtWith'] as const)
    if (entry[key] !== undefined && typeof entry[key] !== 'string') return `.${key}: expected a string, found ${kindOf(entry[key])}`;
  if (entry.sources === undefined) return undefined;
  if (!Array.isArray(entry.sources)) return `.sources: expected an array, found ${kindOf(entry.sources)}`;
  for (const [i, source] of entry.sources.entries()) {
    const problem = sourceProblem(source);
    if (problem) return `.sources[${i}]${problem}`;
  }
  return undefined;
}

const MANIFEST_FIELDS = new Set(['format', 'soul', 'graphs']);
const ENTRY_FIELDS = new Set(['file', 'quads', 'sources', 'sessionId', 'reader', 'builtWith']);
const SOURCE_FIELDS = new Set(['path', 'size', 'mtimeMs']);

function manifestProblem(json: unknown): string | undefined {
  if (!isObject(json)) return `expected a JSON object, found ${kindOf(json)}`;
  const unknown = Object.keys(json).find((k) => !MANIFEST_FIELDS.has(k));
  if (unknown !== undefined) return `unknown field ${JSON.stringify(unknown)}`;
  if (json.format !== STORE_FORMAT) return `"format" is not "${STORE_FORMAT}" (a store of another Weave version?)`;
  if (typeof json.soul !== 'string' || !json.soul) return `"soul": expected a non-empty string, found ${kindOf(json.soul)}`;
  if (!isObject(json.graphs)) return `"graphs": expected an object, found ${kindOf(json.graphs)}`;
  for (const [graph, entry] of Object.entries(json.graphs)) {
    const problem = entryProblem(graph, entry);
    if (problem) return `graphs[${JSON.stringify(graph.slice(0, 200))}]${problem}`;
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
  return undefined;
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
