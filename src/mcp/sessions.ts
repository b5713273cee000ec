import { findSession } from '../client/conversation.ts';
import { readManifest } from '../store/manifest.ts';

/** The session a tool was given (its id or a unique prefix of one), as `weave conversation` finds it: its graph and full id. */
export async function sessionNamed(storeDir: string, id: string): Promise<{ graph: string; session: string }> {
  const [graph, entry] = findSession(await readManifest(storeDir), id, storeDir);
  return { graph, session: entry.sessionId! };
}
