import { sessionGraphIri } from '../rdf/iri.ts';
import type { Manifest } from '../store/manifest.ts';
import { lockStore, openStoreForWriting } from '../store/writer.ts';
import type { Derivation } from './derivation.ts';
import { derivationLoop, type DeriveHooks, type DeriveReport } from './loop.ts';

/**
 * Derivations run on a store as it is, without reading sources: `weave detect` (the readers), a
 * search whose index lags. The same loop ingest runs, over the session graphs the store holds.
 */

export interface StoredOptions extends DeriveHooks {
  /** Session ids; default every session in the store. */
  sessions?: string[];
  /** Run on every session, current or not. */
  force?: boolean;
  /** Told when the store lock is taken over from a process that no longer runs. */
  onNote?: (note: string) => void;
  /** Called as each session is done (derived or current), for a progress line. */
  onProgress?: (done: number, total: number) => void;
}

export async function deriveStored(
  storeDir: string,
  soul: string,
  list: readonly Derivation[],
  options: StoredOptions = {},
): Promise<DeriveReport> {
  const lock = await lockStore(storeDir, { onNote: options.onNote });
  try {
    const writer = await openStoreForWriting(storeDir, soul);
    const loop = derivationLoop(writer, list, options);
    try {
      const sessions = sessionGraphs(writer.manifest, options.sessions);
      let done = 0;
      for (const session of sessions) {
        options.onProgress?.(done++, sessions.length);
        await loop.session(session);
      }
      options.onProgress?.(done, sessions.length);
      await loop.end(new Set());
    } finally {
      await writer.close();
    }
    return loop.report;
  } finally {
    await lock.release();
  }
}

/** The session graphs of the store (not reader graphs, nor anything else the manifest names). */
export function sessionGraphs(manifest: Manifest, wanted?: string[]) {
  const all = Object.entries(manifest.graphs)
    .filter(([graph, e]) => !e.reader && e.sessionId && graph === sessionGraphIri(manifest.soul, e.sessionId))
    .map(([graph, entry]) => ({ sessionId: entry.sessionId!, graph, entry }))
    .sort((a, b) => a.sessionId.localeCompare(b.sessionId));
  if (!wanted?.length) return all;
  const unknown = wanted.filter((id) => !all.some((s) => s.sessionId === id));
  if (unknown.length) throw new Error(`no session ${unknown.map((id) => `"${id}"`).join(', ')} in the store`);
  return all.filter((s) => wanted.includes(s.sessionId));
}
