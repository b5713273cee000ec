import { sep } from 'node:path';
import { transcriptsOf, type SessionSource } from '../dialect/dialect.ts';
import { sessionGraphIri } from '../rdf/iri.ts';
import type { GraphEntry, Manifest, SourceStamp } from '../store/manifest.ts';
import { foundSession, withGoneTranscripts } from './archived.ts';
import { stampOf } from './stamps.ts';
import { emitterOf, WEAVE } from '../store/emitter.ts';

/**
 * The sessions a run reads: those found on disk, with their files that Claude Code deleted put
 * back from the archive; the sessions of the store whose files under the folders read are all
 * gone (read once more from the archive, to mark them archived-only); and, for a rebuild, every
 * session the store holds, wherever its files are.
 */

export interface Planned {
  session: SessionSource;
  graph: string;
  /** The session's files as they are now; a gone file keeps the stamp it was read with, marked gone. */
  stamps: SourceStamp[];
}

export interface Plan {
  sessions: Planned[];
  /** Sessions with files gone that the archive does not hold: their graphs stay as they are. */
  unarchived: string[];
  /**
   * Graphs of sessions whose files all belong to other sessions now (a file that began before it
   * said its session, read as a session of its own): they go.
   */
  regrouped: string[];
}

export async function planSessions(
  discovered: SessionSource[],
  manifest: Readonly<Manifest>,
  storeDir: string,
  { roots, rebuild }: { roots: string[]; rebuild?: boolean },
): Promise<Plan> {
  const plan: Plan = { sessions: [], unarchived: [], regrouped: [] };
  const graphOf = (s: { sessionId: string }) => sessionGraphIri(manifest.soul, s.sessionId);
  const found = new Set(discovered.map(graphOf));
  const claimed = new Set(discovered.flatMap((s) => transcriptsOf(s).map((t) => t.path)));
  const add = async (session: SessionSource, entry: GraphEntry | undefined) => {
    const graph = graphOf(session);
    const stamps = await stampsOf(session, entry);
    if (stamps) plan.sessions.push({ session, graph, stamps });
    else plan.unarchived.push(session.sessionId);
  };

  for (const session of discovered) {
    const entry = manifest.graphs[graphOf(session)];
    // Only a session that lost a file since it was read needs the session as it was found.
    const now = new Set([...transcriptsOf(session).map((t) => t.path), ...session.journals]);
    const lost = (entry?.sources ?? []).some((s) => s.path.endsWith('.jsonl') && !now.has(s.path));
    const stored = lost && entry?.found ? await foundSession(storeDir, entry.found) : undefined;
    await add(stored ? withGoneTranscripts(session, stored, await goneOf(stored)) : session, entry);
  }
  for (const [graph, entry] of Object.entries(manifest.graphs)) {
    if (!entry.sessionId || entry.reader || found.has(graph) || graph !== sessionGraphIri(manifest.soul, entry.sessionId)) continue;
    const transcripts = (entry.sources ?? []).filter((s) => s.path.endsWith('.jsonl') && !s.gone);
    if (transcripts.length && transcripts.every((s) => claimed.has(s.path))) {
      plan.regrouped.push(graph);
      continue;
    }
    if (!rebuild && !(entry.sources ?? []).some((s) => roots.some((r) => s.path === r || s.path.startsWith(r.endsWith(sep) ? r : r + sep))))
      continue;
    // Read from the archive once already: a file back in its folder would have been found above.
    // Unless another Weave built its graph: every session is rebuilt by the next ingest then.
    if (!rebuild && entry.sources?.length && entry.sources.every((s) => s.gone) && emitterOf(entry.builtWith) === WEAVE) continue;
    const stored = entry.found ? await foundSession(storeDir, entry.found) : undefined;
    if (!stored) {
      // Nothing says how to read it again: with its files gone it stays as it is, and is counted.
      if ((await goneOfPaths((entry.sources ?? []).map((s) => s.path))).size) plan.unarchived.push(entry.sessionId);
      continue;
    }
    // Not found on disk: its files are gone (or, for a rebuild, outside the folders read).
    if (!rebuild && (await goneOf(stored)).size === 0) continue;
    await add(stored, entry);
  }
  return plan;
}

/** The transcripts and journals of a session that are gone from the disk. */
async function goneOf(session: SessionSource): Promise<Set<string>> {
  return goneOfPaths([...transcriptsOf(session).flatMap((t) => (t.metaPath ? [t.path, t.metaPath] : [t.path])), ...session.journals]);
}

async function goneOfPaths(paths: string[]): Promise<Set<string>> {
  const gone = new Set<string>();
  for (const path of paths) if (!(await stampOf(path))) gone.add(path);
  return gone;
}

/**
 * Every file of a session as it is now. A gone file keeps its last stamp, marked gone, when the
 * archive holds it; when it does not, the session cannot be read again (undefined).
 */
async function stampsOf(session: SessionSource, entry: GraphEntry | undefined): Promise<SourceStamp[] | undefined> {
  const paths = [...transcriptsOf(session).flatMap((t) => (t.metaPath ? [t.path, t.metaPath] : [t.path])), ...session.journals];
  const stamps: SourceStamp[] = [];
  for (const path of paths) {
    const now = await stampOf(path);
    if (now) {
      stamps.push(now);
      continue;
    }
    const before = entry?.sources?.find((s) => s.path === path);
    if (!before?.archive) return undefined;
    stamps.push({ ...before, gone: true });
  }
  return stamps;
}
