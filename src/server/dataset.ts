import oxigraph from 'oxigraph';
import { sparqlPrefixes, WEAVE_NS } from '../rdf/vocab.ts';
import { DATASET_FORMATS, GRAPH_FORMATS, SOLUTION_FORMATS } from '../query/formats.ts';
import { runQuery, userPosition } from '../query/run.ts';
import type { JsonResults, JsonTerm } from '../query/table.ts';
import type { OxStore } from '../store/store.ts';
import { HttpError } from './errors.ts';
import type { DescribeJob, GraphReadJob, GraphWriteJob, JobResult, QueryJob, UpdateJob } from './jobs.ts';
import { graphExists, graphTerm } from './persist.ts';
import { flattenJsonResults } from './triple-terms.ts';
import { applyUsingGraphs } from './update-dataset.ts';

/**
 * The operations a query worker runs on its own copy of the store. Plain functions over a store,
 * so they are tested without threads; every failure is an HttpError with the client's status.
 */

const encoder = new TextEncoder();

/** WebAssembly traps: the store is in an unknown state and the worker must be replaced. */
export function isTrap(e: unknown): boolean {
  return (e as Error)?.name === 'RuntimeError' || /^(unreachable|memory access out of bounds)|WebAssembly\.Memory|Maximum memory size/.test((e as Error)?.message ?? '');
}

function tooLarge(bytes: number, limit: number): HttpError {
  return new HttpError(507, `the result is ${(bytes / 1e6).toFixed(1)} MB, over the limit of ${(limit / 1e6).toFixed(1)} MB; narrow the query or add LIMIT`);
}

function answer(text: string, mediaType: string, limit: number): JobResult {
  const body = encoder.encode(text);
  if (body.length > limit) throw tooLarge(body.length, limit);
  return { status: 200, mediaType, body };
}

/** Formats that cannot hold RDF 1.2 triple terms say so; the next acceptable format is tried. */
const NO_TRIPLE_TERMS = /does not support RDF 1\.2/i;

function noFormatLeft(accept: string[]): HttpError {
  return new HttpError(406, `the result holds RDF 1.2 triple terms, which ${accept.join(', ')} cannot carry; accept text/turtle, application/n-triples or application/n-quads`);
}

export function runQueryJob(store: OxStore, job: QueryJob): JobResult {
  const run = (format?: string) => {
    try {
      return runQuery(store, job.query, { results_format: format, default_graph: job.defaultGraphs, named_graphs: job.namedGraphs, base_iri: job.baseIri }, oxigraph);
    } catch (e) {
      if (isTrap(e)) throw e;
      throw new HttpError(400, (e as Error).message);
    }
  };
  if (!job.graphResult) {
    const format = job.accept[0];
    let text = run(format) as string;
    if (job.tripleTermsAsText && format === SOLUTION_FORMATS.json) text = flattenJsonResults(text);
    return answer(text, format, job.maxResultBytes);
  }
  for (const format of job.accept) {
    let text: string;
    try {
      text = run(format) as string;
    } catch (e) {
      if (e instanceof HttpError && NO_TRIPLE_TERMS.test(e.message)) continue;
      throw e;
    }
    if (job.tripleTermsAsText && text.includes('<<(')) text = flattenQuads(run() as oxigraph.Quad[], format);
    return answer(text, format, job.maxResultBytes);
  }
  throw noFormatLeft(job.accept);
}

/** Quads with every triple term turned into a literal of its N-Triples text, serialised. */
export function flattenQuads(quads: oxigraph.Quad[], format: string): string {
  const flat = (t: oxigraph.Term) => (t.termType === 'Quad' ? oxigraph.literal(termToNt(t)) : t);
  const out = quads.map((q) => oxigraph.quad(flat(q.subject) as oxigraph.Quad_Subject, q.predicate, flat(q.object) as oxigraph.Quad_Object, q.graph));
  const store = new oxigraph.Store(out);
  return DATASET_FORMATS.has(format) ? store.dump({ format }) : store.dump({ format, from_graph_name: oxigraph.defaultGraph() });
}

/** A term in N-Triples syntax, triple terms as `<<( s p o )>>`. */
export function termToNt(t: oxigraph.Term): string {
  if (t.termType === 'Quad') {
    const q = t as oxigraph.Quad;
    return `<<( ${termToNt(q.subject)} ${termToNt(q.predicate)} ${termToNt(q.object)} )>>`;
  }
  return t.toString();
}

export function runUpdateJob(store: OxStore, job: UpdateJob): void {
  const text = applyUsingGraphs(job.update, job.usingGraphs, job.usingNamedGraphs);
  try {
    store.update(sparqlPrefixes() + text, { base_iri: job.baseIri });
  } catch (e) {
    if (isTrap(e)) throw e;
    let message = userPosition((e as Error).message);
    if (text !== job.update) {
      // Positions must point into what the client sent, not into the text with USING written in:
      // a parse of the original on an empty store reports them (and changes nothing that matters).
      try {
        new oxigraph.Store().update(sparqlPrefixes() + job.update, { base_iri: job.baseIri });
      } catch (original) {
        message = userPosition((original as Error).message);
      }
    }
    throw new HttpError(400, message);
  }
}

