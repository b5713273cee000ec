import { readFile } from 'node:fs/promises';
import oxigraph from 'oxigraph';
import { alignmentGraphIri, instancePath } from '../rdf/iri.ts';
import { PREFIXES, RAVEL_NS, WEAVE_NS } from '../rdf/vocab.ts';
import { RDF } from '../rdf/terms.ts';

/**
 * Weave beside the repolex stack of today. The card's anchors stay `urn:soul:<soul>:Weave/…`;
 * ravel, which has taken over the transcript graph there, mints `https://repolex.ai/ravel/Turn/<id>`
 * from the same record uuid, and Soul's memory index points at those (`ravel:fromTurn`). The
 * alignment graph says which is which: `owl:sameAs` per turn, and the term axioms of
 * `ontology/alignment/ravel.ttl`. A federated query then joins a Weave turn with a Soul memory
 * by IRI, or with a Pool moment by IRI or by the `xsd:dateTime` time anchor.
 */

const RAVEL_TURN_BASE = 'https://repolex.ai/ravel/Turn/';
export const TERM_ALIGNMENT_FILE = new URL('../../ontology/alignment/ravel.ttl', import.meta.url);

const SAME_AS = `${PREFIXES.owl}sameAs`;
const TYPE = `${RDF}type`;
const TURN = `${WEAVE_NS}Turn`;
/** ravel refuses any other event id rather than mangle it (src/project.rs, validate_event_id). */
const RAVEL_ID = /^[A-Za-z0-9._-]+$/;

export { alignmentGraphIri, RAVEL_NS };

/** ravel's IRI for a Weave turn IRI, or undefined when it is not one or ravel could not mint it. */
export function ravelTurnIri(weaveTurnIri: string): string | undefined {
  const path = instancePath(weaveTurnIri);
  if (!path?.startsWith('Turn/')) return undefined;
  const id = path.slice('Turn/'.length);
  return RAVEL_ID.test(id) ? RAVEL_TURN_BASE + id : undefined;
}

/** `<turn> owl:sameAs <ravel turn> <graph> .` for one turn, or '' when ravel has no IRI for it. */
export function sameAsLine(weaveTurnIri: string, graph: string): string {
  const ravel = ravelTurnIri(weaveTurnIri);
  return ravel ? `<${weaveTurnIri}> <${SAME_AS}> <${ravel}> <${graph}> .\n` : '';
}

/** Adds the alignment graph to an open store: the term axioms, and owl:sameAs for every turn it holds. */
export async function loadAlignment(store: oxigraph.Store, soul: string): Promise<void> {
  store.load(await readFile(TERM_ALIGNMENT_FILE, 'utf8'), {
    format: 'text/turtle',
    to_graph_name: oxigraph.namedNode(alignmentGraphIri(soul)),
  });
  alignTurns(store, soul);
}

/**
 * owl:sameAs for the turns of one graph (a session graph just loaded), or of the whole store.
 * Links are only ever added: a turn's IRIs do not change, and a dropped session's turns keep
 * theirs until the store is opened again. Returns how many links were new, so a caller keeping
 * the store's size need not count the whole store again.
 */
export function alignTurns(store: oxigraph.Store, soul: string, graph?: string): number {
  const alignment = oxigraph.namedNode(alignmentGraphIri(soul));
  const sameAs = oxigraph.namedNode(SAME_AS);
  const turns = new Set(
    store
      .match(null, oxigraph.namedNode(TYPE), oxigraph.namedNode(TURN), graph ? oxigraph.namedNode(graph) : null)
      .map((q) => q.subject.value),
  );
  let added = 0;
  let lines = '';
  for (const turn of turns) {
    const ravel = ravelTurnIri(turn);
    if (!ravel || store.has(oxigraph.quad(oxigraph.namedNode(turn), sameAs, oxigraph.namedNode(ravel), alignment))) continue;
    lines += sameAsLine(turn, alignment.value);
    added++;
  }
  if (lines) store.load(lines, { format: 'application/n-quads', no_transaction: true });
  return added;
}
