import { sessionFile, type Input, type SessionDerivation } from '../derive/derivation.ts';
import { UsageCollector, type SessionUsage } from './rows.ts';

/**
 * Usage as a prepared answer: each session's API calls (rows.ts) derived once from its graph and
 * kept as a small JSON file, so `weave usage` reads some kilobytes per session and sums them,
 * instead of loading every session graph into a store to ask SPARQL. Prices are not in the rows:
 * a call is priced when a report is made, so a new price table needs no ingest.
 */

const CALLS: Input<SessionUsage> = {
  name: 'usage rows',
  // The last fragment of a call moves as lines are appended: the rows are made from the whole graph.
  collect: () => {
    const collector = new UsageCollector();
    return { add: (s, p, o) => collector.triple(s, p, o), done: () => collector.done() };
  },
};

/** A session's usage rows in the manifest (`files`) and on disk. */
export function usageRowsOutput(sessionId: string): { file: string; path: string } {
  return sessionFile('usage/rows', sessionId);
}

export const usageRows: SessionDerivation<SessionUsage> = {
  name: 'usage/rows',
  // 2: a call's one-hour cache writes (ch); 3: a session whose main file is absent titled by a sub-agent.
  version: '3',
  description: "Each API call's model, time and token counts, and the transcripts holding it, for `weave usage` and the overview.",
  reads: CALLS,
  output: (_soul, sessionId) => usageRowsOutput(sessionId),
  derive: (usage) => ({ data: JSON.stringify(usage) }),
};
