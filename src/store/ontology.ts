import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * `ontology/weave.ttl` is the one document users load elsewhere, and it declares every term the
 * code emits. It is assembled from `ontology/parts/*.ttl`, one part per layer (spine, records,
 * model, readers), so each layer's terms sit beside each other while they are written.
 * Run this file to rebuild it; `test/ontology.test.ts` checks it is current.
 */

export const ONTOLOGY_FILE = new URL('../../ontology/weave.ttl', import.meta.url);
const PARTS_DIR = new URL('../../ontology/parts/', import.meta.url);
/** The spine first: it holds the owl:Ontology header. */
const ORDER = ['spine.ttl', 'records.ttl', 'model.ttl', 'readers.ttl'];

export async function renderOntology(): Promise<string> {
  const names = (await readdir(PARTS_DIR)).filter((n) => n.endsWith('.ttl'));
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const parts = await Promise.all(names.map(async (n) => `# ---- ontology/parts/${n} ----\n\n${(await readFile(new URL(n, PARTS_DIR), 'utf8')).trim()}\n`));
  return `# Generated from ontology/parts/*.ttl by src/store/ontology.ts; edit the parts, not this file.\n\n${parts.join('\n')}`;
}

function rank(name: string): number {
  const i = ORDER.indexOf(name);
  return i === -1 ? ORDER.length : i;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(ONTOLOGY_FILE, await renderOntology());
}
