import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as RDF from '@rdfjs/types';
import type oxigraph from 'oxigraph';
import type { JsonResults, JsonTerm } from '../query/table.ts';
import { isTrap } from '../query/traps.ts';
import { sparqlPrefixes } from '../rdf/vocab.ts';
import { allowed, checkServices, guardedFetch } from './allow.ts';
import { type Algebra, comunica, type QueryResult, SILENT_SERVICE } from './comunica.ts';
import { FederationError } from './errors.ts';
import { type QueryTime, withinTime } from './query-time.ts';

export { needsFederation } from './allow.ts';
import { fileSource, storeSource } from './sources.ts';

/**
 * Federated queries with Comunica: Weave's store (as an RDF/JS source) joined with remote SPARQL
 * endpoints, RDF documents on the web and local RDF files, and with the endpoints SERVICE
 * clauses name. Only allow-listed endpoints are contacted (`allow.ts`). Queries keep Weave's
 * conventions: the usual prefixes predeclared, and the union of all graphs as the default graph
 * unless the query names its own dataset. Queries with neither SERVICE nor sources never come
 * here: they stay on Oxigraph.
 */

interface Federation {
  /** Sources besides the store: `URL` (an endpoint or a document; Comunica tells which), `sparql@URL`, or a file path. */
  sources: string[];
  /** Endpoints SERVICE clauses and URL sources may name. */
  allow: string[];
  baseIri?: string;
  /** Whether sources may be local files (the command line: yes; the server: never, its clients name no files). */
  files?: boolean;
  /** The query's time: endpoints are cut within it, and the query fails with QueryTimedOut past it. */
  time?: QueryTime;
}

/** A federated answer: solutions as SPARQL JSON results, a boolean, or quads (for CONSTRUCT and DESCRIBE). */
type FederatedResult = { kind: 'solutions'; results: JsonResults } | { kind: 'quads'; quads: RDF.Quad[] };

export async function runFederated(store: oxigraph.Store, query: string, federation: Federation): Promise<FederatedResult> {
  checkServices(query, federation.allow, federation.baseIri);
  return withinTime(federation.time, answer(store, query, federation));
}

async function answer(store: oxigraph.Store, query: string, federation: Federation): Promise<FederatedResult> {
  const sources: unknown[] = [storeSource(store)];
  for (const source of federation.sources) sources.push(await resolveSource(source, federation.allow, federation.files ?? true));
  const context: Record<string, unknown> = {
    sources,
    // Each source answers its default graph as the merge of its graphs (sources.ts): Comunica's
    // union would repeat a triple once per graph stating it.
    unionDefaultGraph: false,
    fetch: guardedFetch(federation.allow, federation.time),
    ...(federation.baseIri ? { baseIRI: federation.baseIri } : {}),
    // Comments and strings may say it too: that costs only the grouping of the query's work.
    ...(/\bSERVICE\s+SILENT\b/i.test(query) ? { [SILENT_SERVICE]: true } : {}),
  };
  let result: QueryResult;
  try {
    result = await (await comunica()).query(sparqlPrefixes() + query, context);
  } catch (e) {
    // A trap of the store's WebAssembly is passed on whole: its caller replaces the store's copy.
    if (e instanceof FederationError || isTrap(e)) throw e;
    throw new FederationError(cleanMessage(e));
  }
  try {
    return await collect(result, () => projection(sparqlPrefixes() + query, context));
  } catch (e) {
    // A trap of the store's WebAssembly is passed on whole: its caller replaces the store's copy.
    if (e instanceof FederationError || isTrap(e)) throw e;
    throw new FederationError(cleanMessage(e));
  }
}

/** The variables a SELECT projects, read from its algebra (through DISTINCT, REDUCED, LIMIT and OFFSET): no source is asked. */
async function projection(query: string, context: Record<string, unknown>): Promise<string[]> {
  let op: Algebra | undefined = (await (await comunica()).explain(query, context, 'parsed')).data;
  while (op && op.type !== 'project') op = op.input;
  return op?.variables?.map((v) => v.value) ?? [];
}

/**
 * The whole result of a query Comunica runs. Its variables are the query's projection: Comunica
 * names none for an empty answer joined over several sources, which left an empty SELECT's
 * head without them (no header in CSV or TSV, no columns in a table), so they are read from the
 * query then.
 */
async function collect(result: QueryResult, projected: () => Promise<string[]>): Promise<FederatedResult> {
  switch (result.resultType) {
    case 'boolean':
      return { kind: 'solutions', results: { head: {}, boolean: await result.execute() } };
    case 'bindings': {
      let vars = (await result.metadata()).variables.map((v) => v.value);
      if (!vars.length) vars = await projected();
      const bindings: Record<string, JsonTerm>[] = [];
      for await (const row of await result.execute()) {
        const out: Record<string, JsonTerm> = {};
        for (const [variable, term] of row) out[variable.value] = jsonTerm(term);
        bindings.push(out);
      }
      return { kind: 'solutions', results: { head: { vars }, results: { bindings } } };
    }
    case 'quads': {
      const quads: RDF.Quad[] = [];
      for await (const q of await result.execute()) quads.push(q);
      return { kind: 'quads', quads };
    }
    default:
      throw new FederationError('a federated request must be a query, not an update');
  }
}

/** A source as Comunica takes it: a file becomes an rdf-ext dataset; a URL must be allowed. */
async function resolveSource(source: string, allow: readonly string[], files: boolean): Promise<unknown> {
  const sparql = /^sparql@(.+)$/i.exec(source)?.[1];
  const url = sparql ?? source;
  if (/^https?:\/\//i.test(url)) {
    if (!allowed(url, allow)) throw new FederationError(`the source ${url} is not on the allow-list (--service-allow)`);
    return sparql ? { type: 'sparql', value: url } : url;
  }
  if (!files) throw new FederationError(`a source is an http(s) URL on the allow-list, not ${JSON.stringify(source.slice(0, 100))}`);
  const path = url.startsWith('file:') ? fileURLToPath(url) : isAbsolute(url) ? url : resolve(url);
  return fileSource(path);
}

function jsonTerm(term: RDF.Term): JsonTerm {
  switch (term.termType) {
    case 'NamedNode':
      return { type: 'uri', value: term.value };
    case 'BlankNode':
      return { type: 'bnode', value: term.value };
    case 'Literal':
      if (term.language) return { type: 'literal', value: term.value, 'xml:lang': term.language };
      return term.datatype.value === 'http://www.w3.org/2001/XMLSchema#string'
        ? { type: 'literal', value: term.value }
        : { type: 'literal', value: term.value, datatype: term.datatype.value };
    case 'Quad':
      return {
        type: 'triple',
        value: { subject: jsonTerm(term.subject), predicate: jsonTerm(term.predicate), object: jsonTerm(term.object) },
      };
    default:
      throw new FederationError(`a ${term.termType} cannot be a value in results`);
  }
}

/** Comunica's messages, without the query text some of them quote (it may hold transcript content). */
function cleanMessage(e: unknown): string {
  const message = (e as Error)?.message ?? String(e);
  return message.split('\n')[0].slice(0, 500);
}