/** The formats a graph can be read in over the Graph Store Protocol, best first. */
export function readGraphJob(store: OxStore, job: GraphReadJob): JobResult {
  if (!graphExists(store, job.graph)) throw new HttpError(404, `there is no graph <${job.graph}>`);
  for (const format of job.accept) {
    try {
      return answer(store.dump({ format, from_graph_name: graphTerm(job.graph) }), format, job.maxResultBytes);
    } catch (e) {
      if (isTrap(e)) throw e;
      if (!NO_TRIPLE_TERMS.test((e as Error).message)) throw e;
    }
  }
  throw noFormatLeft(job.accept);
}

/**
 * PUT replaces a graph, POST adds to it, DELETE drops it. The payload is parsed on the side
 * first, so a syntax error leaves the graph as it was.
 */
export function writeGraphJob(store: OxStore, job: GraphWriteJob): JobResult {
  const target = graphTerm(job.graph);
  const existed = graphExists(store, job.graph);
  if (job.method === 'DELETE') {
    if (!existed) throw new HttpError(404, `there is no graph <${job.graph}>`);
    store.update(job.graph === null ? 'CLEAR DEFAULT' : `DROP GRAPH <${job.graph}>`);
    return { status: 204 };
  }
  const parsed = new oxigraph.Store();
  for (const part of job.parts) {
    try {
      parsed.load(part.text, { format: part.format, base_iri: job.graph ?? job.baseIri, to_graph_name: target });
    } catch (e) {
      if (isTrap(e)) throw e;
      throw new HttpError(400, `the ${part.format} payload does not parse: ${(e as Error).message}`);
    }
  }
  // Only JSON-LD among the accepted syntaxes can name graphs of its own.
  if (job.parts.some((p) => p.format === GRAPH_FORMATS.jsonld) && parsed.match(null, null, null, null).some((q) => !q.graph.equals(target)))
    throw new HttpError(400, 'the payload names graphs of its own; send the triples of one graph');
  if (job.method === 'PUT') store.update(job.graph === null ? 'CLEAR DEFAULT' : `DROP SILENT GRAPH <${job.graph}>`);
  if (job.graph !== null) store.update(`CREATE SILENT GRAPH <${job.graph}>`);
  for (const part of job.parts) store.load(part.text, { format: part.format, base_iri: job.graph ?? job.baseIri, to_graph_name: target });
  return { status: existed ? 204 : 201 };
}

/** Counts behind VoID and the service description (a few seconds on a corpus of a million quads). */
export interface DatasetStats {
  quads: number;
  defaultGraphTriples: number;
  graphs: { name: string; triples: number }[];
  classes: { iri: string; entities: number }[];
  properties: { iri: string; triples: number }[];
  sessions: number;
}

function rows(store: OxStore, query: string, union = true): Record<string, JsonTerm>[] {
  const text = store.query(sparqlPrefixes() + query, { results_format: SOLUTION_FORMATS.json, use_default_graph_as_union: union }) as string;
  return (JSON.parse(text) as JsonResults).results?.bindings ?? [];
}

const num = (t: JsonTerm | undefined) => Number(t?.value ?? 0);
const str = (t: JsonTerm | undefined) => String(t?.value ?? '');

export function datasetStats(store: OxStore): DatasetStats {
  const graphs = rows(store, 'SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g', false)
    .filter((r) => r.g?.type === 'uri')
    .map((r) => ({ name: str(r.g), triples: num(r.n) }));
  const counted = new Set(graphs.map((g) => g.name));
  // Empty named graphs exist too.
  for (const r of rows(store, 'SELECT DISTINCT ?g WHERE { GRAPH ?g { } }', false))
    if (r.g?.type === 'uri' && !counted.has(str(r.g))) graphs.push({ name: str(r.g), triples: 0 });
  graphs.sort((a, b) => a.name.localeCompare(b.name));
  const one = (q: string, union = true) => num(rows(store, q, union)[0]?.n);
  return {
    quads: store.size,
    defaultGraphTriples: one('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', false),
    graphs,
    classes: rows(store, 'SELECT ?c (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c ORDER BY DESC(?n) ?c')
      .filter((r) => r.c?.type === 'uri')
      .map((r) => ({ iri: str(r.c), entities: num(r.n) })),
    properties: rows(store, 'SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY DESC(?n) ?p').map((r) => ({ iri: str(r.p), triples: num(r.n) })),
    sessions: one('SELECT (COUNT(DISTINCT ?id) AS ?n) WHERE { ?t a weave:ClaudeCodeTranscript ; weave:sessionId ?id }'),
  };
}

/** One statement about the described resource, or about one of its content blocks. */
export interface Statement {
  p: string;
  o: JsonTerm;
}

