import { createHash } from 'node:crypto';
import { join } from 'node:path';
import oxigraph from 'oxigraph';
import { iri } from '../../../rdf/terms.ts';
import { ONTOLOGY_GRAPH } from '../../../rdf/vocab.ts';
import { loadGraph, loadNQuadsFile, type OxStore } from '../../../store/store.ts';
import { DEFAULT_GRAPH_KEY, filesOf, readManifest, type Manifest, type NamedFile } from '../../../store/manifest.ts';
import { openStoreForWriting } from '../../../store/writer.ts';
import type { ChangedGraph } from '../../messages.ts';

/**
 * Writes made over HTTP (SPARQL Update, Graph Store Protocol) saved into the snapshot store, so
 * a worker that replaces another, or the next start, sees them. Oxigraph does not say what an
 * update touched, so each graph's N-Triples is hashed before and after, and the graphs whose
 * hash moved are rewritten whole through the store's writer, each as one graph file (a session
 * graph ingest kept in parts, spine and derived part, becomes one file again).
 */

type Key = string | null;

export function graphTerm(graph: Key): oxigraph.NamedNode | oxigraph.DefaultGraph {
  return graph === null ? oxigraph.defaultGraph() : oxigraph.namedNode(graph);
}

/** The named graphs in the store, empty ones included (blank-node graph names are not addressable). */
function namedGraphs(store: OxStore): string[] {
  const rows = store.query('SELECT DISTINCT ?g WHERE { GRAPH ?g { } }') as Map<string, oxigraph.Term>[];
  return rows
    .map((r) => r.get('g')!)
    .filter((t) => t.termType === 'NamedNode')
    .map((t) => t.value);
}

export function graphExists(store: OxStore, graph: Key): boolean {
  return graph === null || (store.query(`ASK { GRAPH <${graph}> { } }`) as boolean);
}

function graphTriples(store: OxStore, graph: Key): string {
  return store.dump({ format: 'application/n-triples', from_graph_name: graphTerm(graph) });
}

function digest(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** Per-graph hashes, kept between writes so a write costs one pass over the store, not two. */
export class GraphDigests {
  private readonly known = new Map<Key, string>();

  /** A graph was reloaded from disk: its hash is no longer known. */
  forget(graph: Key): void {
    this.known.delete(graph);
  }

  /** Hashes of every graph now in the store, computing only the ones not known. */
  before(store: OxStore): Map<Key, string> {
    const present = new Set<Key>([null, ...namedGraphs(store)]);
    for (const key of [...this.known.keys()]) if (!present.has(key)) this.known.delete(key);
    for (const key of present) if (!this.known.has(key)) this.known.set(key, digest(graphTriples(store, key)));
    return new Map(this.known);
  }

  /** The graphs a write changed, with their new N-Triples text (null: the graph is gone). */
  after(store: OxStore, before: Map<Key, string>): { graph: Key; text: string | null }[] {
    const changed: { graph: Key; text: string | null }[] = [];
    const present = [null, ...namedGraphs(store)];
    this.known.clear();
    for (const key of present) {
      const text = graphTriples(store, key);
      const hash = digest(text);
      this.known.set(key, hash);
      if (before.get(key) !== hash) changed.push({ graph: key, text });
    }
    for (const key of before.keys()) if (!this.known.has(key)) changed.push({ graph: key, text: null });
    return changed;
  }
}

/** Saves changed graphs as graph files and manifest entries; returns what other workers must reload. */
export async function persistGraphs(dir: string, soul: string, changed: { graph: Key; text: string | null }[]): Promise<ChangedGraph[]> {
  if (!changed.length) return [];
  // One manifest write for the whole request: a write cut off leaves every graph it touched as it was.
  const writer = await openStoreForWriting(dir, soul, { batch: Number.POSITIVE_INFINITY });
  const out: ChangedGraph[] = [];
  try {
    for (const { graph, text } of changed) {
      const key = graph ?? DEFAULT_GRAPH_KEY;
      const previous = writer.manifest.graphs[key];
      // An emptied default graph needs no file; an empty named graph keeps its entry (it still exists).
      if (text === null || (graph === null && text === '')) {
        await writer.removeGraph(key);
        out.push({ graph, files: [] });
        continue;
      }
      const quads = text ? text.split('\n').length - 1 : 0;
      // What ingest or a reader recorded about the graph (its sources, session) stays with it.
      const { file: _file, bytes: _bytes, ...kept } = previous ?? {};
      const entry = await writer.writeGraph(key, graph === null ? text : text.replace(/ \.\n/g, ` ${iri(graph)} .\n`), { ...kept, quads });
      out.push({ graph, files: filesOf(entry) });
    }
    await writer.close();
  } catch (e) {
    // What the write put on disk goes with it: the store stays as it was.
    await writer.abandon();
    throw e;
  }
  return out;
}

/**
 * What `openStore` cannot know about graphs written over HTTP: a saved ontology graph replaces the
 * one loaded from `ontology/weave.ttl` (so a deletion sticks), and empty named graphs still exist.
 */
export async function applySavedGraphs(store: OxStore, dir: string, manifest: Manifest | undefined): Promise<void> {
  for (const [key, entry] of Object.entries(manifest?.graphs ?? {})) {
    if (key === ONTOLOGY_GRAPH) {
      store.update(`DROP SILENT GRAPH <${ONTOLOGY_GRAPH}>`);
      await loadGraph(store, dir, entry);
    }
    if (key !== DEFAULT_GRAPH_KEY && entry.quads === 0 && !entry.sessionId) store.update(`CREATE SILENT GRAPH <${key}>`);
  }
}

/**
 * Brings one graph up to date: by its delta, for a graph a read carried on that this store holds
 * (the derived lines that went are deleted, the spine's new bytes and the derived lines that came
 * are loaded: far less than the graph, for a long session); else dropped and loaded again from its
 * files (none: it is gone). Returns by how many quads the store grew, counted in that graph alone
 * (the store's own size is a pass over all of it), and why the graph could not be loaded if so.
 *
 * A change can come after its files are gone: told while this copy was busy, or to a copy that
 * opened later (workers/unrecorded.ts), its version was replaced by the next, and the writer
 * deletes a version's files once the manifest names another. The version the manifest names now
 * is loaded instead; the change that made it comes after this one, and applies over it.
 *
 * A version that does not load (a file damaged on disk) leaves the graph out of this copy rather
 * than half in it: the copy goes on answering, and the graph's next version loads over nothing.
 */
export async function reloadGraph(store: OxStore, dir: string, change: ChangedGraph): Promise<{ grew: number; problem?: string }> {
  const before = graphSize(store, change.graph);
  try {
    await bringUpToDate(store, dir, change).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
      return loadAsNamedNow(store, dir, change.graph);
    });
  } catch (e) {
    await loadFiles(store, dir, change.graph, []);
    return { grew: -before, problem: (e as Error).message };
  }
  return { grew: graphSize(store, change.graph) - before };
}

