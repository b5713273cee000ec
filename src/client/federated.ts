import { allowed, checkServices } from '../federation/allow.ts';
import type { FoundServer } from '../store/running.ts';

/**
 * Whether a running server answers a federated query as this command would run it: the server
 * runs the same engine (federation/engine.ts), so it gives the same answer when every endpoint
 * the query contacts is on both allow-lists, the command line's and the server's. Sources must
 * be URLs (the server reads no file, and takes no `sparql@`). Anything else runs here, where an
 * endpoint off the command line's list gets the command's own error.
 */
export function federatesAsHere(server: FoundServer, query: string, sources: readonly string[], allow: readonly string[]): boolean {
  const served = server.serviceAllow;
  if (!served?.length) return false;
  if (!sources.every((s) => /^https?:\/\//i.test(s) && allowed(s, served))) return false;
  try {
    checkServices(query, allow);
    checkServices(query, served);
    return true;
  } catch {
    // A variable endpoint, or one either list refuses: for the command to say, as it runs it.
    return false;
  }
}
