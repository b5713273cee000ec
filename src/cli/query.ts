import { own } from '../own.ts';
import { readFile } from 'node:fs/promises';
import oxigraph from 'oxigraph';
import { GRAPH_FORMATS, SOLUTION_FORMATS } from '../query/formats.ts';
import { QueryError, returnsGraph, runQuery } from '../query/run.ts';
import { renderTable, type JsonResults } from '../query/table.ts';
import { openStore } from '../store/store.ts';
import { CliError, COMMON_HELP, parse, storeDir } from './options.ts';

const HELP = `usage: weave query QUERY [options]
       weave query -f FILE.rq [options]

Runs SPARQL over the store: the union of all graphs, with the prefixes weave, rdf, rdfs, xsd,
owl, prov, oa, skos and dcterms predeclared.

options:
  -f, --file FILE    read the query from FILE
  --format F         table (default), json, csv, tsv, xml for SELECT/ASK;
                     turtle (default), ntriples, nquads, trig, jsonld, rdfxml for CONSTRUCT/DESCRIBE
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { file: { type: 'string', short: 'f' }, format: { type: 'string' } });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const query = values.file ? await readFile(values.file, 'utf8') : positionals.join(' ');
  if (!query.trim()) throw new CliError('no query: give one as an argument or with -f FILE', 2);
  const format = values.format ?? 'table';
  if (format !== 'table' && !own(SOLUTION_FORMATS, format) && !own(GRAPH_FORMATS, format))
    throw new CliError(`unknown --format "${format}"`, 2);

  const { store } = await openStore(storeDir(values));
  const isGraph = returnsGraph(query);
  const mediaType = isGraph ? (own(GRAPH_FORMATS, format) ?? GRAPH_FORMATS.turtle) : (own(SOLUTION_FORMATS, format) ?? SOLUTION_FORMATS.json);
  let out: ReturnType<typeof runQuery>;
  try {
    out = runQuery(store, query, { results_format: mediaType }, oxigraph);
  } catch (e) {
    if (e instanceof QueryError) throw new CliError(e.message);
    throw e;
  }
  const text = out as string;
  process.stdout.write(format === 'table' && !isGraph ? renderTable(JSON.parse(text) as JsonResults) : text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}
