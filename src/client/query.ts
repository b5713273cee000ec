import { readFile } from 'node:fs/promises';
import { occurrences } from '../acquire/lines.ts';
import { CliError, outputWidth, parse, storeDir, timeoutMs, WIDE_OPTION } from '../cli/options.ts';
import { needsFederation } from '../federation/allow.ts';
import { formatNamed, formatsFor, mediaTypeNamed, nameList } from '../query/formats.ts';
import { queryForm, returnsGraph } from '../query/lexer.ts';
import { unknownWeaveTerms } from '../query/terms.ts';
import { renderTable, type JsonResults } from '../query/table.ts';
import { isRdfMode, type RdfMode } from '../rdf/rdf-mode.ts';
import { findServer, type FoundServer } from '../store/running.ts';
import { noDaemon, residentServer } from './daemon.ts';
import { federatesAsHere } from './federated.ts';
import type { ServedCommand } from './served.ts';
import type { Form } from '../terminal.ts';
import { queryServer, ServerError } from './server.ts';
import { isCut } from '../store/remote/results.ts';
import { timedOut } from '../federation/query-time.ts';
import { askExternal, ExternalAnswerError, externalStore } from './external.ts';

/**
 * `weave query` without the store: its arguments, and its answer from a running server. This
 * module imports no Oxigraph, so the light entry (client/fast.ts) can run it with nothing else.
 */

export interface QueryRequest {
  query: string;
  /** `-f`: the file the query was read from, which a syntax error names. */
  file?: string;
  format: string;
  storeDir: string;
  /** CONSTRUCT or DESCRIBE: the answer is a graph. */
  isGraph: boolean;
  /** The media type asked of the store. */
  mediaType: string;
  /** `--rdf`: how triple terms are written in the answer. */
  mode: RdfMode;
  /** `--source`: endpoints and documents joined with the store. */
  sources: string[];
  /** `--service-allow`: the endpoints SERVICE clauses may name. */
  serviceAllow: string[];
  /** Sources or SERVICE: the query runs through the federation engine, here or on a server that allows what it names. */
  federated: boolean;
  /** `--wide`: a table printed in full, whatever the terminal's width. */
  wide: boolean;
  /** Lines for stderr before the answer (weave: names the ontology does not declare). */
  warnings: string[];
  /** `--no-daemon`: opened here, whatever server runs. */
  noDaemon: boolean;
  /**
   * `--timeout`: the longest the query may take, as `weave serve --timeout` bounds it. Not given,
   * a server's own applies (a `weave serve --timeout 120` runs long queries); run here, a
   * federated query takes `weave serve`'s default and any other none.
   */
  timeoutMs?: number;
}

/** `weave query` arguments; undefined for `--help`. */
export async function parseQueryArgs(args: string[]): Promise<QueryRequest | undefined> {
  const { values, positionals } = parse(args, {
    file: { type: 'string', short: 'f' },
    format: { type: 'string' },
    rdf: { type: 'string' },
    source: { type: 'string', multiple: true },
    'service-allow': { type: 'string', multiple: true },
    ...WIDE_OPTION,
    'no-daemon': { type: 'boolean' },
    timeout: { type: 'string' },
  });
  if (values.help) return undefined;
  const query = values.file
    ? await readFile(values.file, 'utf8').catch(() => {
        throw new CliError(`${values.file}: cannot read the query file`);
      })
    : positionals.join(' ');
  if (!query.trim()) throw new CliError('no query: give one as an argument or with -f FILE', 2);
  const isGraph = returnsGraph(query);
  const format = values.format ?? (isGraph ? 'turtle' : 'table');
  const named = formatNamed(format);
  const graphs = nameList(formatsFor('graph'));
  const solutions = nameList(formatsFor('solutions'));
  if (format !== 'table' && !named)
    throw new CliError(`unknown --format "${format}": table, ${solutions} for SELECT and ASK; ${graphs} for CONSTRUCT and DESCRIBE`, 2);
  const graphFormat = named !== undefined && named.carries !== 'solutions';
  if (isGraph && !graphFormat)
    throw new CliError(`--format ${format} is for SELECT and ASK results; a CONSTRUCT or DESCRIBE answers with a graph: use ${graphs}`, 2);
  if (!isGraph && graphFormat)
    throw new CliError(
      `--format ${format} is for graphs (CONSTRUCT, DESCRIBE); a SELECT or ASK answers with solutions: use table, ${solutions}`,
      2,
    );
  const mode = (values.rdf ?? '1.2') as RdfMode;
  if (!isRdfMode(mode)) throw new CliError(`unknown --rdf "${values.rdf}" (1.2, 1.1 or star)`, 2);
  const sources = values.source ?? [];
  // A table is drawn from SPARQL JSON.
  const mediaType = named?.mediaType ?? mediaTypeNamed('json');
  return {
    query,
    file: values.file,
    format,
    storeDir: storeDir(values),
    isGraph,
    mediaType,
    mode,
    sources,
    serviceAllow: values['service-allow'] ?? [],
    federated: needsFederation(query, sources),
    wide: values.wide ?? false,
    warnings: unknownWeaveTerms(query).map(
      (term) => `weave query: weave:${term} is not a term of the ontology (ontology/weave.ttl); nothing will match it\n`,
    ),
    noDaemon: noDaemon(values),
    timeoutMs: timeoutMs(values),
  };
}

