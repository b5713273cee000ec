import { createHash } from 'node:crypto';
import { join } from 'node:path';
import oxigraph from 'oxigraph';
import { iri } from '../../../rdf/terms.ts';
import { ONTOLOGY_GRAPH } from '../../../rdf/vocab.ts';
import { loadNQuadsFile, type OxStore } from '../../../store/store.ts';
import type { Manifest } from '../../../store/manifest.ts';
import { openStoreForWriting } from '../../../store/writer.ts';
import type { ChangedGraph } from '../../messages.ts';

/**
 * Writes made over HTTP (SPARQL Update, Graph Store Protocol) saved into the snapshot store, so
 * a worker that replaces another, or the next start, sees them. Oxigraph does not say what an
 * update touched, so each graph's N-Triples is hashed before and after, and the graphs whose
 * hash moved are rewritten whole, the same one-file-per-graph way ingest writes sessions.
 */

/** The manifest key of the store's own (unnamed) default graph. Not an IRI, on purpose. */
export const DEFAULT_GRAPH_KEY = 'default';

type Key = string | null;

export function graphTerm(graph: Key): oxigraph.NamedNode | oxigraph.DefaultGraph {
  return graph === null ? oxigraph.defaultGraph() : oxigraph.namedNode(graph);
}

/** The named graphs in the store, empty ones included (blank-node graph names are not addressable). */
export function namedGraphs(store: OxStore): string[] {
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
  const writer = await openStoreForWriting(dir, soul);
  const out: ChangedGraph[] = [];
  for (const { graph, text } of changed) {
    const key = graph ?? DEFAULT_GRAPH_KEY;
    const previous = writer.manifest.graphs[key];
    // An emptied default graph needs no file; an empty named graph keeps its entry (it still exists).
    if (text === null || (graph === null && text === '')) {
      await writer.removeGraph(key);
      out.push({ graph, file: null });
      continue;
    }
    const quads = text ? text.split('\n').length - 1 : 0;
    // What ingest or a reader recorded about the graph (its sources, session) stays with it.
    const { file: _file, ...kept } = previous ?? {};
    const { file } = await writer.writeGraph(key, graph === null ? text : text.replace(/ \.\n/g, ` ${iri(graph)} .\n`), { ...kept, quads });
    out.push({ graph, file });
  }
  await writer.close();
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
      await loadNQuadsFile(store, join(dir, entry.file));
    }
    if (key !== DEFAULT_GRAPH_KEY && entry.quads === 0 && !entry.sessionId) store.update(`CREATE SILENT GRAPH <${key}>`);
  }
}

/** Drops one graph and loads it again from its file (null: it is gone). */
export async function reloadGraph(store: OxStore, dir: string, change: ChangedGraph): Promise<void> {
  store.update(change.graph === null ? 'DROP SILENT DEFAULT' : `DROP SILENT GRAPH <${change.graph}>`);
  if (!change.file) return;
  await loadNQuadsFile(store, join(dir, change.file));
  if (change.graph !== null && !graphExists(store, change.graph)) store.update(`CREATE SILENT GRAPH <${change.graph}>`);
}
