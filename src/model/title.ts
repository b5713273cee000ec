import { soulOfSessionGraph } from '../rdf/iri.ts';
import { sessionTitlePattern } from './session-title.ts';
import { preferredCopy } from '../store/remote/copies.ts';
/**
 * The session's title as `weave conversation` heads it: the weave:title of its main transcript
 * (a sub-agent's transcript has a title of its own, the session's only when its main file is
 * absent: session-title.ts), the largest of them, as the lists take it.
 */
export const sessionTitleQuery = (graph: string) =>
  `SELECT ?title WHERE { GRAPH <${graph}> { ${sessionTitlePattern('?t', '?title')} } } ORDER BY DESC(?title) LIMIT 1`;

/** A session id as ingest writes them (a UUID, maybe `~` and a hash): nothing else reaches a query. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$/;

/**
 * The sessions whose id begins `given` in a whole store (several machines may have written it),
 * each with its graph and title. `given` must pass SESSION_ID: it is written inside a literal.
 */
export const sessionsNamedQuery = (given: string) => `SELECT ?id ?g (MAX(COALESCE(?name, "")) AS ?title) (SUM(?length) AS ?bytes) WHERE {
  GRAPH ?g {
    ?s a weave:Session ; dcterms:identifier ?id FILTER(STRSTARTS(?id, "${given}"))
    # A row per transcript, with the bytes it read: how far the copy was read, for a choice between copies.
    ?t weave:sessionId ?id .
    OPTIONAL { ?t weave:byteLength ?read }
    # A sub-agent's row has no title of its session's: "" (none), where a MAX over an unbound is unbound.
    OPTIONAL { ?t weave:sessionId ?id . ${sessionTitlePattern('?t', '?name')} }
    BIND(COALESCE(?read, 0) AS ?length)
  }
} GROUP BY ?id ?g ORDER BY ?id LIMIT 50`;

/** A session sessionsNamedQuery found: its id, its own graph, the soul that wrote it, its title, the bytes its transcripts read. */
export interface NamedSession {
  id: string;
  graph: string;
  soul: string;
  title?: string;
  bytes: number;
}

/**
 * The sessions `given` names among sessionsNamedQuery's rows: the one with exactly that id, else
 * every one it begins. A session's own graph only: its node is stated nowhere else, but a copy
 * would list it twice; in a store several machines feed, that graph is under the soul of the
 * machine that wrote it. Where two machines hold that id (both read the session, or one read
 * more of it), it names one copy: the asking machine's (`own` soul), as its files and its search
 * have it, else the one read furthest, then the first by graph name (store/remote/copies.ts), the
 * one a third machine's search indexes (search/others.ts).
 */
export function sessionsNamed(rows: Record<string, string>[], given: string, own?: string): NamedSession[] {
  const sessions = rows.flatMap((r) => {
    const soul = soulOfSessionGraph(r.g, r.id);
    if (soul === undefined) return [];
    return [{ id: r.id, graph: r.g, soul, ...(r.title ? { title: r.title } : {}), bytes: Number(r.bytes ?? 0) }];
  });
  const exact = sessions.filter((s) => s.id === given);
  const named = exact.length ? exact : sessions;
  if (named.length < 2 || named.some((s) => s.id !== named[0].id)) return named;
  return [named.find((s) => s.soul === own) ?? preferredCopy(named)];
}