/**
 * A SELECT's table, cut to the terminal unless `--wide`. A terminal's width is the only bound on a
 * cell (a lone column of IRIs shows them whole); written to a pipe, which has none, a cell is cut
 * at 60 characters, since one can be a whole tool output.
 */
export function table(request: QueryRequest, results: JsonResults): string {
  const width = outputWidth(request);
  return renderTable(results, { width, cell: request.wide || Number.isFinite(width) ? width : 60 });
}

/** The text `weave query` prints for an answer in `request.mediaType`. */
export function printable(request: QueryRequest, text: string): string {
  if (request.format === 'table' && !request.isGraph) return table(request, JSON.parse(text) as JsonResults);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** How the answer is written (terminal.ts): a table is read; CSV, XML and RDF/XML are data without an escape for a control character; the rest escape one as `\\uXXXX`. */
export function formOf(request: QueryRequest): Form {
  if (request.format === 'table' && !request.isGraph) return 'text';
  return ['csv', 'xml', 'rdfxml'].includes(request.format) ? 'data' : 'code';
}

/**
 * The `rdf=` the server is asked for: `--rdf`, except that a table is drawn from the store's own
 * JSON (RDF 1.2), as a local run draws it. Always sent, so the server's own `--rdf` never applies.
 */
function serverMode(request: QueryRequest): RdfMode {
  return request.format === 'table' && !request.isGraph ? '1.2' : request.mode;
}

/**
 * The most rows Virtuoso 7 answers one query with, whatever its `ResultSetMaxRows` says: a longer
 * answer is cut there, and nothing in it says so (the scale bench met it at 8 copies of the corpus).
 */
export const EXTERNAL_ROW_CAP = 1_048_576;

/** Whether an answer in `mediaType` holds exactly EXTERNAL_ROW_CAP solutions (a CSV answer, whose values may hold line breaks, is not counted). */
export function atRowCap(mediaType: string, text: string): boolean {
  // Each row takes more than a byte: an answer shorter than the cap has fewer rows.
  if (text.length < EXTERNAL_ROW_CAP) return false;
  let rows: number | undefined;
  if (mediaType === 'application/sparql-results+json')
    rows = (JSON.parse(text) as { results?: { bindings?: unknown[] } }).results?.bindings?.length;
  // Lines after the header (a row of unbound values is an empty line, the last may have no line
  // break), counted without an array of a million strings or a copy of the text.
  else if (mediaType === 'text/tab-separated-values') rows = occurrences(text, '\n') + (text.endsWith('\n') ? 0 : 1) - 1;
  else if (mediaType === 'application/sparql-results+xml') rows = occurrences(text, '<result>');
  return rows === EXTERNAL_ROW_CAP;
}

/** For an answer from an external store with as many rows as its engine cuts at: a line saying it may be cut, and how to have it whole. */
export async function cutNote(request: QueryRequest, text: string): Promise<string | undefined> {
  // Only an external store's answer is counted: a long one from a store held here is not parsed again.
  if (request.isGraph || text.length < EXTERNAL_ROW_CAP || !(await externalStore(request.storeDir))) return undefined;
  if (!atRowCap(request.mediaType, text)) return undefined;
  return `weave query: the answer has ${EXTERNAL_ROW_CAP.toLocaleString('en')} rows, the most Virtuoso answers with: it may be cut. Ask for it in pages (ORDER BY with LIMIT and OFFSET) to have it whole\n`;
}

/** The endpoints a federated query may contact: --service-allow's, and the sources named on the command line, allowed by naming them. */
export function allowList(request: QueryRequest): string[] {
  return [...request.serviceAllow, ...request.sources.map((s) => s.replace(/^sparql@/i, ''))];
}

/**
 * The server to ask: the store's, started if none runs; for a federated query only a `weave
 * serve` already running that allows every endpoint the query names, as this command does (a
 * resident server allows none). Undefined: the query runs here.
 */
export async function serverFor(request: QueryRequest, entry?: string): Promise<FoundServer | undefined> {
  if (request.noDaemon) return undefined;
  if (!request.federated) return residentServer(request.storeDir, { command: 'query', entry });
  const running = await findServer(request.storeDir);
  return running && federatesAsHere(running, request.query, request.sources, allowList(request)) ? running : undefined;
}

/**
 * A query error as the user reads it: a syntax error in a query read with `-f` names the file
 * before its line and column, as a compiler names the source it read.
 */
export function queryErrorText(request: QueryRequest, message: string): string {
  return request.file !== undefined && message.startsWith('error at line ') ? `${request.file}: ${message}` : message;
}

/**
 * Asks the server; undefined when it cannot give this answer whole (over its result limit, 507)
 * or cannot write it in the format and `--rdf` mode asked (406: XML that cannot carry the
 * result, triple terms in a syntax without them), so the caller runs it here, which gives the
 * same answer or the CLI's own error. A query error is the CLI's error, as a local run gives it,
 * and so is an endpoint of a federated query that cannot be reached (502).
 */
export async function answerFromServer(server: FoundServer, request: QueryRequest): Promise<{ stdout: string; note?: string } | undefined> {
  try {
    const text = (await queryServer(server, request.query, request.mediaType, serverMode(request), request.sources, request.timeoutMs))
      .text;
    return { stdout: printable(request, text), note: await cutNote(request, text) };
  } catch (e) {
    if (!(e instanceof ServerError)) throw e;
    // An answer the external store cut: asked again here, it would be cut again.
    if (e.status === 507 && isCut(e.message)) throw new CliError(e.message.replace(/^507 Insufficient Storage: /, ''));
    // Past the server's result limit, or in a format it does not send: the store opened here has neither.
    if (e.status === 507 || e.status === 406) return undefined;
    // `400 Bad Request: error at line 1, …` reads as a local run does: `error at line 1, …`.
    if (e.status === 400) throw new CliError(queryErrorText(request, e.message.replace(/^400 Bad Request: /, '')));
    if (e.status === 502 && request.federated) throw new CliError(e.message.replace(/^\d{3} [^:]*: /, ''));
    // Cut at the timeout, this command's or the server's own if shorter: said with its option, as a run here says it.
    if (e.status === 504) {
      const why = e.message.replace(/^504 [^:]*: /, '');
      throw new CliError(why.includes('--timeout') ? why : why.replace(/(timeout of [\d.]+ s)/, '$1 (--timeout)'));
    }
    throw new CliError(`the server at ${server.url}: ${e.message}`);
  }
}

export const QUERY: ServedCommand<QueryRequest> = {
  name: 'query',
  parse: parseQueryArgs,
  storeDir: (request) => request.storeDir,
  answersHere: (request) => request.noDaemon,
  server: serverFor,
  async ask(server, request) {
    const answer = await answerFromServer(server, request);
    return answer && { stdout: answer.stdout, warnings: request.warnings.join('') + (answer.note ?? ''), form: formOf(request) };
  },
  // The store holds triple terms in RDF 1.1 form already (store/remote/rdf11.ts): it answers in the format asked, as the full CLI's run does.
  async external(remote, request) {
    // The external store would run SERVICE itself, off the allow-list: the full CLI says it cannot.
    if (request.federated) return undefined;
    // A CONSTRUCT is counted against the rows the store cuts at, which this light client does not ask: the full CLI's.
    if (queryForm(request.query) === 'CONSTRUCT') return undefined;
    let text: string;
    try {
      text = await askExternal(remote, request.query, request.mediaType, request.timeoutMs);
    } catch (e) {
      // A query the store rejects is left to the full CLI, which points at a syntax error in the user's own lines.
      if (e instanceof ExternalAnswerError && e.status === 400) return undefined;
      if (request.timeoutMs && (e as Error).name === 'TimeoutError') throw new CliError(timedOut(request.timeoutMs));
      throw e;
    }
    return {
      stdout: printable(request, text),
      warnings: request.warnings.join('') + ((await cutNote(request, text)) ?? ''),
      form: formOf(request),
    };
  },
};
