import { resolve } from 'node:path';
import type { StoreDerivation } from '../derive/derivation.ts';
import { stampOf } from '../derive/derivation.ts';
import { soulOfSessionGraph } from '../rdf/iri.ts';
import { ntTerm } from '../query/solutions.ts';
import type { JsonResults } from '../query/table.ts';
import { parseQuadLine } from '../rdf/nquads.ts';
import type { SourceStamp } from '../store/manifest.ts';
import { sessionsHere } from '../store/manifest.ts';
import { CONCURRENT_QUERIES, QUERYABLE_IRI, RemoteStore, RemoteStoreError } from '../store/remote/client.ts';
import { readRemoteConfig } from '../store/remote/config.ts';
import { preferredCopies } from '../store/remote/copies.ts';
import { externalQueries, selectRows } from '../store/queries.ts';
import { DocCollector, documentTriples } from './docs.ts';
import { documentsOutput, documentsText } from './index.ts';
import { OTHERS_DOCUMENTS } from './request.ts';

/**
 * The sessions other machines wrote into an external store, searched from this one: their
 * documents are made from their graphs as the store holds them (a Graph Store GET, N-Triples),
 * the same way as this machine's own are made from its graph files, and written beside them, so
 * the index (search/index, run after this) holds every session of the store.
 *
 * A graph's version is what its transcripts say of themselves (their bytes and lines, summed),
 * asked of the store in one query per run: a session that grew on its machine is fetched again;
 * one rebuilt there from the same transcripts (a new Weave) is not, its texts being the same.
 * A session this machine holds a graph of is its own, whoever else holds one.
 */

const VERSIONS = `SELECT ?g ?id (SUM(?bytes) AS ?size) (SUM(?lines) AS ?count) WHERE {
  GRAPH ?g { ?t weave:sessionId ?id ; weave:byteLength ?bytes ; weave:lineCount ?lines }
} GROUP BY ?g ?id`;

/**
 * A live pass (weave serve, ingest --watch) asks the store for other machines' sessions at most
 * this often: a pass comes every few seconds, and the question costs the store a look at every
 * session graph (0.56 s at 22 M quads). Every other run asks.
 */
export const OTHERS_EVERY_MS = 60_000;

/** When this process last asked each external store (by store directory) for other machines' sessions. */
const asked = new Map<string, number>();

/** Whether a run asks the store in `dir` now: any run that is not live, a live one a minute after the last ask. */
export function othersDue(dir: string, live: boolean, now = Date.now()): boolean {
  const at = asked.get(resolve(dir));
  return !live || at === undefined || now - at >= OTHERS_EVERY_MS;
}

/** Notes that this process asked the store in `dir` now. */
export function othersAsked(dir: string, now = Date.now()): void {
  asked.set(resolve(dir), now);
}

export interface OthersSession {
  graph: string;
  sessionId: string;
  stamp: SourceStamp;
}

export const othersDocuments: StoreDerivation = {
  name: OTHERS_DOCUMENTS,
  version: '1',
  description: "In an external store several machines feed: the search documents of other machines' sessions, from their graphs there.",
  reads: 'store',
  derive: async (run) => {
    const config = await readRemoteConfig(run.writer.dir);
    if (!config || !othersDue(run.writer.dir, run.live)) return { wrote: false };
    const remote = new RemoteStore(config);
    const builtWith = stampOf(othersDocuments);
    const mine = sessionsHere(run.writer.manifest);
    const others = await sessionsOfOthers(remote, run.soul, mine);
    othersAsked(run.writer.dir);
    const stale = others.filter((other) => {
      const was = run.writer.manifest.files?.[documentsOutput(other.sessionId).file];
      return was?.builtWith !== builtWith || JSON.stringify(was.sources?.[0]) !== JSON.stringify(other.stamp);
    });
    // Fetched as many at once as the store is asked queries, and written in turn.
    for (let at = 0; at < stale.length; at += CONCURRENT_QUERIES) {
      const batch = stale.slice(at, at + CONCURRENT_QUERIES);
      const made = await Promise.all(batch.map((other) => documentsOf(remote, other)));
      for (const [i, other] of batch.entries()) {
        const output = documentsOutput(other.sessionId);
        await run.writer.writeFile(output.file, output.path, made[i], { sessionId: other.sessionId, builtWith, sources: [other.stamp] });
      }
    }
    let wrote = stale.length > 0;
    // Documents of a session no other machine holds now (deleted there, or now this machine's own).
    const now = new Set(others.map((o) => o.sessionId));
    for (const [name, entry] of Object.entries(run.writer.manifest.files ?? {}))
      if (entry.builtWith === builtWith && entry.sessionId && !now.has(entry.sessionId) && !mine.has(entry.sessionId)) {
        await run.writer.removeFile(name);
        wrote = true;
      }
    return { wrote };
  },
};

