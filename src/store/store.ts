import oxigraph from 'oxigraph';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readLines } from '../acquire/lines.ts';
import { ONTOLOGY_GRAPH } from '../rdf/vocab.ts';
import { ONTOLOGY_FILE } from './ontology.ts';
import { filesOf, readManifest, type GraphEntry, type Manifest } from './manifest.ts';

export type OxStore = oxigraph.Store;

/** Quads per `Store.load` call: one huge string is dramatically slower (see bench/). */
export const LOAD_CHUNK = 10_000;


/**
 * Opens the store in `dir` as an in-memory Oxigraph store: every graph file of the manifest,
 * plus the ontology in its own graph. Oxigraph's JS build has no on-disk storage, so the
 * snapshot files are the persistence and this is the query copy.
 */
export async function openStore(dir: string): Promise<{ store: OxStore; manifest: Manifest | undefined }> {
  for (let attempt = 0; ; attempt++) {
    const store = new oxigraph.Store();
    const manifest = await readManifest(dir);
    try {
      for (const entry of Object.values(manifest?.graphs ?? {})) await loadGraph(store, dir, entry);
    } catch (e) {
      // A writer replaced a version this manifest named, and removed its file: read the new manifest.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 5) continue;
      throw e;
    }
    await loadOntology(store);
    return { store, manifest };
  }
}

/** The N-Quads of one graph entry as bytes: each of its files, as much of each as the entry names. */
export async function readGraphBytes(dir: string, entry: GraphEntry): Promise<Buffer> {
  const parts = await Promise.all(filesOf(entry).map(async ({ file, bytes }) => (await readFile(join(dir, file))).subarray(0, bytes)));
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
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
 * no single string approaches V8's limit. With `bytes`, only that much of the file is read.
 */
export async function loadNQuadsFile(store: OxStore, path: string, bytes?: number): Promise<void> {
  const size = bytes ?? (await stat(path)).size;
  if (size <= WHOLE_FILE_BYTES) {
    const text = await readFile(path);
    // Bytes past `bytes` are an append the manifest does not name yet (or one cut off): not the graph's.
    store.load(bytes === undefined ? text : text.subarray(0, bytes), { format: 'application/n-quads', no_transaction: true });
    return;
  }
  let batch: string[] = [];
  for await (const line of readLines(path, { end: bytes })) {
    batch.push(line.text);
    if (batch.length >= LOAD_CHUNK) {
      loadNQuads(store, batch.join('\n'));
      batch = [];
    }
  }
  if (batch.length) loadNQuads(store, batch.join('\n'));
}

export function loadNQuads(store: OxStore, text: string): void {
  store.load(text, { format: 'application/n-quads', no_transaction: true });
}
