/**
 * Scale bench step: Oxigraph's own chunked load of the same quads a store holds, with nothing of
 * Weave in between: every graph file the manifest names and the ontology, as N-Quads text in
 * 10k-quad chunks into one oxigraph.Store, then the alignment graph, so both hold the same quads.
 * Args: STORE
 */
import { wasmBytes } from './wasm.ts';
import { readFile } from 'node:fs/promises';
import oxigraph from 'oxigraph';
import { loadAlignment } from '../../src/align/ravel.ts';
import { readGraphBytes, readManifest } from '../../src/store/manifest.ts';
import { ONTOLOGY_FILE } from '../../src/store/ontology.ts';
import { ONTOLOGY_GRAPH } from '../../src/rdf/vocab.ts';
import { measure, peakRssMiB, report } from './child.ts';

const [storeDir] = process.argv.slice(2);
const manifest = await readManifest(storeDir);
const format = 'application/n-quads';

const loaded = await measure(async () => {
  const store = new oxigraph.Store();
  let chunk: string[] = [];
  // Every file of each graph (its spine and its derived part), as far as the manifest names it:
  // reading the spine alone loaded 389k of the corpus's 579k quads.
  for (const entry of Object.values(manifest?.graphs ?? {}))
    for (const line of (await readGraphBytes(storeDir, entry)).toString('utf8').split('\n')) {
      if (!line) continue;
      chunk.push(line);
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
  // The alignment graph the store also holds (ravel's terms, owl:sameAs per turn): the same quads on both sides.
  await loadAlignment(store, manifest?.soul ?? 'local');
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
