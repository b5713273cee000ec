import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Parser } from 'n3';
import { WEAVE_NS } from '../rdf/vocab.ts';

/**
 * `ontology/weave.ttl` is the one document users load elsewhere, and it declares every term the
 * code emits. It is assembled from `ontology/parts/*.ttl`, one part per layer (spine, records,
 * model, readers), so each layer's terms sit beside each other while they are written.
 * Run this file (`npm run ontology`) to rebuild it and `src/rdf/weave-terms.ts`, the list of
 * terms the code may name; `test/ontology.test.ts` checks both are current.
 */

export const ONTOLOGY_FILE = new URL('../../ontology/weave.ttl', import.meta.url);
export const TERMS_FILE = new URL('../rdf/weave-terms.ts', import.meta.url);
const PARTS_DIR = new URL('../../ontology/parts/', import.meta.url);
/** The spine first: it holds the owl:Ontology header. */
const ORDER = ['spine.ttl', 'records.ttl', 'model.ttl', 'readers.ttl'];

export async function renderOntology(): Promise<string> {
  const names = (await readdir(PARTS_DIR)).filter((n) => n.endsWith('.ttl'));
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const parts = await Promise.all(
    names.map(async (n) => `# ---- ontology/parts/${n} ----\n\n${(await readFile(new URL(n, PARTS_DIR), 'utf8')).trim()}\n`),
  );
  return `# Generated from ontology/parts/*.ttl by src/store/ontology.ts; edit the parts, not this file.\n\n${parts.join('\n')}`;
}

function rank(name: string): number {
  const i = ORDER.indexOf(name);
  return i === -1 ? ORDER.length : i;
}

/** Every weave: term the ontology declares, as a TypeScript list: `weave.X` compiles only for these. */
export function renderTerms(ontology: string): string {
  const names = new Set<string>();
  for (const quad of new Parser().parse(ontology)) {
    if (quad.subject.termType === 'NamedNode' && quad.subject.value.startsWith(WEAVE_NS))
      names.add(quad.subject.value.slice(WEAVE_NS.length));
  }
  const list = [...names]
    .sort()
    .map((n) => `  '${n}',\n`)
    .join('');
  return `// Generated from ontology/weave.ttl by src/store/ontology.ts (npm run ontology); do not edit.\n\nexport const WEAVE_TERMS = [\n${list}] as const;\n\nexport type WeaveTerm = (typeof WEAVE_TERMS)[number];\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const ontology = await renderOntology();
  await writeFile(ONTOLOGY_FILE, ontology);
  await writeFile(TERMS_FILE, renderTerms(ontology));
}
