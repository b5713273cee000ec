import { readFile } from 'node:fs/promises';
import oxigraph from 'oxigraph';
import { terminalWidth } from '../query/fit.ts';
import { GRAPH_FORMATS, SOLUTION_FORMATS } from '../query/formats.ts';
import { QueryError, returnsGraph, runQuery } from '../query/run.ts';
import { renderTable, type JsonResults } from '../query/table.ts';
import { unknownWeaveTerms } from '../query/terms.ts';
import { openStore } from '../store/store.ts';
import { CliError, COMMON_HELP, parse, requireStore, storeDir } from './options.ts';

const HELP = `usage: weave query QUERY [options]
       weave query -f FILE.rq [options]

Runs SPARQL over the store: the union of all graphs, with the prefixes weave, rdf, rdfs, xsd,
owl, prov, oa, skos and dcterms predeclared.

options:
  -f, --file FILE    read the query from FILE
  --format F         table (default), json, csv, tsv, xml for SELECT/ASK;
                     turtle (default), ntriples, nquads, trig, jsonld, rdfxml for CONSTRUCT/DESCRIBE
  --wide             table: print every cell in full, whatever the terminal's width
${COMMON_HELP}
`;

const names = (formats: Record<string, string>) => Object.keys(formats).join(', ');

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { file: { type: 'string', short: 'f' }, format: { type: 'string' }, wide: { type: 'boolean' } });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const query = values.file ? await readFile(values.file, 'utf8').catch(() => { throw new CliError(`${values.file}: cannot read the query file`); }) : positionals.join(' ');
  if (!query.trim()) throw new CliError('no query: give one as an argument or with -f FILE', 2);
  const isGraph = returnsGraph(query);
  const format = values.format ?? (isGraph ? 'turtle' : 'table');
  if (format !== 'table' && !SOLUTION_FORMATS[format] && !GRAPH_FORMATS[format])
    throw new CliError(`unknown --format "${format}": table, ${names(SOLUTION_FORMATS)} for SELECT and ASK; ${names(GRAPH_FORMATS)} for CONSTRUCT and DESCRIBE`, 2);
  if (isGraph && !GRAPH_FORMATS[format])
    throw new CliError(`--format ${format} is for SELECT and ASK results; a CONSTRUCT or DESCRIBE answers with a graph: use ${names(GRAPH_FORMATS)}`, 2);
  if (!isGraph && GRAPH_FORMATS[format])
    throw new CliError(`--format ${format} is for graphs (CONSTRUCT, DESCRIBE); a SELECT or ASK answers with solutions: use table, ${names(SOLUTION_FORMATS)}`, 2);
  const mediaType = isGraph ? GRAPH_FORMATS[format] : (SOLUTION_FORMATS[format] ?? SOLUTION_FORMATS.json);

  // The query's syntax first, on an empty store: a typo is reported before the store loads.
  run(new oxigraph.Store(), query, mediaType);
  for (const term of unknownWeaveTerms(query)) process.stderr.write(`weave query: weave:${term} is not a term of the ontology (ontology/weave.ttl); nothing will match it\n`);
  const dir = storeDir(values);
  await requireStore(dir);
  const { store } = await openStore(dir);
  const text = run(store, query, mediaType) as string;
  const width = values.wide ? Number.POSITIVE_INFINITY : terminalWidth();
  process.stdout.write(format === 'table' ? renderTable(JSON.parse(text) as JsonResults, { width, cell: values.wide ? width : 60 }) : text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

function run(store: oxigraph.Store, query: string, mediaType: string): ReturnType<typeof runQuery> {
  try {
    return runQuery(store, query, { results_format: mediaType }, oxigraph);
  } catch (e) {
    if (e instanceof QueryError) throw new CliError(e.message);
    throw e;
  }
}
