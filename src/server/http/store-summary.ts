import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { alignmentGraphIri } from '../../rdf/iri.ts';
import { ONTOLOGY_GRAPH } from '../../rdf/vocab.ts';
import { DEFAULT_GRAPH_KEY, readManifest } from '../../store/manifest.ts';

/**
 * Graph and session counts for /status, the page and /metrics, read from the store's manifest
 * (again only when it changed on disk): cheap enough to answer every poll without asking a
 * worker, which may be busy loading sessions or running queries.
 */
export class StoreSummary {
  private cached?: { mtimeMs: number; graphs: number; sessions: number };

  constructor(private readonly dir: string) {}

  async get(): Promise<{ graphs: number; sessions: number }> {
    const mtimeMs = await stat(join(this.dir, 'manifest.json')).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (!this.cached || this.cached.mtimeMs !== mtimeMs) {
      const manifest = await readManifest(this.dir).catch(() => undefined);
      const entries = Object.entries(manifest?.graphs ?? {});
      // The named graphs a query sees, as VoID counts them: every graph the manifest names (the
      // workers load an empty one too) but the stored default graph, and the ontology's and the
      // alignment's, which every opened store holds beside them.
      const named = new Set(entries.filter(([name]) => name !== DEFAULT_GRAPH_KEY).map(([name]) => name));
      named.add(ONTOLOGY_GRAPH);
      named.add(alignmentGraphIri(manifest?.soul ?? 'local'));
      this.cached = { mtimeMs, graphs: named.size, sessions: new Set(entries.map(([, g]) => g.sessionId).filter(Boolean)).size };
    }
    return { graphs: this.cached.graphs, sessions: this.cached.sessions };
  }

  /** The last figures read, without waiting. */
  peek(): { graphs: number; sessions: number } {
    return { graphs: this.cached?.graphs ?? 0, sessions: this.cached?.sessions ?? 0 };
  }
}
