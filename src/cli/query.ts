import { Writer } from 'n3';
import oxigraph from 'oxigraph';
import {
  allowList,
  answerFromServer,
  cutNote,
  formOf,
  parseQueryArgs,
  printable,
  queryErrorText,
  serverFor,
  table,
  type QueryRequest,
} from '../client/query.ts';
import { print } from '../client/served.ts';
import { checkServices } from '../federation/allow.ts';
import { contained } from '../federation/strays.ts';
import { FederationError, SourceFileError } from '../federation/errors.ts';
import { formatsFor, helpList, mediaTypeNamed, nameList } from '../query/formats.ts';
import { NoTripleTermsError, NotXmlGraphError, writeGraph } from '../query/graph-results.ts';
import { QueryError, runQuery } from '../query/run.ts';
import { isTrap, trapMessage } from '../query/traps.ts';
import { NotXmlError, solutionForm, writeSolutions } from '../query/solutions.ts';
import type { JsonResults } from '../query/table.ts';
import { openQueries } from '../store/queries.ts';
import { readRemoteConfig } from '../store/remote/config.ts';
import type { OxStore } from '../store/store.ts';
import { CliError, COMMON_HELP, requireStore, WIDE_HELP, sayEmitter } from './options.ts';
import { printHelp } from './help.ts';
import { DEFAULTS } from '../server/config.ts';

