import type { DatasetStats } from '../messages.ts';

/**
 * Dataset statistics (VoID, the service description), computed by a worker and kept until the
 * store changes, and at least ten seconds while sessions keep landing: they cost seconds of a
 * worker's time on a large store.
 */
export class StatsCache {
  private generation = 0;
  private cached?: { generation: number; at: number; stats: DatasetStats };
  private inflight?: Promise<DatasetStats>;

  constructor(
    private readonly compute: () => Promise<DatasetStats>,
    private readonly minAgeMs = 10_000,
  ) {}

  invalidate(): void {
    this.generation++;
  }

  /** The last figures, without waiting (undefined before the first computation). */
  peek(): DatasetStats | undefined {
    return this.cached?.stats;
  }

  async get(): Promise<DatasetStats> {
    const c = this.cached;
    if (c && (c.generation === this.generation || performance.now() - c.at < this.minAgeMs)) return c.stats;
    if (!this.inflight) {
      const generation = this.generation;
      this.inflight = this.compute()
        .then((stats) => {
          this.cached = { generation, at: performance.now(), stats };
          return stats;
        })
        .finally(() => (this.inflight = undefined));
    }
    return this.inflight;
  }
}
