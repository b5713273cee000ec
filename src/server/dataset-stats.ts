import type { DatasetStats } from './messages.ts';
import { num, str, type Select } from './select.ts';

/**
 * The counts behind VoID and the service description, by SELECTs on whichever store answers: a
 * query worker's copy or an external store (seconds on a large store: the main thread caches
 * them, http/stats-cache.ts).
 */

/**
 * How the graph counts sessions: one per transcript read, VoID's `void:documents`. The one place
 * the server counts them in the graph (/status and /metrics read the manifest's session ids).
 * Every transcript of any dialect states its session id, and only transcripts do.
 */
export const SESSION_COUNT = 'SELECT (COUNT(DISTINCT ?id) AS ?n) WHERE { ?t weave:sessionId ?id }';

export async function datasetStats(select: Select, quads: number): Promise<DatasetStats> {
  const graphs = (await select('SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g', false))
    .filter((r) => r.g?.type === 'uri')
    .map((r) => ({ name: str(r.g), triples: num(r.n) }));
  const counted = new Set(graphs.map((g) => g.name));
  // Empty named graphs exist too.
  for (const r of await select('SELECT DISTINCT ?g WHERE { GRAPH ?g { } }', false))
    if (r.g?.type === 'uri' && !counted.has(str(r.g))) graphs.push({ name: str(r.g), triples: 0 });
  graphs.sort((a, b) => a.name.localeCompare(b.name));
  const one = async (q: string, union = true) => num((await select(q, union))[0]?.n);
  return {
    quads,
    defaultGraphTriples: await one('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', false),
    graphs,
    classes: (await select('SELECT ?c (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c ORDER BY DESC(?n) ?c'))
      .filter((r) => r.c?.type === 'uri')
      .map((r) => ({ iri: str(r.c), entities: num(r.n) })),
    properties: (await select('SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY DESC(?n) ?p')).map((r) => ({
      iri: str(r.p),
      triples: num(r.n),
    })),
    sessions: await one(SESSION_COUNT),
  };
}
