import { answerFromServer, parseQueryArgs, printable } from '../client/query.ts';
import { QueryError } from '../query/run.ts';
import { openQueries } from '../store/queries.ts';
import { findServer } from '../store/running.ts';
import { CliError, COMMON_HELP } from './options.ts';

const HELP = `usage: weave query QUERY [options]
       weave query -f FILE.rq [options]

Runs SPARQL over the store: the union of all graphs, with the prefixes weave, rdf, rdfs, xsd,
owl, prov, oa, skos and dcterms predeclared. When a weave serve runs for the store, it answers
(the store is open there); otherwise the store is opened here, which takes longer.

options:
  -f, --file FILE    read the query from FILE
  --format F         table (default), json, csv, tsv, xml for SELECT/ASK;
                     turtle (default), ntriples, nquads, trig, jsonld, rdfxml for CONSTRUCT/DESCRIBE
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const request = await parseQueryArgs(args);
  if (!request) {
    process.stdout.write(HELP);
    return 0;
  }
  const server = await findServer(request.storeDir);
  const answered = server && (await answerFromServer(server, request));
  if (answered !== undefined) {
    process.stdout.write(answered);
    return 0;
  }
  if (server) process.stderr.write(`weave query: the answer is larger than the server at ${server.url} sends; opening the store here\n`);

  const queries = await openQueries(request.storeDir);
  let out: string;
  try {
    out = await queries.query(request.query, request.mediaType);
  } catch (e) {
    if (e instanceof QueryError) throw new CliError(e.message);
    throw e;
  }
  process.stdout.write(printable(request, out));
  return 0;
}
