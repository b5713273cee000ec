import { statSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FILE } from '../store/layout.ts';
import { filesOf, readManifest, type Manifest } from '../store/manifest.ts';
import type { ChangedGraph } from './messages.ts';

/**
 * A server that does not write its store (no ingest, no writes over HTTP) follows whoever does:
 * a `weave ingest` run beside it. Before a request is answered the manifest is looked at (one
 * stat); when it has changed, every graph it names differently from the last one seen is handed
 * to the workers to load again (or to drop, when it is gone), so the answer is the store's as it
 * is now, the same as a command opening the store itself would give.
 */
export class StoreFollower {
  private seen: { key: string; graphs: Manifest['graphs'] } | undefined;
  private pending: Promise<void> | undefined;
  private readonly manifestPath: string;

  constructor(
    private readonly storeDir: string,
    private readonly onChanged: (graphs: ChangedGraph[]) => void,
  ) {
    this.manifestPath = join(storeDir, MANIFEST_FILE);
  }

  /** The manifest as the workers are about to open it: what later changes are told against. */
  async start(): Promise<void> {
    const key = this.key();
    const manifest = await readManifest(this.storeDir).catch(() => undefined);
    this.seen = { key, graphs: manifest?.graphs ?? {} };
  }

  /**
   * Brings the workers up to the manifest on disk, if it moved; concurrent callers share one look.
   * Nothing to wait for (undefined) when it has not: the usual case, asked before every request.
   */
  check(): Promise<void> | undefined {
    if (this.pending) return this.pending;
    if (!this.seen) return undefined;
    const key = this.key();
    if (key === this.seen.key) return undefined;
    this.pending = this.follow(key).finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async follow(key: string): Promise<void> {
    // A manifest being replaced or damaged is left for the next request (readManifest says why).
    const manifest = await readManifest(this.storeDir).catch(() => undefined);
    if (!manifest) return;
    const changed = changedGraphs(this.seen!.graphs, manifest.graphs);
    this.seen = { key, graphs: manifest.graphs };
    if (changed.length) this.onChanged(changed);
  }

  /**
   * The manifest's identity on disk: it is replaced by rename, so a new write is a new inode, time
   * or size. A synchronous stat (microseconds): asked before every request, an asynchronous one
   * cost each a round trip through libuv's thread pool, most of a point query's time.
   */
  private key(): string {
    try {
      const s = statSync(this.manifestPath, { throwIfNoEntry: false });
      return s ? `${s.ino} ${s.mtimeMs} ${s.size}` : 'none';
    } catch {
      return 'none';
    }
  }
}

/** The graphs whose files differ between two manifests: their files now, or none when they are gone. */
export function changedGraphs(before: Manifest['graphs'], after: Manifest['graphs']): ChangedGraph[] {
  const changed: ChangedGraph[] = [];
  const files = (entry: Manifest['graphs'][string] | undefined) => (entry ? JSON.stringify(filesOf(entry)) : '');
  for (const graph of new Set([...Object.keys(before), ...Object.keys(after)]))
    if (files(before[graph]) !== files(after[graph])) changed.push({ graph, files: after[graph] ? filesOf(after[graph]) : [] });
  return changed;
}
