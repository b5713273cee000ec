import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfThere, writeFileAtomically } from '../atomic.ts';
import { SENDING_FILE } from '../layout.ts';
import { DEFAULT_GRAPH_KEY, readGraphBytes, type GraphEntry } from '../manifest.ts';
import type { GraphMirror, OnSent } from '../mirror.ts';
import type { VirtuosoLoader } from './bulk.ts';
import type { RemoteStore } from './client.ts';

/**
 * Graphs gathered for an external store with a bulk loader: the writer's puts and removals wait
 * until its next manifest write (`settle`), then go in one bulk load when there are many and by
 * the Graph Store Protocol when there are few (a live change, a session carried on). Only the
 * latest version of a graph put twice meanwhile is sent.
 *
 * A bulk load clears its graphs before it adds them, so a load cut off (a kill, the store
 * failing) leaves them in no known state. Before it begins, their names are written to a journal
 * in the store directory; the next writer to open the store sends each again at the version its
 * manifest names (or clears it, where the manifest names none), before anything else.
 */

/** Fewer graphs than this go by the Graph Store Protocol: a bulk load's fixed cost (isql, a checkpoint) is more than their PUTs. */
export const BULK_FROM = 16;
/** The graphs a bulk load gathers before the writer writes its manifest (and so before it is sent). */
export const BULK_BATCH = 256;

type Read = () => Promise<Buffer>;

export async function gatheredMirror(
  remote: RemoteStore,
  loader: VirtuosoLoader,
  dir: string,
  graphs: Readonly<Record<string, GraphEntry>>,
  onSent?: OnSent,
): Promise<GraphMirror> {
  const puts = new Map<string, Read>();
  const removals = new Set<string>();
  const journal = join(dir, SENDING_FILE);
  const batch = loader.config.batch ?? BULK_BATCH;
  // A batch smaller than BULK_FROM (a test's) still goes by the bulk loader.
  const bulkFrom = Math.min(BULK_FROM, batch);
  const name = (graph: string) => (graph === DEFAULT_GRAPH_KEY ? null : graph);
  /**
   * What a load under way sends: gathered still (a failure sends it again), but no longer waiting
   * for a load; `left` counts those not put or removed again since (a count, not a scan: the
   * writer asks after every graph).
   */
  let underWay: { sending: ReadonlyMap<string, Read>; clearing: ReadonlySet<string>; left: number } | undefined;

  const settle = async () => {
    if (!puts.size && !removals.size) return;
    const sending = [...puts];
    const clearing = [...removals];
    underWay = { sending: new Map(sending), clearing: new Set(clearing), left: sending.length + clearing.length };
    try {
      await send(sending, clearing);
      // What was sent is held there now: a later failure leaves only what was gathered since.
      for (const [graph, read] of sending) if (puts.get(graph) === read) puts.delete(graph);
      for (const graph of clearing) if (!puts.has(graph)) removals.delete(graph);
    } finally {
      underWay = undefined;
    }
    await rm(journal, { force: true });
  };

  /** A graph put or removed again while a load sends it: its new version waits for the next load. */
  const changedUnderWay = (graph: string, put: boolean) => {
    if (!underWay) return;
    if (puts.has(graph) && underWay.sending.get(graph) === puts.get(graph)) underWay.left--;
    else if (put && removals.has(graph) && underWay.clearing.has(graph)) underWay.left--;
  };

  const send = async (sending: [string, Read][], clearing: string[]) => {
    // The default graph (when a store has one) has no IRI for the loader to clear: it goes by PUT.
    const bulk = sending.filter(([graph]) => graph !== DEFAULT_GRAPH_KEY);
    if (bulk.length >= bulkFrom) {
      await writeFileAtomically(journal, `${JSON.stringify({ graphs: [...bulk.map(([g]) => g), ...clearing] })}\n`);
      await loader.load(
        bulk.map(([graph, read]) => ({ graph, read })),
        clearing.filter((g) => g !== DEFAULT_GRAPH_KEY),
      );
      onSent?.(bulk.length, true);
      for (const [graph, read] of sending) if (graph === DEFAULT_GRAPH_KEY) await remote.putGraph(null, await read());
      if (clearing.includes(DEFAULT_GRAPH_KEY)) await remote.deleteGraph(null);
    } else {
      for (const [graph, read] of sending) await remote.putGraph(name(graph), await read());
      for (const graph of clearing) await remote.deleteGraph(name(graph));
    }
    const put = sending.length - (bulk.length >= bulkFrom ? bulk.length : 0);
    if (put) onSent?.(put, false);
  };

  const mirror: GraphMirror = {
    batch,
    put: async (graph, read) => {
      changedUnderWay(graph, true);
      removals.delete(graph);
      puts.set(graph, read);
    },
    remove: async (graph) => {
      changedUnderWay(graph, false);
      puts.delete(graph);
      removals.add(graph);
    },
    settle,
    // Only what no load is sending yet: counting a load's own graphs, the writer waited out every
    // load as soon as it began, where it can read on and gather the next batch meanwhile.
    gathered: () => puts.size + removals.size - (underWay?.left ?? 0),
  };

  // A bulk load cut off: its graphs again, as the manifest names them.
  await loader.sweep();
  const cut = await readJournal(journal);
  if (cut) {
    for (const graph of cut) {
      const entry = graphs[graph];
      if (entry) await mirror.put(graph, () => readGraphBytes(dir, entry));
      else await mirror.remove(graph);
    }
    // The journal stays until they are all sent, by either way.
    await settle();
  }
  return mirror;
}

async function readJournal(path: string): Promise<string[] | undefined> {
  const text = await readTextIfThere(path);
  if (text === undefined) return undefined;
  try {
    const json = JSON.parse(text) as { graphs?: unknown };
    if (Array.isArray(json.graphs) && json.graphs.every((g) => typeof g === 'string')) return json.graphs;
  } catch {
    // fall through
  }
  throw new Error(`${path}: not a journal of graphs being sent (a list of graph names); remove it and run weave ingest --force`);
}
