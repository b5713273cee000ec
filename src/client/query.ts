import { readFile } from 'node:fs/promises';
import { CliError, parse, storeDir } from '../cli/options.ts';
import { GRAPH_FORMATS, SOLUTION_FORMATS } from '../query/formats.ts';
import { returnsGraph } from '../query/run.ts';
import { renderTable, type JsonResults } from '../query/table.ts';
import type { FoundServer } from '../store/running.ts';
import { queryServer, ServerError } from './server.ts';

/**
 * `weave query` without the store: its arguments, and its answer from a running server. This
 * module imports no Oxigraph, so the light entry (client/fast.ts) can run it with nothing else.
 */

export interface QueryRequest {
  query: string;
  format: string;
  storeDir: string;
  /** CONSTRUCT or DESCRIBE: the answer is a graph. */
  isGraph: boolean;
  /** The media type asked of the store. */
  mediaType: string;
}

/** `weave query` arguments; undefined for `--help`. */
export async function parseQueryArgs(args: string[]): Promise<QueryRequest | undefined> {
  const { values, positionals } = parse(args, { file: { type: 'string', short: 'f' }, format: { type: 'string' } });
  if (values.help) return undefined;
  const query = values.file ? await readFile(values.file, 'utf8') : positionals.join(' ');
  if (!query.trim()) throw new CliError('no query: give one as an argument or with -f FILE', 2);
  const format = values.format ?? 'table';
  if (format !== 'table' && !SOLUTION_FORMATS[format] && !GRAPH_FORMATS[format]) throw new CliError(`unknown --format "${format}"`, 2);
  const isGraph = returnsGraph(query);
  const mediaType = isGraph ? (GRAPH_FORMATS[format] ?? GRAPH_FORMATS.turtle) : (SOLUTION_FORMATS[format] ?? SOLUTION_FORMATS.json);
  return { query, format, storeDir: storeDir(values), isGraph, mediaType };
}

/** The text `weave query` prints for an answer in `request.mediaType`. */
export function printable(request: QueryRequest, text: string): string {
  if (request.format === 'table' && !request.isGraph) return renderTable(JSON.parse(text) as JsonResults);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * Asks the server; undefined when it cannot give this answer whole (over its result limit, 507),
 * so the caller opens the store itself. A query error is the CLI's error, as a local run gives it.
 */
export async function answerFromServer(server: FoundServer, request: QueryRequest): Promise<string | undefined> {
  try {
    return printable(request, (await queryServer(server, request.query, request.mediaType)).text);
  } catch (e) {
    if (!(e instanceof ServerError)) throw e;
    if (e.status === 507) return undefined;
    // `400 Bad Request: error at line 1, …` reads as a local run does: `error at line 1, …`.
    throw new CliError(e.status === 400 ? e.message.replace(/^400 Bad Request: /, '') : `the server at ${server.url}: ${e.message}`);
  }
}