/** The help, its formats read from the format table. */
const help = () => `usage: weave query QUERY [options]
       weave query -f FILE.rq [options]

Runs SPARQL over the store: the union of all graphs, with the prefixes weave, rdf, rdfs, xsd,
owl, prov, oa, skos and dcterms predeclared. The store's server answers: a weave serve, or when
none runs, a resident one this command starts in the background, which stops after 10 minutes
without a request (so only the first command pays for opening the store). With --source, or a
SERVICE clause, the query is federated with Comunica: the store joined with the sources and the
SERVICE endpoints, by a weave serve whose --service-allow has every endpoint it names (and its
sources, which must then be URLs), else here.

options:
  -f, --file FILE        read the query from FILE
  --format F             table (default), ${nameList(formatsFor('solutions'))} for SELECT/ASK;
                         ${helpList(formatsFor('graph'), 'turtle')} for CONSTRUCT/DESCRIBE
  --rdf MODE             triple terms in graph results: 1.2 (default), 1.1 (RDF 1.1 reification on
                         the same reifier), star (<< s p o >>); see weave export --help
  --source S             also query S (repeatable): a SPARQL endpoint or RDF document by URL
                         (sparql@URL forces an endpoint), or a Turtle, TriG, N-Triples or N-Quads file
  --service-allow URL    an endpoint SERVICE clauses may name (repeatable); no other is contacted
  --timeout SECONDS      the longest the query may take (default: a server's own --timeout; run
                         here, ${DEFAULTS.timeoutSeconds} for a federated query, else none); past it, it fails,
                         but one Oxigraph runs in this process runs to its end. A SERVICE
                         endpoint still silent a quarter of it (at most 2 s) before its end is
                         cut: SERVICE SILENT over it answers in time
${WIDE_HELP}
  --no-daemon            open the store here: ask no server, start none (also WEAVE_NO_DAEMON=1)
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const request = await parseQueryArgs(args);
  if (!request) {
    printHelp(help());
    return 0;
  }
  // Said before the query runs (it may take long, or fail).
  await print({ stdout: '', notes: request.warnings.join('') });
  await sayEmitter(request.storeDir);
  // The store's server, started if none runs; for a federated query, one running that allows it.
  const server = await serverFor(request);
  const answered = server && (await answerFromServer(server, request));
  if (answered) {
    if (answered.note) process.stderr.write(answered.note);
    return print({ stdout: answered.stdout, form: formOf(request) });
  }
  if (server)
    process.stderr.write(
      `weave query: the server at ${server.url} does not send this answer (too large, cut short by the external store, or not in this format); opening the store here\n`,
    );

  // The query's syntax first, on an empty store: a typo is reported before the store loads.
  // (A federated query is left to Comunica: an empty Oxigraph store cannot run its SERVICE clauses;
  // its endpoints are checked against the allow-list before the store loads, as the server does.)
  if (request.federated) told(() => checkServices(request.query, allowList(request)), request);
  else
    told(
      () =>
        runQuery(new oxigraph.Store(), request.query, { results_format: mediaTypeNamed(request.isGraph ? 'nquads' : 'json') }, oxigraph),
      request,
    );
  if (!(await readRemoteConfig(request.storeDir))) await requireStore(request.storeDir);
  const queries = await openQueries(request.storeDir);
  const text = await told(async () => {
    if (queries.store) return runHere(queries.store, request);
    if (request.federated)
      throw new CliError('--source and SERVICE need the store opened here; this store lives in an external SPARQL store');
    // An external store holds triple terms in RDF 1.1 form already (store/remote/rdf11.ts): it answers in the format asked.
    const answer = await queries.query(request.query, request.mediaType, { timeoutMs: request.timeoutMs });
    const note = await cutNote(request, answer);
    if (note) process.stderr.write(note);
    return printable(request, answer);
  }, request);
  return print({ stdout: text.endsWith('\n') ? text : `${text}\n`, form: formOf(request) });
}

/** Runs `job`, its errors told as the CLI tells them. */
function told<T>(job: () => T, request: QueryRequest): T {
  const tell = (e: unknown): never => {
    if (isTrap(e)) throw new CliError(trapMessage(request.query, e));
    if (e instanceof QueryError || e instanceof FederationError || e instanceof SourceFileError)
      throw new CliError(queryErrorText(request, e.message));
    if (e instanceof NotXmlError || e instanceof NotXmlGraphError || e instanceof NoTripleTermsError)
      throw new CliError(
        `${e.message}; use --format json, tsv, turtle or ntriples${e instanceof NoTripleTermsError ? ', or --rdf 1.1' : ''}`,
      );
    throw e;
  };
  try {
    const result = job();
    return (result instanceof Promise ? result.catch(tell) : result) as T;
  } catch (e) {
    return tell(e);
  }
}

/** The query on the store opened here: federated through Comunica when it names sources or SERVICE, else by Oxigraph; written in `--rdf` mode. */
async function runHere(store: OxStore, request: QueryRequest): Promise<string> {
  const { query, format, mediaType, mode, sources } = request;
  if (request.federated) {
    const { runFederated } = await import('../federation/engine.ts');
    // An error Comunica leaves unhandled (a trap of the store in a join) fails the query as told
    // below, not the process with a stack trace (federation/strays.ts).
    const time = { timeoutMs: request.timeoutMs ?? DEFAULTS.timeoutSeconds * 1000, since: Date.now() };
    const result = await contained(
      () => runFederated(store, query, { sources, allow: allowList(request), time }),
      (e) => e,
    );
    if (result.kind === 'solutions')
      return format === 'table' ? table(request, result.results) : writeSolutions(result.results, mediaType, solutionForm(mediaType, mode));
    const writer = new Writer({ format: 'N-Quads' });
    writer.addQuads(result.quads);
    let nquads = '';
    writer.end((_e, out) => (nquads = out));
    return writeGraph(nquads, mediaType, mode);
  }
  if (request.isGraph)
    return writeGraph(runQuery(store, query, { results_format: mediaTypeNamed('nquads') }, oxigraph) as string, mediaType, mode);
  const json = runQuery(store, query, { results_format: mediaTypeNamed('json') }, oxigraph) as string;
  if (format === 'table') return table(request, JSON.parse(json) as JsonResults);
  // Oxigraph's own SPARQL JSON when nothing is to change.
  const form = solutionForm(mediaType, mode);
  return mediaType === mediaTypeNamed('json') && form === '1.2' ? json : writeSolutions(JSON.parse(json) as JsonResults, mediaType, form);
}
