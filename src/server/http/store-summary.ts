import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { emitterNotice, emitterVersions } from '../../store/emitter.ts';
import { namedGraphs, readManifest } from '../../store/manifest.ts';

/**
 * Graph and session counts for /status, the page and /metrics, and each graph's quads, read from
 * the store's manifest (again only when it changed on disk): cheap enough to answer every poll
 * without asking a worker, which may be busy loading sessions or running queries.
 */
export class StoreSummary {
  private cached?: { mtimeMs: number; graphs: number; sessions: number; quads: Map<string, number>; built?: string };

  constructor(private readonly dir: string) {}

  async get(): Promise<{ graphs: number; sessions: number }> {
    const { graphs, sessions } = await this.read();
    return { graphs, sessions };
  }

  /** The store's emitter notice (store/emitter.ts): said when another Weave built its session graphs. */
  async built(): Promise<string | undefined> {
    return (await this.read()).built;
  }

  /** The quads the manifest counts in `graph`; undefined for a graph it does not name (another machine's, in a shared store). */
  async quadsOf(graph: string): Promise<number | undefined> {
    return (await this.read()).quads.get(graph);
  }

  private async read(): Promise<NonNullable<StoreSummary['cached']>> {
    const mtimeMs = await stat(join(this.dir, 'manifest.json')).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (!this.cached || this.cached.mtimeMs !== mtimeMs) {
      const manifest = await readManifest(this.dir).catch(() => undefined);
      const entries = Object.entries(manifest?.graphs ?? {});
      this.cached = {
        mtimeMs,
        graphs: namedGraphs(manifest).size,
        sessions: new Set(entries.map(([, g]) => g.sessionId).filter(Boolean)).size,
        quads: new Map(entries.map(([name, g]) => [name, g.quads])),
        built: emitterNotice(emitterVersions(manifest)),
      };
    }
    return this.cached;
  }

  /** The last figures read, without waiting. */
  peek(): { graphs: number; sessions: number } {
    return { graphs: this.cached?.graphs ?? 0, sessions: this.cached?.sessions ?? 0 };
  }
}
