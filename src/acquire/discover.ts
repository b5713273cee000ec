import { stat } from 'node:fs/promises';
import type { Dialect, SessionSource, Unreadable } from '../dialect/dialect.ts';
import { DIALECTS } from '../dialect/index.ts';
import { transcriptsOf } from '../dialect/dialect.ts';
import { canonicalPath } from './files.ts';

/**
 * The sessions under `paths`, as each dialect finds its own, in dialect order; each session
 * carries the dialect that reads it. A file named by itself that no dialect reads is an error,
 * as is a session id two dialects both claim (they would share one graph).
 */
export async function discoverSessions(
  given: string[],
  dialects: readonly Dialect[] = DIALECTS,
  onProblem: (problem: Unreadable) => void = () => {},
): Promise<SessionSource[]> {
  // Every path in the form the store keys it by, whichever way it was named.
  const paths = await Promise.all(given.map(canonicalPath));
  const sessions: SessionSource[] = [];
  const owner = new Map<string, Dialect>();
  for (const dialect of dialects)
    for (const found of await dialect.discover(paths, onProblem)) {
      const other = owner.get(found.sessionId);
      if (other)
        throw new Error(`session ${found.sessionId} is found by both ${other.id} and ${dialect.id}; read them into separate stores`);
      owner.set(found.sessionId, dialect);
      sessions.push({ ...found, dialect });
    }
  const read = new Set(sessions.flatMap((s) => [...transcriptsOf(s).map((t) => t.path), ...s.journals]));
  for (const abs of paths) {
    if (!read.has(abs) && !(await stat(abs)).isDirectory())
      throw new Error(`${abs}: no dialect reads this file (known: ${dialects.map((d) => d.id).join(', ')})`);
  }
  return sessions;
}
