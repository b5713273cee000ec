import { WEAVE_NS } from '../rdf/vocab.ts';
import { iriValues, writableIri } from '../query/sparql-text.ts';
import type { DescribedBlock, Description, DescribeJob, QueryJob, Statement } from './messages.ts';
import { str, type Select } from './select.ts';

/**
 * One resource as the describe page shows it (data for the main thread to render), or the query
 * that gives it as RDF: by SELECTs and a CONSTRUCT on whichever store answers, a query worker's
 * copy or an external store.
 */

const INCOMING_LIMIT = 500;
/**
 * How much of a node's statements is read: a node with more than `statements` (a transcript names
 * every event of its session, 89k in a long one) is read a predicate at a time, `objects` of each:
 * what the page shows of them (12, then 500 folded) and one more to say there are more.
 */
export const STATEMENT_LIMITS = { statements: 5000, objects: 513 };

/** The resource's statements; of a node with thousands, each predicate's first objects and how many it has. */
async function statementsOf(
  select: Select,
  iri: string,
  limits: typeof STATEMENT_LIMITS,
): Promise<Pick<Description, 'statements' | 'objects'>> {
  const rows = await select(`SELECT ?p ?o WHERE { <${iri}> ?p ?o } ORDER BY ?p ?o LIMIT ${limits.statements + 1}`);
  if (rows.length <= limits.statements) return { statements: rows.map((r) => ({ p: str(r.p), o: r.o })) };
  const statements: Statement[] = [];
  const objects: Record<string, number> = {};
  for (const r of await select(`SELECT ?p (COUNT(?o) AS ?n) WHERE { <${iri}> ?p ?o } GROUP BY ?p ORDER BY ?p`)) {
    const p = str(r.p);
    const n = Number(str(r.n));
    if (n > limits.objects) objects[p] = n;
    for (const o of await select(`SELECT ?o WHERE { <${iri}> <${p}> ?o } ORDER BY ?o LIMIT ${limits.objects}`))
      statements.push({ p, o: o.o });
  }
  return { statements, objects };
}

/** The resource, its content blocks (nested), and what links to it. */
export async function describeData(select: Select, iri: string, limits = STATEMENT_LIMITS): Promise<Description> {
  const { statements, objects } = await statementsOf(select, iri, limits);
  const blockRows = await select(
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
  const blockIris = [...blocks.keys()].filter(writableIri);
  if (blockIris.length)
    for (const r of await select(
      `SELECT ?b ?s ?p ?owner WHERE { ${iriValues('?b', blockIris)} ?s ?p ?b . OPTIONAL { ?owner weave:hasContentBlock ?s } } LIMIT ${INCOMING_LIMIT}`,
    ))
      if (str(r.p) !== `${WEAVE_NS}hasContentBlock`)
        blocks.get(str(r.b))?.incoming.push({ s: str(r.s), p: str(r.p), owner: r.owner ? str(r.owner) : undefined });
  // The session a record, block or model node (turn, call, tool, run, talk) belongs to, for its
  // page's links to the session page and the conversation: more than one where a resumed session
  // copied it.
  const sessions = (
    await select(`SELECT DISTINCT ?session WHERE {
  { ?t weave:hasEvent <${iri}> } UNION { ?e weave:hasContentBlock+ <${iri}> . ?t weave:hasEvent ?e }
  ?t weave:sessionId ?session
} ORDER BY ?session LIMIT 4`)
  ).map((r) => str(r.session));
  if (!sessions.length)
    for (const r of await select(
      `SELECT DISTINCT ?session WHERE { <${iri}> weave:within+ ?s . ?s a weave:Session ; dcterms:identifier ?session } ORDER BY ?session LIMIT 4`,
    ))
      sessions.push(str(r.session));
  const incomingRows = await select(`SELECT ?s ?p WHERE { ?s ?p <${iri}> } ORDER BY ?p ?s LIMIT ${INCOMING_LIMIT + 1}`);
  const graphs = (
    await select(`SELECT DISTINCT ?g WHERE { GRAPH ?g { { <${iri}> ?p ?o } UNION { ?s ?p <${iri}> } } } ORDER BY ?g`, false)
  ).map((r) => str(r.g));
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
  // A domain or range of several classes is a blank node, owl:unionOf a list: a page names its
  // members, not the node. Read in one query with the statements' own blank nodes' ids.
  const unions: Record<string, string[]> = {};
  for (const r of await select(
    `SELECT ?u ?member WHERE { <${iri}> ?p ?u FILTER(isBlank(?u)) ?u owl:unionOf/rdf:rest*/rdf:first ?member FILTER(isIRI(?member)) } ORDER BY ?member`,
  )) {
    (unions[str(r.u)] ??= []).push(str(r.member));
    iris.add(str(r.member));
  }
  // Any other blank node it names (a term's weave:nativeTerm mapping) is shown by its statements.
  const blankNodes: Record<string, Statement[]> = {};
  for (const r of await select(
    `SELECT ?b ?p ?o WHERE { <${iri}> ?x ?b FILTER(isBlank(?b)) ?b ?p ?o } ORDER BY ?b ?p ?o LIMIT ${INCOMING_LIMIT}`,
  )) {
    const b = str(r.b);
    if (unions[b]) continue;
    (blankNodes[b] ??= []).push({ p: str(r.p), o: r.o });
    iris.add(str(r.p));
    if (r.o.type === 'uri') iris.add(r.o.value);
  }
  const labels: Record<string, string> = {};
  const candidates = [...iris].filter(writableIri);
  if (candidates.length)
    for (const r of await select(`SELECT ?x (SAMPLE(?l) AS ?label) WHERE { ${iriValues('?x', candidates)} ?x rdfs:label ?l } GROUP BY ?x`))
      labels[str(r.x)] = str(r.label);
  return {
    iri,
    statements,
    ...(objects ? { objects } : {}),
    blocks: [...blocks.values()],
    incoming: incomingRows.slice(0, INCOMING_LIMIT).map((r) => ({ s: str(r.s), p: str(r.p) })),
    incomingTruncated: incomingRows.length > INCOMING_LIMIT,
    graphs,
    labels,
    ...(Object.keys(unions).length ? { unions } : {}),
    ...(Object.keys(blankNodes).length ? { blankNodes } : {}),
    sessions,
  };
}

/** The query behind the RDF description, as a query job. */
export function describeQueryJob(job: DescribeJob): QueryJob {
  // With each blank node it names, that node's statements and the lists it holds (a domain's
  // owl:unionOf), as a concise bounded description has them: else the node says nothing.
  const query = `CONSTRUCT { <${job.iri}> ?p ?o . ?b ?bp ?bo . ?s ?ip <${job.iri}> . ?n ?np ?no } WHERE {
    { <${job.iri}> ?p ?o } UNION { <${job.iri}> weave:hasContentBlock+ ?b . ?b ?bp ?bo }
    UNION { <${job.iri}> ?bnp ?bn FILTER(isBlank(?bn)) ?bn (owl:unionOf|rdf:rest)* ?n . ?n ?np ?no }
    UNION { SELECT ?s ?ip WHERE { ?s ?ip <${job.iri}> } LIMIT ${INCOMING_LIMIT} } }`;
  return {
    op: 'query',
    query,
    graphResult: true,
    defaultGraphs: [],
    namedGraphs: [],
    accept: job.accept,
    baseIri: job.iri,
    tripleTerms: '1.2',
    maxResultBytes: job.maxResultBytes,
  };
}
