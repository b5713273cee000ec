/**
 * The endpoint's reference (issue 23): one bare Fastify route over an in-process Oxigraph store
 * holding the same quads (Weave's openStore), each query handed to Oxigraph as it came (the usual
 * prefixes put before it) over Oxigraph's own union default graph: no workers, no queue, no
 * limits, no rewrite. Args: STORE PORT. Prints one JSON line once it listens: { port, turn }.
 */
import Fastify from 'fastify';
import { sparqlPrefixes } from '../src/rdf/vocab.ts';
import { openStore } from '../src/store/store.ts';

const [storeDir, portArg] = process.argv.slice(2);
const { store } = await openStore(storeDir);
const prefixes = sparqlPrefixes();
const ask = (query: string) =>
  store.query(prefixes + query, { use_default_graph_as_union: true, results_format: 'application/sparql-results+json' }) as string;

const app = Fastify();
app.get('/sparql', async (request, reply) => {
  reply.type('application/sparql-results+json');
  return ask((request.query as { query?: string }).query ?? '');
});
await app.listen({ port: Number(portArg), host: '127.0.0.1' });
const first = JSON.parse(ask('SELECT ?t WHERE { ?t a weave:AssistantTurn } ORDER BY ?t LIMIT 1')) as {
  results: { bindings: { t: { value: string } }[] };
};
process.stdout.write(`${JSON.stringify({ port: Number(portArg), turn: first.results.bindings[0]?.t.value })}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
