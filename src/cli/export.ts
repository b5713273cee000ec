import { own } from '../own.ts';
import { createWriteStream } from 'node:fs';
import oxigraph from 'oxigraph';
import { DATASET_FORMATS, GRAPH_FORMATS } from '../query/formats.ts';
import { openStore, type OxStore } from '../store/store.ts';
import { CliError, COMMON_HELP, parse, storeDir } from './options.ts';

const HELP = `usage: weave export [options]

Writes the store, or one graph of it, to stdout or a file.

options:
  --format F         trig (default), nquads, turtle, ntriples, jsonld, rdfxml; turtle, ntriples
                     and rdfxml have no graphs, so they merge all graphs into one
  --graph IRI        only this named graph
  -o, --output FILE  write to FILE instead of stdout
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const { values } = parse(args, { format: { type: 'string' }, graph: { type: 'string' }, output: { type: 'string', short: 'o' } });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const format = own(GRAPH_FORMATS, values.format ?? 'trig');
  if (!format) throw new CliError(`unknown --format "${values.format}"`, 2);
  const { store } = await openStore(storeDir(values));
  const out = values.output ? createWriteStream(values.output) : process.stdout;
  const graphs = values.graph ? [values.graph] : graphNames(store);
  if (values.graph && !graphs.some((g) => store.match(null, null, null, oxigraph.namedNode(g)).length))
    throw new CliError(`no graph <${values.graph}> in the store`);
  // One graph at a time keeps every string Oxigraph returns well below V8's string limit;
  // JSON-LD is one document, so it is dumped whole.
  const texts = format === GRAPH_FORMATS.jsonld ? [dumpJsonLd(store, graphs)] : graphs.map((g) => () => dumpGraph(store, g, format));
  for (const text of texts) {
    if (!out.write(typeof text === 'string' ? text : text())) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  if (values.output) await new Promise<void>((resolve, reject) => (out as NodeJS.WritableStream).end(() => resolve()).on?.('error', reject));
  return 0;
}

export function graphNames(store: OxStore): string[] {
  const rows = store.query('SELECT DISTINCT ?g WHERE { GRAPH ?g { } }') as Map<string, oxigraph.Term>[];
  return rows.map((r) => r.get('g')!.value).sort();
}

/** One graph in `format`: dataset formats keep the graph name, graph formats flatten. */
export function dumpGraph(store: OxStore, graph: string, format: string): string {
  const name = oxigraph.namedNode(graph);
  if (!DATASET_FORMATS.has(format)) return store.dump({ format, from_graph_name: name });
  return new oxigraph.Store(store.match(null, null, null, name)).dump({ format });
}

/**
 * JSON-LD cannot carry RDF 1.2 triple terms yet, so statements whose object is one
 * (`rdf:reifies`) are left out, and stderr says how many.
 */
export function dumpJsonLd(store: OxStore, graphs: string[]): string {
  const quads = graphs.flatMap((g) => store.match(null, null, null, oxigraph.namedNode(g)));
  const plain = quads.filter((q) => q.object.termType !== 'Quad');
  if (plain.length < quads.length)
    process.stderr.write(`weave export: JSON-LD cannot hold RDF 1.2 triple terms; ${quads.length - plain.length} rdf:reifies statements left out (use trig)\n`);
  return new oxigraph.Store(plain).dump({ format: GRAPH_FORMATS.jsonld });
}
