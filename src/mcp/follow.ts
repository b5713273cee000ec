import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChangedGraph } from '../server/messages.ts';
import { MANIFEST_FILE } from '../store/layout.ts';
import { DEFAULT_GRAPH_KEY, filesOf, readManifest } from '../store/manifest.ts';

/**
 * The graphs an ingest changed since the last look, for a query worker's copy of the store to
 * load again: `weave mcp` lives as long as the agent that started it, while `weave ingest` (or
 * another process) adds sessions to the store. The manifest is read again only when it changed.
 */
export class ManifestFollower {
  private seenMtimeMs = -1;
  private graphs = new Map<string, string>();

  constructor(private readonly storeDir: string) {}

  /** What changed since the last call (the first call takes the store as it is and reports nothing). */
  async changes(): Promise<ChangedGraph[]> {
    const mtimeMs = await stat(join(this.storeDir, MANIFEST_FILE)).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (mtimeMs === this.seenMtimeMs) return [];
    const first = this.seenMtimeMs < 0;
    this.seenMtimeMs = mtimeMs;
    const manifest = await readManifest(this.storeDir).catch(() => undefined);
    if (!manifest) return [];
    const now = new Map(Object.entries(manifest.graphs).map(([graph, entry]) => [graph, JSON.stringify(filesOf(entry))]));
    const changed: ChangedGraph[] = [];
    // The manifest's `default` is the store's own default graph.
    const named = (key: string) => (key === DEFAULT_GRAPH_KEY ? null : key);
    for (const [key, files] of now) if (this.graphs.get(key) !== files) changed.push({ graph: named(key), files: JSON.parse(files) });
    for (const key of this.graphs.keys()) if (!now.has(key)) changed.push({ graph: named(key), files: [] });
    this.graphs = now;
    return first ? [] : changed;
  }
}