/** Every session graph in the store under a soul other than `soul`, with its version, but for the sessions held here (`mine`). */
export async function sessionsOfOthers(remote: RemoteStore, soul: string, mine: Set<string>): Promise<OthersSession[]> {
  const found: OthersSession[] = [];
  for (const row of await selectRows(externalQueries(remote), VERSIONS)) {
    // Only a session's own graph is its copy: a reader's graph or a fork's names the id too.
    const owner = soulOfSessionGraph(row.g ?? '', row.id ?? '');
    if (!owner || owner === soul) continue;
    found.push({
      graph: row.g,
      sessionId: row.id,
      stamp: { path: row.g, size: Number(row.size ?? 0), mtimeMs: 0, lines: Number(row.count ?? 0) },
    });
  }
  // Two other souls holding one session (both read it, or one read more of it): the one read furthest.
  const preferred = preferredCopies(found.map((other) => ({ ...other, bytes: other.stamp.size })));
  return [...preferred.values()].filter((o) => !mine.has(o.sessionId)).map(({ graph, sessionId, stamp }) => ({ graph, sessionId, stamp }));
}

/**
 * One other machine's session as search documents, each triple the documents read handed to the
 * collector, asked for by a SELECT. A store that cuts answers at a number of rows (Virtuoso's
 * ResultSetMaxRows, 10,000 in a stock virtuoso.ini) cuts a Graph Store GET or a CONSTRUCT without
 * a word; a cut SELECT says so, and is asked again in parts that fit. (About as long as the Graph Store
 * GET it replaces took, for the corpus: a fifth of the graph, but in JSON.)
 */
export async function documentsOf(remote: RemoteStore, other: OthersSession): Promise<Iterable<string>> {
  const collector = new DocCollector(other.sessionId);
  if (QUERYABLE_IRI.test(other.graph)) await eachDocumentTriple(remote, other.graph, (s, p, o) => collector.triple(s, p, o));
  else {
    const answer = await remote.getGraph(other.graph, 'application/n-triples');
    for (const line of new TextDecoder().decode(answer.body).split('\n')) {
      const quad = parseQuadLine(line);
      if (quad) collector.triple(quad.s, quad.p, quad.o);
    }
  }
  const title = collector.title();
  return documentsText({ ...(title === undefined ? {} : { title }), docs: collector.docs() });
}

/**
 * The triples of `graph` the documents read, to `each`; an answer the store cut is asked again in
 * sixteen parts by the MD5 of the subject, and so on down (no row of a cut answer is used, so
 * none is handed on twice). Parts, not pages: an ORDER BY to page over is itself capped (Virtuoso's
 * MaxSortedTopRows, 10,000 unless its [Parameters] say more).
 */
async function eachDocumentTriple(
  remote: RemoteStore,
  graph: string,
  each: (s: string, p: string, o: string) => void,
  part = '',
): Promise<void> {
  const filter = part ? ` FILTER(STRSTARTS(MD5(STR(?s)), "${part}"))` : '';
  let body: Uint8Array;
  try {
    ({ body } = await remote.query(`SELECT ?s ?p ?o WHERE { ${documentTriples(graph)}${filter} }`, ['application/sparql-results+json']));
  } catch (e) {
    if (!(e instanceof RemoteStoreError && e.cutAt !== undefined) || part.length >= MAX_PART) throw e;
    for (const digit of '0123456789abcdef') await eachDocumentTriple(remote, graph, each, part + digit);
    return;
  }
  const results = JSON.parse(new TextDecoder().decode(body)) as JsonResults;
  for (const row of results.results?.bindings ?? []) each(ntTerm(row.s, '1.2'), ntTerm(row.p, '1.2'), ntTerm(row.o, '1.2'));
}

/** Parts of parts this deep at most: 65,536 parts, past a billion rows at a stock Virtuoso's 10,000. */
const MAX_PART = 4;
