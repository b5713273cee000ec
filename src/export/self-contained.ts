import { readFile } from 'node:fs/promises';
import { alignmentGraphIri, sameAsLine, TERM_ALIGNMENT_FILE } from '../align/ravel.ts';
import { parseQuadLine, type QuadText, quadLine } from '../rdf/nquads.ts';
import { ONTOLOGY_GRAPH, WEAVE_NS, weave } from '../rdf/vocab.ts';
import { ONTOLOGY_FILE } from '../store/ontology.ts';
import { ENVELOPE_PROPERTIES } from '../emit/defaults.ts';
import type { ExportPlan } from './graphs.ts';
import { type Chunk, turtleAsNQuads, typedTurns } from './read.ts';

/**
 * A self-contained export: what its statements need to answer in Jena, Virtuoso or rdflib as
 * they do in Weave, added to the store's lines (which stay as they are, so queries written for
 * the lean graph answer too):
 *
 * - each record's envelope values, which the graph states once on the transcript and a record
 *   only where it differs or `weave:lacks` it (src/emit/defaults.ts): `<event> weave:cwd "…"`,
 *   the rows `queries/record-envelope.rq` answers, in the record's graph;
 * - the ontology's statements of every weave: term the export names (turnRole, subClassOf,
 *   domain, range…), in the ontology's graph, when the ontology is not exported whole;
 * - the owl:sameAs of its turns to ravel's IRIs, and the term axioms of
 *   `ontology/alignment/ravel.ttl` that name its terms, in the alignment graph, when that is not
 *   exported whole.
 *
 * Streamed like the export: a graph's envelope is worked out from its own lines (a session
 * graph is bounded) after its last chunk; only the terms and the aligned turns are kept
 * across graphs.
 */

/** The envelope properties as the quads read here spell them (text). */
const ENVELOPE: ReadonlySet<string> = ENVELOPE_PROPERTIES;

/** What follows the subject on the lines a graph's envelope is worked out from. */
const ENVELOPE_LINES = [weave.sessionId, weave.hasEvent, weave.lacks, ...ENVELOPE].map((p) => Buffer.from(`> ${p} `));
const WEAVE_IRI = Buffer.from(`<${WEAVE_NS}`);
const NL = 0x0a;
const GT = 0x3e;

/** `chunks` as they come, each graph's additions after its last chunk, and the terms' at the end. */
export async function* selfContained(chunks: AsyncIterable<Chunk>, plan: ExportPlan): AsyncGenerator<Chunk> {
  const alignment = plan.alignmentGraph ? undefined : alignmentGraphIri(plan.soul);
  const describe = !plan.sources.some((s) => s.graph === ONTOLOGY_GRAPH);
  const terms = new Set<string>();
  const aligned = new Set<string>();
  let graph: string | undefined;
  let facts: QuadText[] = [];
  let turns: string[] = [];

  function* afterGraph(): Generator<Chunk> {
    const values = envelopeValues(facts);
    if (values.length) yield { bytes: Buffer.from(values.map(quadLine).join('')), graph };
    if (alignment && turns.length)
      yield { bytes: Buffer.from(turns.map((t) => sameAsLine(t, alignment)).join('')), graph: `<${alignment}>` };
    facts = [];
    turns = [];
  }

  // The export's own alignment lines come after each graph file, also between a session's spine and derived part.
  const interleaved = plan.alignmentGraph && `<${plan.alignmentGraph}>`;
  for await (const chunk of chunks) {
    if (chunk.graph !== graph && chunk.graph !== interleaved) {
      yield* afterGraph();
      graph = chunk.graph;
    }
    yield chunk;
    if (describe || alignment) termsIn(chunk.bytes, terms);
    if (chunk.graph !== graph) continue;
    facts.push(...envelopeFacts(chunk.bytes));
    if (alignment)
      for (const turn of typedTurns(chunk.bytes))
        if (!aligned.has(turn)) {
          aligned.add(turn);
          turns.push(turn);
        }
  }
  yield* afterGraph();

  if (describe) {
    const statements = termStatements(await turtleQuads(ONTOLOGY_FILE, ONTOLOGY_GRAPH), terms);
    if (statements.length) yield { bytes: Buffer.from(statements.map(quadLine).join('')), graph: `<${ONTOLOGY_GRAPH}>` };
  }
  if (alignment) {
    const axioms = (await turtleQuads(TERM_ALIGNMENT_FILE, alignment)).filter((q) => terms.has(q.s) || terms.has(q.o));
    if (axioms.length) yield { bytes: Buffer.from(axioms.map(quadLine).join('')), graph: `<${alignment}>` };
  }
}