export interface DescribedBlock {
  iri: string;
  /** The block or turn that holds it. */
  parent: string;
  statements: Statement[];
  /** Statements elsewhere that point at the block (a tool result answering a tool use). */
  incoming: { s: string; p: string; owner?: string }[];
}

export interface Description {
  iri: string;
  statements: Statement[];
  blocks: DescribedBlock[];
  incoming: { s: string; p: string }[];
  incomingTruncated: boolean;
  graphs: string[];
  /** rdfs:label of every IRI on the page that has one (predicates, classes). */
  labels: Record<string, string>;
}

export const INCOMING_LIMIT = 500;

/** What the describe page shows: the resource, its content blocks (nested), and what links to it. */
export function describeData(store: OxStore, iri: string): Description {
  const statements = rows(store, `SELECT ?p ?o WHERE { <${iri}> ?p ?o } ORDER BY ?p ?o`).map((r) => ({ p: str(r.p), o: r.o }));
  const blockRows = rows(
    store,
    `SELECT ?parent ?b ?p ?o WHERE { <${iri}> weave:hasContentBlock+ ?b . ?parent weave:hasContentBlock ?b . ?b ?p ?o } ORDER BY ?b ?p ?o`,
  );
  const blocks = new Map<string, DescribedBlock>();
  for (const r of blockRows) {
    const key = str(r.b);
    let block = blocks.get(key);
    if (!block) blocks.set(key, (block = { iri: key, parent: str(r.parent), statements: [], incoming: [] }));
    block.statements.push({ p: str(r.p), o: r.o });
  }
  // Shaped for Oxigraph's planner, measured on the corpus: the blocks named in VALUES, the owner of
  // a pointing block one level up, and no FILTER (each of those alternatives scans, 50-250 ms).
  const blockIris = [...blocks.keys()].filter((b) => !/[<>"{}|^`\\\s]/.test(b));
  if (blockIris.length)
    for (const r of rows(
      store,
      `SELECT ?b ?s ?p ?owner WHERE { VALUES ?b { ${blockIris.map((b) => `<${b}>`).join(' ')} } ?s ?p ?b . OPTIONAL { ?owner weave:hasContentBlock ?s } } LIMIT ${INCOMING_LIMIT}`,
    ))
      if (str(r.p) !== `${WEAVE_NS}hasContentBlock`) blocks.get(str(r.b))?.incoming.push({ s: str(r.s), p: str(r.p), owner: r.owner ? str(r.owner) : undefined });
  const incomingRows = rows(store, `SELECT ?s ?p WHERE { ?s ?p <${iri}> } ORDER BY ?p ?s LIMIT ${INCOMING_LIMIT + 1}`);
  const graphs = rows(store, `SELECT DISTINCT ?g WHERE { GRAPH ?g { { <${iri}> ?p ?o } UNION { ?s ?p <${iri}> } } } ORDER BY ?g`, false).map((r) => str(r.g));
  const iris = new Set<string>();
  for (const s of statements) {
    iris.add(s.p);
    if (s.o.type === 'uri') iris.add(s.o.value);
  }
  for (const b of blocks.values())
    for (const s of b.statements) {
      iris.add(s.p);
      if (s.o.type === 'uri') iris.add(s.o.value);
    }
  for (const r of incomingRows) iris.add(str(r.p));
  const labels: Record<string, string> = {};
  const candidates = [...iris].filter((i) => !/[<>"{}|^`\\\s]/.test(i));
  if (candidates.length)
    for (const r of rows(store, `SELECT ?x (SAMPLE(?l) AS ?label) WHERE { VALUES ?x { ${candidates.map((i) => `<${i}>`).join(' ')} } ?x rdfs:label ?l } GROUP BY ?x`))
      labels[str(r.x)] = str(r.label);
  return {
    iri,
    statements,
    blocks: [...blocks.values()],
    incoming: incomingRows.slice(0, INCOMING_LIMIT).map((r) => ({ s: str(r.s), p: str(r.p) })),
    incomingTruncated: incomingRows.length > INCOMING_LIMIT,
    graphs,
    labels,
  };
}

/** The same description as RDF: the resource, its blocks, and (a bounded number of) incoming links. */
export function describeGraphJob(store: OxStore, job: DescribeJob): JobResult {
  const query = `CONSTRUCT { <${job.iri}> ?p ?o . ?b ?bp ?bo . ?s ?ip <${job.iri}> } WHERE {
    { <${job.iri}> ?p ?o } UNION { <${job.iri}> weave:hasContentBlock+ ?b . ?b ?bp ?bo }
    UNION { SELECT ?s ?ip WHERE { ?s ?ip <${job.iri}> } LIMIT ${INCOMING_LIMIT} } }`;
  return runQueryJob(
    store,
    { op: 'query', query, graphResult: true, defaultGraphs: [], namedGraphs: [], accept: job.accept, baseIri: job.iri, tripleTermsAsText: false, maxResultBytes: job.maxResultBytes },
  );
}