async function bringUpToDate(store: OxStore, dir: string, change: ChangedGraph): Promise<void> {
  if (change.delta && change.graph !== null && graphExists(store, change.graph)) {
    const { spine, removed, added } = change.delta;
    if (removed) for (const quad of oxigraph.parse(removed, { format: 'application/n-quads' })) store.delete(quad);
    await loadNQuadsFile(store, join(dir, spine.file), spine.to, spine.from);
    if (added) store.load(added, { format: 'application/n-quads', no_transaction: true });
    return;
  }
  await loadFiles(store, dir, change.graph, change.files);
}

/** A graph dropped and loaded again from `files` (none: it is gone). */
async function loadFiles(store: OxStore, dir: string, graph: Key, files: NamedFile[]): Promise<void> {
  store.update(graph === null ? 'DROP SILENT DEFAULT' : `DROP SILENT GRAPH <${graph}>`);
  if (!files.length) return;
  for (const { file, bytes } of files) await loadNQuadsFile(store, join(dir, file), bytes);
  if (graph !== null && !graphExists(store, graph)) store.update(`CREATE SILENT GRAPH <${graph}>`);
}

/** A graph as the manifest names it now; read again if its files are replaced meanwhile, as `openStore` does. */
async function loadAsNamedNow(store: OxStore, dir: string, graph: Key): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const entry = (await readManifest(dir))?.graphs[graph ?? DEFAULT_GRAPH_KEY];
    try {
      return await loadFiles(store, dir, graph, entry ? filesOf(entry) : []);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw e;
    }
  }
}

/** The quads of one graph (null: the default graph), counted in it alone. */
function graphSize(store: OxStore, graph: Key): number {
  const rows = store.query(`SELECT (COUNT(*) AS ?n) WHERE { ${graph === null ? '?s ?p ?o' : `GRAPH <${graph}> { ?s ?p ?o }`} }`) as Map<
    string,
    oxigraph.Term
  >[];
  return Number(rows[0]?.get('n')?.value ?? 0);
}
