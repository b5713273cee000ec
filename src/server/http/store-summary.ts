import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readManifest } from '../../store/manifest.ts';

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
      const graphs = Object.values((await readManifest(this.dir).catch(() => undefined))?.graphs ?? {});
      this.cached = { mtimeMs, graphs: graphs.length, sessions: new Set(graphs.map((g) => g.sessionId).filter(Boolean)).size };
    }
    return { graphs: this.cached.graphs, sessions: this.cached.sessions };
  }

  /** The last figures read, without waiting. */
  peek(): { graphs: number; sessions: number } {
    return { graphs: this.cached?.graphs ?? 0, sessions: this.cached?.sessions ?? 0 };
  }
}
