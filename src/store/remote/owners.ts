import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionGraphIri, soulOfSessionGraph } from '../../rdf/iri.ts';
import type { Manifest } from '../manifest.ts';
import type { StoreWriter } from '../writer.ts';
import type { RemoteStore } from './client.ts';
import { SessionCopies } from './copies.ts';
import { rowsOf } from './results.ts';

/**
 * Whose a session is in a store several machines feed. A session copied to two machines (the
 * same session id) is one session: the machine that finds it already held there under another
 * soul does not add a second copy. Asked once per ingest for the sessions new to this machine,
 * a batch of ids at a time.
 */

const BATCH = 200;

/** A session as another soul holds it: that soul, and how many bytes of each transcript it read (by path from the session's id on). */
export interface HeldCopy {
  soul: string;
  bytes: Map<string, number>;
}

/** A transcript's path from its session's id on (`<id>.jsonl`, `<id>/subagents/…`): the same on every machine. */
export function pathInSession(path: string, sessionId: string): string {
  const at = path.lastIndexOf(`/${sessionId}`);
  return at >= 0 ? path.slice(at + 1) : path;
}

/**
 * Of `sessionIds`, those whose session graph the external store holds under a soul other than
 * `soul`: id → that copy. Two other souls holding one (both read it, or one read more of it): the
 * one read furthest, then the first by graph name (copies.ts), which covers most of this one's.
 */
export async function heldElsewhere(remote: RemoteStore, soul: string, sessionIds: readonly string[]): Promise<Map<string, HeldCopy>> {
  const copies = new SessionCopies<string>();
  const ids = [...new Set(sessionIds)];
  for (let at = 0; at < ids.length; at += BATCH) {
    const values = ids
      .slice(at, at + BATCH)
      .map((id) => JSON.stringify(id))
      .join(' ');
    const answer = await remote.query(
      `SELECT DISTINCT ?g ?id ?path ?bytes WHERE { VALUES ?id { ${values} } GRAPH ?g { ?t weave:sessionId ?id ; weave:sourcePath ?path OPTIONAL { ?t weave:byteLength ?bytes } } }`,
      ['application/sparql-results+json'],
    );
    for (const row of rowsOf(new TextDecoder().decode(answer.body))) {
      const graph = row.g ?? '';
      const id = row.id ?? '';
      // Only a session's own graph is its copy: a reader's graph or a fork's names the id too.
      const other = soulOfSessionGraph(graph, id);
      if (!other || other === soul) continue;
      copies.add(id, graph, () => other, row.path && pathInSession(row.path, id), Number(row.bytes ?? 0));
    }
  }
  return new Map([...copies.preferred()].map(([id, { data, read }]) => [id, { soul: data, bytes: read }]));
}

/** A session this machine found and left out, with the soul holding it and its files here. */
export interface HeldSession {
  sessionId: string;
  soul: string;
  paths: string[];
}

/** The store file naming the sessions held under another soul, so `weave status` counts their files as no one's pending lines. */
export const HELD_NAME = 'held';
const HELD_FILE = 'held.json';

/** The sessions the store in `dir` has left to other souls, as its last ingests found them. */
export async function readHeld(dir: string, manifest: Readonly<Manifest>): Promise<HeldSession[]> {
  const entry = manifest.files?.[HELD_NAME];
  if (!entry) return [];
  const path = join(dir, entry.file);
  try {
    return (JSON.parse(await readFile(path, 'utf8')) as { held: HeldSession[] }).held;
  } catch (e) {
    throw new Error(`${path}: cannot be read as the sessions held under other souls (${(e as Error).message})`);
  }
}

/**
 * Records this run's sessions held elsewhere beside those recorded before: an earlier record
 * stays unless the session was found again in this run or is now this store's own.
 */
export async function recordHeld(writer: StoreWriter, found: ReadonlySet<string>, held: HeldSession[]): Promise<void> {
  const before = await readHeld(writer.dir, writer.manifest);
  const mine = (id: string) => !!writer.manifest.graphs[sessionGraphIri(writer.soul, id)];
  const kept = [...before.filter((h) => !found.has(h.sessionId) && !mine(h.sessionId)), ...held].sort((x, y) =>
    x.sessionId.localeCompare(y.sessionId),
  );
  if (JSON.stringify(kept) === JSON.stringify(before)) return;
  if (kept.length) await writer.writeFile(HELD_NAME, HELD_FILE, `${JSON.stringify({ held: kept })}\n`);
  else await writer.removeFile(HELD_NAME);
}
