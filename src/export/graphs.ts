import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { TERM_ALIGNMENT_FILE } from '../align/ravel.ts';
import { alignmentGraphIri } from '../rdf/iri.ts';
import { ONTOLOGY_GRAPH } from '../rdf/vocab.ts';
import { ONTOLOGY_FILE } from '../store/ontology.ts';
import { DEFAULT_GRAPH_KEY, filesOf, readManifest, type GraphEntry } from '../store/manifest.ts';

/**
 * What an export reads: the store's graph files (already N-Quads), the ontology and the term
 * alignment (Turtle files of this checkout), and the turn alignment, which is derived from the
 * session graphs' turns as they stream past. Nothing is loaded into a store.
 */

export type GraphSource =
  /**
   * A graph file of the manifest: N-Quads lines, each naming `graph` (or none, for the default
   * graph), read to `bytes` (bytes past it are an append the manifest does not name yet).
   * `turnsOnly`: not exported, only read for the turns the alignment graph names.
   */
  | { kind: 'nquads'; graph: string | undefined; path: string; bytes: number; turnsOnly?: boolean }
  /** A Turtle file, loaded into `graph`. */
  | { kind: 'turtle'; graph: string; path: string; bytes: number };

export interface ExportPlan {
  sources: GraphSource[];
  /** Where the turns' owl:sameAs go, when the alignment graph is part of the export. */
  alignmentGraph?: string;
  /** The store's soul, which names the alignment graph whether it is exported or not. */
  soul: string;
  bytes: number;
}

interface GraphFilter {
  /** Only these graphs (IRIs). */
  graphs?: string[];
  /** Only the graphs of these sessions: each session's own graph and its readers' graphs. */
  sessions?: string[];
}

export class ExportSelectionError extends Error {}

/**
 * The session an id names, or a unique prefix of one, as `weave conversation` and the other
 * commands take it: the prefix a user has just typed there names nothing here otherwise.
 */
function sessionNamed(entries: [string, GraphEntry][], id: string): string {
  const ids = [...new Set(entries.flatMap(([, e]) => (e.sessionId !== undefined && !e.reader ? [e.sessionId] : [])))];
  if (ids.includes(id)) return id;
  const matches = ids.filter((s) => s.startsWith(id));
  if (matches.length === 1) return matches[0];
  if (!matches.length) throw new ExportSelectionError(`no session ${id} in the store`);
  const shown = `${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}`;
  throw new ExportSelectionError(`"${id}" names ${matches.length} sessions (${shown}); give more of the id`);
}

/** The graphs to export, in graph-name order, filtered; an unknown graph or session is an error. */
export async function planExport(storeDir: string, filter: GraphFilter = {}): Promise<ExportPlan> {
  const manifest = await readManifest(storeDir);
  const soul = manifest?.soul ?? 'local';
  const alignment = alignmentGraphIri(soul);
  const entries = Object.entries(manifest?.graphs ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const sessions = filter.sessions?.map((id) => sessionNamed(entries, id));
  const wanted = (graph: string, sessionId?: string) =>
    (!filter.graphs?.length && !sessions?.length) || !!filter.graphs?.includes(graph) || (!!sessionId && !!sessions?.includes(sessionId));

  const sources: GraphSource[] = [];
  for (const [key, entry] of entries) {
    // The alignment names every turn of the store, so session graphs are read for their turns even when they are not exported.
    const turnsOnly = !wanted(key, entry.sessionId);
    if (turnsOnly && !(wanted(alignment) && entry.sessionId && !entry.reader)) continue;
    // A session graph kept in parts is its spine and derived part, each as long as the entry names.
    for (const { file, bytes } of filesOf(entry)) {
      const path = join(storeDir, file);
      sources.push({
        kind: 'nquads',
        graph: key === DEFAULT_GRAPH_KEY ? undefined : key,
        path,
        bytes: bytes ?? (await stat(path)).size,
        turnsOnly,
      });
    }
  }
  const addTurtle = async (graph: string, file: URL) => {
    if (!wanted(graph)) return;
    const path = fileURLToPath(file);
    sources.push({ kind: 'turtle', graph, path, bytes: (await stat(path)).size });
  };
  await addTurtle(ONTOLOGY_GRAPH, ONTOLOGY_FILE);
  await addTurtle(alignment, TERM_ALIGNMENT_FILE);

  for (const graph of filter.graphs ?? [])
    if (graph !== ONTOLOGY_GRAPH && graph !== alignment && !manifest?.graphs[graph])
      throw new ExportSelectionError(`no graph <${graph}> in the store`);

  return {
    sources,
    alignmentGraph: wanted(alignment) ? alignment : undefined,
    soul,
    bytes: sources.reduce((n, s) => n + s.bytes, 0),
  };
}
