import { own } from '../own.ts';
import { readFile } from 'node:fs/promises';
import { Writer } from 'n3';
import oxigraph from 'oxigraph';
import { FederationError, needsFederation } from '../federation/allow.ts';
import { SourceFileError } from '../federation/sources.ts';
import { terminalWidth } from '../query/fit.ts';
import { GRAPH_FORMATS, SOLUTION_FORMATS } from '../query/formats.ts';
import { NoTripleTermsError, NotXmlGraphError, writeGraph } from '../query/graph-results.ts';
import { QueryError, returnsGraph, runQuery } from '../query/run.ts';
import { NotXmlError, writeSolutions } from '../query/solutions.ts';
import { renderTable, type JsonResults } from '../query/table.ts';
import { isRdfMode, type RdfMode } from '../rdf/rdf-mode.ts';
import { unknownWeaveTerms } from '../query/terms.ts';
import { openStore } from '../store/store.ts';
import { CliError, COMMON_HELP, parse, requireStore, storeDir } from './options.ts';

const HELP = `usage: weave query QUERY [options]
       weave query -f FILE.rq [options]

Runs SPARQL over the store: the union of all graphs, with the prefixes weave, rdf, rdfs, xsd,
owl, prov, oa, skos and dcterms predeclared. With --source, or a SERVICE clause, the query is
federated with Comunica: the store joined with the sources and the SERVICE endpoints.

options:
  -f, --file FILE        read the query from FILE
  --format F             table (default), json, csv, tsv, xml for SELECT/ASK;
                         turtle (default), ntriples, nquads, trig, jsonld, rdfxml for CONSTRUCT/DESCRIBE
  --rdf MODE             triple terms in graph results: 1.2 (default), 1.1 (RDF 1.1 reification on
                         the same reifier), star (<< s p o >>); see weave export --help
  --source S             also query S (repeatable): a SPARQL endpoint or RDF document by URL
                         (sparql@URL forces an endpoint), or a Turtle, TriG, N-Triples or N-Quads file
  --service-allow URL    an endpoint SERVICE clauses may name (repeatable); no other is contacted
  --wide                 table: print every cell in full, whatever the terminal's width
${COMMON_HELP}
`;

const names = (formats: Record<string, string>) => Object.keys(formats).join(', ');

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    file: { type: 'string', short: 'f' },
    format: { type: 'string' },
    rdf: { type: 'string' },
    source: { type: 'string', multiple: true },
    'service-allow': { type: 'string', multiple: true },
    wide: { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const query = values.file ? await readFile(values.file, 'utf8').catch(() => { throw new CliError(`${values.file}: cannot read the query file`); }) : positionals.join(' ');
  if (!query.trim()) throw new CliError('no query: give one as an argument or with -f FILE', 2);
  const isGraph = returnsGraph(query);
  const format = values.format ?? (isGraph ? 'turtle' : 'table');
  if (format !== 'table' && !own(SOLUTION_FORMATS, format) && !own(GRAPH_FORMATS, format))
    throw new CliError(`unknown --format "${format}": table, ${names(SOLUTION_FORMATS)} for SELECT and ASK; ${names(GRAPH_FORMATS)} for CONSTRUCT and DESCRIBE`, 2);
  if (isGraph && !own(GRAPH_FORMATS, format))
    throw new CliError(`--format ${format} is for SELECT and ASK results; a CONSTRUCT or DESCRIBE answers with a graph: use ${names(GRAPH_FORMATS)}`, 2);
  if (!isGraph && own(GRAPH_FORMATS, format))
    throw new CliError(`--format ${format} is for graphs (CONSTRUCT, DESCRIBE); a SELECT or ASK answers with solutions: use table, ${names(SOLUTION_FORMATS)}`, 2);
  const mode = (values.rdf ?? '1.2') as RdfMode;
  if (!isRdfMode(mode)) throw new CliError(`unknown --rdf "${values.rdf}" (1.2, 1.1 or star)`, 2);
  const sources = values.source ?? [];
  const mediaType = isGraph ? (own(GRAPH_FORMATS, format) ?? GRAPH_FORMATS.turtle) : (own(SOLUTION_FORMATS, format) ?? SOLUTION_FORMATS.json);
  const federated = needsFederation(query, sources);

  // The query's syntax first, on an empty store: a typo is reported before the store loads.
  // (A federated query is left to Comunica: an empty Oxigraph store cannot run its SERVICE clauses.)
  if (!federated) run(() => runQuery(new oxigraph.Store(), query, { results_format: isGraph ? GRAPH_FORMATS.nquads : SOLUTION_FORMATS.json }, oxigraph));
  for (const term of unknownWeaveTerms(query)) process.stderr.write(`weave query: weave:${term} is not a term of the ontology (ontology/weave.ttl); nothing will match it\n`);
  const dir = storeDir(values);
  await requireStore(dir);
  const { store } = await openStore(dir);
  const width = values.wide ? Number.POSITIVE_INFINITY : terminalWidth();
  const table = (results: JsonResults) => renderTable(results, { width, cell: values.wide ? width : 60 });
  const text = await run(async () => {
    if (federated) {
      // Sources named on the command line are allowed by naming them.
      const allow = [...(values['service-allow'] ?? []), ...sources.map((s) => s.replace(/^sparql@/i, ''))];
      const { runFederated } = await import('../federation/engine.ts'); // Comunica loads only when needed
      const result = await runFederated(store, query, { sources, allow });
      if (result.kind === 'solutions') return format === 'table' ? table(result.results) : writeSolutions(result.results, mediaType, mode === '1.1' ? 'literal' : mode);
      const writer = new Writer({ format: 'N-Quads' });
      writer.addQuads(result.quads);
      let nquads = '';
      writer.end((_e, out) => (nquads = out));
      return writeGraph(nquads, mediaType, mode);
    }
    if (isGraph) return writeGraph(runQuery(store, query, { results_format: GRAPH_FORMATS.nquads }, oxigraph) as string, mediaType, mode);
    const json = runQuery(store, query, { results_format: SOLUTION_FORMATS.json }, oxigraph) as string;
    if (format === 'table') return table(JSON.parse(json) as JsonResults);
    return mediaType === SOLUTION_FORMATS.json && mode === '1.2' ? json : writeSolutions(JSON.parse(json) as JsonResults, mediaType, mode === '1.1' ? 'literal' : mode);
  });
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

/** Runs `job`, its errors told as the CLI tells them. */
function run<T>(job: () => T): T {
  const told = (e: unknown): never => {
    if (e instanceof QueryError || e instanceof FederationError || e instanceof SourceFileError) throw new CliError(e.message);
    if (e instanceof NotXmlError || e instanceof NotXmlGraphError || e instanceof NoTripleTermsError) throw new CliError(`${e.message}; use --format json, tsv, turtle or ntriples${e instanceof NoTripleTermsError ? ', or --rdf 1.1' : ''}`);
    throw e;
  };
  try {
    const result = job();
    return (result instanceof Promise ? result.catch(told) : result) as T;
  } catch (e) {
    return told(e);
  }
}
