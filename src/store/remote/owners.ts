import { sessionGraphIri } from '../../rdf/iri.ts';
import type { RemoteStore } from './client.ts';

/**
 * Whose a session is in a store several machines feed. A session copied to two machines (the
 * same session id) is one session: the machine that finds it already held there under another
 * soul does not add a second copy. Asked once per ingest for the sessions new to this machine,
 * a batch of ids at a time.
 */

const BATCH = 200;

/** Of `sessionIds`, those whose session graph the external store holds under a soul other than `soul`: id → that soul. */
export async function heldElsewhere(remote: RemoteStore, soul: string, sessionIds: readonly string[]): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  const ids = [...new Set(sessionIds)];
  for (let at = 0; at < ids.length; at += BATCH) {
    const values = ids
      .slice(at, at + BATCH)
      .map((id) => JSON.stringify(id))
      .join(' ');
    const answer = await remote.query(`SELECT DISTINCT ?g ?id WHERE { VALUES ?id { ${values} } GRAPH ?g { ?t weave:sessionId ?id } }`, [
      'application/sparql-results+json',
    ]);
    const json = JSON.parse(new TextDecoder().decode(answer.body)) as { results?: { bindings: Record<string, { value: string }>[] } };
    for (const row of json.results?.bindings ?? []) {
      const graph = row.g?.value ?? '';
      const id = row.id?.value ?? '';
      const other = /^urn:soul:([^:]+):Weave\/graph\//.exec(graph)?.[1];
      // Only a session's own graph is its copy: a reader's graph or a fork's names the id too.
      if (other && other !== soul && graph === sessionGraphIri(other, id) && !(owners.get(id)! <= other)) owners.set(id, other);
    }
  }
  return owners;
}
