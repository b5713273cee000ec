import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { noStore, readManifest } from './manifest.ts';
import { findServer } from './running.ts';

/**
 * The bundled fixtures' store: `weave serve` with no transcripts to read serves the fixtures from
 * a store of their own, never the user's. A command whose store is not there says where that one
 * is, and the server serving it, so a new user who ran `npm start` finds what it serves.
 */

export function fixturesStoreDir(): string {
  return join(tmpdir(), 'weave-fixtures-store');
}

/** The one line every command says of a store that is not there, and where the fixtures are, when they are served or stored. */
export async function noStoreLine(dir: string): Promise<string> {
  const fixtures = fixturesStoreDir();
  if (resolve(dir) === resolve(fixtures)) return noStore(dir);
  const server = await findServer(fixtures, { timeoutMs: 1000 });
  if (server) return `${noStore(dir)}; a weave serve of the bundled fixtures runs at ${server.url}: --store ${fixtures} asks it`;
  if (await readManifest(fixtures).catch(() => undefined))
    return `${noStore(dir)}; weave serve stored the bundled fixtures in ${fixtures}: --store ${fixtures} reads them`;
  return noStore(dir);
}
