import { own } from '../own.ts';
import { readFile } from 'node:fs/promises';
import { Writer } from 'n3';
import oxigraph from 'oxigraph';
import { FederationError } from '../federation/allow.ts';
import { SourceFileError } from '../federation/sources.ts';
import { GRAPH_FORMATS, SOLUTION_FORMATS } from '../query/formats.ts';
import { NoTripleTermsError, NotXmlGraphError, writeGraph } from '../query/graph-results.ts';
import { QueryError, returnsGraph, runQuery } from '../query/run.ts';
import { NotXmlError, writeSolutions } from '../query/solutions.ts';
import { renderTable, type JsonResults } from '../query/table.ts';
import { isRdfMode, type RdfMode } from '../rdf/rdf-mode.ts';
import { openStore } from '../store/store.ts';
import { CliError, COMMON_HELP, parse, storeDir } from './options.ts';

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
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    file: { type: 'string', short: 'f' },
    format: { type: 'string' },
    rdf: { type: 'string' },
    source: { type: 'string', multiple: true },
    'service-allow': { type: 'string', multiple: true },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const query = values.file ? await readFile(values.file, 'utf8') : positionals.join(' ');
  if (!query.trim()) throw new CliError('no query: give one as an argument or with -f FILE', 2);
  const format = values.format ?? 'table';
  if (format !== 'table' && !own(SOLUTION_FORMATS, format) && !own(GRAPH_FORMATS, format))
    throw new CliError(`unknown --format "${format}"`, 2);
  const mode = (values.rdf ?? '1.2') as RdfMode;
  if (!isRdfMode(mode)) throw new CliError(`unknown --rdf "${values.rdf}" (1.2, 1.1 or star)`, 2);
  const sources = values.source ?? [];

  const { store } = await openStore(storeDir(values));
  const isGraph = returnsGraph(query);
  const mediaType = isGraph
    ? (own(GRAPH_FORMATS, format) ?? GRAPH_FORMATS.turtle)
    : (own(SOLUTION_FORMATS, format) ?? SOLUTION_FORMATS.json);
  let text: string;
  try {
    const { needsFederation, runFederated } = await import('../federation/engine.ts');
    if (needsFederation(query, sources)) {
      // Sources named on the command line are allowed by naming them.
      const allow = [...(values['service-allow'] ?? []), ...sources.map((s) => s.replace(/^sparql@/i, ''))];
      const result = await runFederated(store, query, { sources, allow });
      if (result.kind === 'solutions')
        text =
          format === 'table' ? renderTable(result.results) : writeSolutions(result.results, mediaType, mode === '1.1' ? 'literal' : mode);
      else {
        const writer = new Writer({ format: 'N-Quads' });
        writer.addQuads(result.quads);
        let nquads = '';
        writer.end((_e, out) => (nquads = out));
        text = writeGraph(nquads, mediaType, mode);
      }
    } else if (isGraph) {
      text = writeGraph(runQuery(store, query, { results_format: GRAPH_FORMATS.nquads }, oxigraph) as string, mediaType, mode);
    } else {
      const json = runQuery(store, query, { results_format: SOLUTION_FORMATS.json }, oxigraph) as string;
      text =
        format === 'table'
          ? renderTable(JSON.parse(json) as JsonResults)
          : mediaType === SOLUTION_FORMATS.json && mode === '1.2'
            ? json
            : writeSolutions(JSON.parse(json) as JsonResults, mediaType, mode === '1.1' ? 'literal' : mode);
    }
  } catch (e) {
    if (e instanceof QueryError || e instanceof FederationError || e instanceof SourceFileError) throw new CliError(e.message);
    if (e instanceof NotXmlError || e instanceof NotXmlGraphError || e instanceof NoTripleTermsError)
      throw new CliError(
        `${e.message}; use --format json, tsv, turtle or ntriples${e instanceof NoTripleTermsError ? ', or --rdf 1.1' : ''}`,
      );
    throw e;
  }
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}
