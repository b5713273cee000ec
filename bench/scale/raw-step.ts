/**
 * Scale bench step: Oxigraph's own chunked load of the same quads a store holds, with nothing of
 * Weave in between: every graph file the manifest names and the ontology, as N-Quads text in
 * 10k-quad chunks into one oxigraph.Store. Args: STORE
 */
import { wasmBytes } from './wasm.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import oxigraph from 'oxigraph';
import { readLines } from '../../src/acquire/lines.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { ONTOLOGY_FILE } from '../../src/store/ontology.ts';
import { ONTOLOGY_GRAPH } from '../../src/rdf/vocab.ts';
import { measure, peakRssMiB, report } from './child.ts';

const [storeDir] = process.argv.slice(2);
const manifest = await readManifest(storeDir);
const format = 'application/n-quads';

const loaded = await measure(async () => {
  const store = new oxigraph.Store();
  let chunk: string[] = [];
  for (const entry of Object.values(manifest?.graphs ?? {}))
    for await (const line of readLines(join(storeDir, entry.file))) {
      chunk.push(line.text);
      if (chunk.length === 10_000) {
        store.load(chunk.join('\n'), { format, no_transaction: true });
        chunk = [];
      }
    }
  if (chunk.length) store.load(chunk.join('\n'), { format, no_transaction: true });
  store.load(await readFile(ONTOLOGY_FILE, 'utf8'), {
    format: 'text/turtle',
    base_iri: ONTOLOGY_GRAPH,
    to_graph_name: oxigraph.namedNode(ONTOLOGY_GRAPH),
  });
  return store;
});
report({
  step: 'raw',
  wallMs: loaded.wallMs,
  cpuMs: loaded.cpuMs,
  quads: loaded.value.size,
  wasmBytes: wasmBytes(),
  peakRssMiB: peakRssMiB(),
});
