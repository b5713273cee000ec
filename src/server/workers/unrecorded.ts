import { DEFAULT_GRAPH_KEY, filesOf, type Manifest, type NamedFile } from '../../store/manifest.ts';
import type { ChangedGraph } from '../messages.ts';

/**
 * An ingest run tells the server of each graph as soon as its files are written, but its manifest
 * names the graph only at the run's next batch or at its end (src/store/writer.ts). A copy of the
 * store that opens meanwhile reads the manifest as it is, so it is handed the changes told since
 * the run began (pool.ts) and loads, after the manifest, those the manifest does not name.
 *
 * Of a graph's changes, those up to the last whose files the manifest names are in the copy
 * already; the later ones are loaded in order. A graph none of whose changes the manifest names
 * gets them all: the manifest names an older version (the run's batch is not written yet), or a
 * newer one whose change is still on its way (each change applies over any version of the graph,
 * and the newest comes last).
 */
export function unrecordedIn(manifest: Manifest | undefined, changes: readonly ChangedGraph[]): ChangedGraph[] {
  /** Per graph, the last change the manifest names. */
  const loaded = new Map<string | null, number>();
  for (const [i, change] of changes.entries()) if (namedIn(manifest, change)) loaded.set(change.graph, i);
  return changes.filter((change, i) => i > (loaded.get(change.graph) ?? -1));
}

/**
 * After a run that failed (its thread ended, or its manifest could not be written and the files it
 * wrote were removed), the graphs it told of as the manifest names them now, so every copy, open
 * then or later, holds what the manifest says: one change per graph, in the order last told, for
 * those whose last change the manifest does not name (the others the copies hold already; a run
 * that failed after its last batch needs no graph loaded again).
 */
export function asNamedIn(manifest: Manifest | undefined, changes: readonly ChangedGraph[]): ChangedGraph[] {
  const last = new Map<string | null, ChangedGraph>();
  for (const change of [...changes].reverse()) if (!last.has(change.graph)) last.set(change.graph, change);
  return [...last.values()]
    .reverse()
    .filter((change) => !namedIn(manifest, change))
    .map(({ graph }) => {
      const entry = manifest?.graphs[graph ?? DEFAULT_GRAPH_KEY];
      return { graph, files: entry ? filesOf(entry) : [] };
    });
}

/** Whether the manifest names the version `change` made (or, for a graph gone, none). */
function namedIn(manifest: Manifest | undefined, change: ChangedGraph): boolean {
  const entry = manifest?.graphs[change.graph ?? DEFAULT_GRAPH_KEY];
  return entry ? sameFiles(filesOf(entry), change.files) : !change.files.length;
}

function sameFiles(a: NamedFile[], b: NamedFile[]): boolean {
  return a.length === b.length && a.every((f, i) => f.file === b[i].file && f.bytes === b[i].bytes);
}