/**
 * The envelope values a graph's records answer with but do not state: for every record of a
 * transcript (one with a weave:sessionId) and every envelope property the transcript states,
 * the transcript's value, unless the record states its own or lacks the property. `quads` are
 * the graph's statements; any others than the envelope's are passed over.
 */
export function envelopeValues(quads: Iterable<QuadText>): QuadText[] {
  const transcripts = new Set<string>();
  const events: QuadText[] = [];
  const lacks = new Set<string>();
  /** Envelope statements by subject (a transcript or a record). */
  const stated = new Map<string, QuadText[]>();
  for (const q of quads) {
    if (q.p === weave.sessionId) transcripts.add(q.s);
    else if (q.p === weave.hasEvent) events.push(q);
    else if (q.p === weave.lacks) lacks.add(`${q.s} ${q.o}`);
    else if (ENVELOPE.has(q.p)) {
      const list = stated.get(q.s);
      if (list) list.push(q);
      else stated.set(q.s, [q]);
    }
  }
  const added = new Map<string, QuadText>();
  for (const { s: transcript, o: event, g } of events) {
    if (!transcripts.has(transcript)) continue;
    const own = stated.get(event);
    for (const { p, o } of stated.get(transcript) ?? []) {
      if (lacks.has(`${event} ${p}`) || own?.some((q) => q.p === p)) continue;
      const q = { s: event, p, o, g };
      added.set(quadLine(q), q);
    }
  }
  return [...added.values()];
}

/**
 * The statements of `ontology` that describe `terms`: each term's own, those of the blank nodes
 * they lead to (a domain's owl:unionOf list), and so on for every weave: term they name, so a
 * superclass, a domain or weave:turnRole comes described too. In the ontology's order.
 */
export function termStatements(ontology: readonly QuadText[], terms: Iterable<string>): QuadText[] {
  const bySubject = new Map<string, QuadText[]>();
  for (const q of ontology) {
    const list = bySubject.get(q.s);
    if (list) list.push(q);
    else bySubject.set(q.s, [q]);
  }
  const described = new Set<string>();
  const waiting = [...terms];
  for (let term = waiting.pop(); term !== undefined; term = waiting.pop()) {
    if (described.has(term)) continue;
    described.add(term);
    for (const q of bySubject.get(term) ?? [])
      for (const next of [q.p, q.o]) if (next.startsWith('_:') || next.startsWith(`<${WEAVE_NS}`)) waiting.push(next);
  }
  return ontology.filter((q) => described.has(q.s));
}

/** The statements of `lines` the envelope is worked out from. */
function envelopeFacts(lines: Buffer): QuadText[] {
  const starts = new Set<number>();
  for (const needle of ENVELOPE_LINES)
    for (let at = lines.indexOf(needle); at !== -1; at = lines.indexOf(needle, at + needle.length))
      starts.add(lines.lastIndexOf(NL, at) + 1);
  const quads: QuadText[] = [];
  for (const start of starts) {
    const end = lines.indexOf(NL, start);
    const q = parseQuadLine(lines.toString('utf8', start, end === -1 ? lines.length : end));
    if (q) quads.push(q);
  }
  return quads;
}

/** Adds the weave: IRIs written in `lines` to `into`. */
function termsIn(lines: Buffer, into: Set<string>): void {
  for (let at = lines.indexOf(WEAVE_IRI); at !== -1; at = lines.indexOf(WEAVE_IRI, at + WEAVE_IRI.length)) {
    const end = lines.indexOf(GT, at + WEAVE_IRI.length);
    if (end === -1) return;
    into.add(lines.toString('utf8', at, end + 1));
  }
}

async function turtleQuads(file: URL, graph: string): Promise<QuadText[]> {
  const lines = turtleAsNQuads(await readFile(file, 'utf8'), graph).split('\n');
  return lines.map((line) => parseQuadLine(line)).filter((q) => q !== undefined);
}
