import oxigraph from 'oxigraph';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readLines } from '../acquire/lines.ts';
import { loadAlignment } from '../align/ravel.ts';
import { ONTOLOGY_GRAPH } from '../rdf/vocab.ts';
import { ONTOLOGY_FILE } from './ontology.ts';
import { assertFits, storeSize } from './ceiling.ts';
import { DEFAULT_GRAPH_KEY, filesOf, readManifest, type GraphEntry, type Manifest } from './manifest.ts';

export type OxStore = oxigraph.Store;

/** Quads per `Store.load` call: one huge string is dramatically slower (see bench/). */
const LOAD_CHUNK = 10_000;

/**
 * Opens the store in `dir` as an in-memory Oxigraph store: every graph file of the manifest,
 * plus the ontology and the alignment with ravel (src/align/ravel.ts), each in its own graph. Oxigraph's JS build has no on-disk storage, so the
 * snapshot files are the persistence and this is the query copy.
 */
export async function openStore(
  dir: string,
  options: {
    onProgress?: (quads: number, of: number) => void;
    /**
     * A graph whose files do not load: true leaves it out and goes on (a server's copy, for a graph
     * the copies open already left out); otherwise opening fails, naming the file.
     */
    leaveOut?: (graph: string, error: Error) => boolean;
  } = {},
): Promise<{ store: OxStore; manifest: Manifest | undefined }> {
  for (let attempt = 0; ; attempt++) {
    const store = new oxigraph.Store();
    const manifest = await readManifest(dir);
    // A store past what one embedded copy holds is refused here, not left to fail inside WebAssembly.
    assertFits(storeSize(manifest), dir);
    const entries = Object.entries(manifest?.graphs ?? {});
    const of = entries.reduce((n, [, e]) => n + e.quads, 0);
    let quads = 0;
    try {
      for (const [name, entry] of entries) {
        try {
          await loadGraph(store, dir, entry);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT' || !options.leaveOut?.(name, e as Error)) throw e;
          store.update(name === DEFAULT_GRAPH_KEY ? 'DROP SILENT DEFAULT' : `DROP SILENT GRAPH <${name}>`);
          continue;
        }
        // A graph the manifest names is in the store even empty (a reader that found nothing in a
        // session), as a server's worker holds it after loading it live: /void then lists, and the
        // page header counts, the same graphs however the store was opened (357 against 1,328 on
        // the corpus, when only the loaded quads made a graph).
        if (!entry.quads && name !== DEFAULT_GRAPH_KEY && !/[<>"{}|^`\\\s]/.test(name)) store.update(`CREATE SILENT GRAPH <${name}>`);
        options.onProgress?.((quads += entry.quads), of);
      }
    } catch (e) {
      // A writer replaced a version this manifest named, and removed its file: read the new manifest.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 5) continue;
      throw e;
    }
    await loadOntology(store);
    await loadAlignment(store, manifest?.soul ?? 'local');
    return { store, manifest };
  }
}

/** Loads every file of one graph entry, as much of each as the entry names. */
export async function loadGraph(store: OxStore, dir: string, entry: GraphEntry): Promise<void> {
  for (const { file, bytes } of filesOf(entry)) await loadNQuadsFile(store, join(dir, file), bytes);
}

/** `ontology/weave.ttl`, into its own graph. */
export async function loadOntology(store: OxStore): Promise<void> {
  store.load(await readFile(ONTOLOGY_FILE, 'utf8'), {
    format: 'text/turtle',
    base_iri: ONTOLOGY_GRAPH,
    to_graph_name: oxigraph.namedNode(ONTOLOGY_GRAPH),
  });
}

/** Below this a graph file is loaded in one call (some 30% faster); above, in chunks. */
const WHOLE_FILE_BYTES = 64e6;

/**
 * Loads an N-Quads file by Oxigraph's fast path: text in bulk, never one quad at a time
 * (`npm run bench` measures the ways side by side). A large file is streamed in chunks so that
 * no single string approaches V8's limit. With `bytes`, only that much of the file is read; with
 * `from` (the start of a line), only from there.
 */
export async function loadNQuadsFile(store: OxStore, path: string, bytes?: number, from = 0): Promise<void> {
  const size = (bytes ?? (await stat(path)).size) - from;
  if (size <= WHOLE_FILE_BYTES) {
    // Bytes past `bytes` are an append the manifest does not name yet (or one cut off): not the graph's.
    const text = from || bytes !== undefined ? await readRange(path, from, bytes) : await readFile(path);
    loadNamed(store, text, path, 0);
    return;
  }
  let batch: string[] = [];
  // Line numbers in errors count from `from` when it is given (an append loaded on its own).
  let first = 1;
  for await (const line of readLines(path, { start: from, end: bytes })) {
    batch.push(line.text);
    if (batch.length >= LOAD_CHUNK) {
      loadNamed(store, batch.join('\n'), path, first - 1);
      first = line.lineNo + 1;
      batch = [];
    }
  }
  if (batch.length) loadNamed(store, batch.join('\n'), path, first - 1);
}

/**
 * A load that fails names the graph file and the line, and nothing of the text: Oxigraph's
 * message alone ("Parser error at line 631 …") named no file, and may quote what it found. The
 * parser is lenient: Weave wrote every term of these files from checked terms, and a file's
 * integrity is its digest's to prove (`weave verify --self`); checking each IRI again took a
 * third of the time of opening the corpus (2.6 s against 1.7; `npm run bench` loads both ways).
 */
function loadNamed(store: OxStore, text: string | Buffer, path: string, linesBefore: number): void {
  try {
    store.load(text, { format: 'application/n-quads', no_transaction: true, lenient: true });
  } catch (e) {
    const line = /\bline (\d+)/.exec((e as Error).message)?.[1];
    throw new Error(`${path}${line ? `:${Number(line) + linesBefore}` : ''}: not valid N-Quads`);
  }
}

/** How much of a file `readLineChunks` reads at a time (a chunk grows past it only for a longer line). */
const LINE_CHUNK = 8 << 20;

/**
 * Bytes `from` to `to` of a file (to its end without `to`), in chunks that each end with a whole
 * line: a search through a graph file's lines holds a few MiB of it, never the file (a long
 * session's derived part is several GB). Only the last chunk may end without a line break.
 */
export async function* readLineChunks(path: string, from: number, to?: number, size = LINE_CHUNK): AsyncGenerator<Buffer> {
  const file = await open(path, 'r');
  try {
    const end = to ?? (await file.stat()).size;
    // What the last chunk read held past its last line break: the start of the next chunk.
    let rest = Buffer.alloc(0);
    for (let at = from; at < end; ) {
      const buffer = Buffer.allocUnsafe(rest.length + Math.min(size, end - at));
      rest.copy(buffer);
      const { bytesRead } = await file.read(buffer, rest.length, buffer.length - rest.length, at);
      if (!bytesRead) break;
      at += bytesRead;
      const held = rest.length + bytesRead;
      const cut = at < end ? buffer.lastIndexOf(0x0a, held - 1) + 1 : held;
      rest = buffer.subarray(cut, held);
      if (cut) yield buffer.subarray(0, cut);
    }
    if (rest.length) yield rest;
  } finally {
    await file.close();
  }
}

/** Bytes `from` to `to` of a file (to its end without `to`). */
export async function readRange(path: string, from: number, to?: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const length = (to ?? (await file.stat()).size) - from;
    const buffer = Buffer.alloc(Math.max(0, length));
    let at = 0;
    while (at < buffer.length) {
      const { bytesRead } = await file.read(buffer, at, buffer.length - at, from + at);
      if (!bytesRead) break;
      at += bytesRead;
    }
    return buffer.subarray(0, at);
  } finally {
    await file.close();
  }
}
