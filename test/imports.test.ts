import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers.ts';

/**
 * The import graph of src/ has no cycle, type-only imports included: a cycle of types is still two
 * modules that cannot be understood (or moved) apart. Imports are read from the text, so this
 * needs no dependency: `import … from`, `export … from`, `import(…)` with a literal path.
 */

const SRC = join(REPO, 'src');
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?\sfrom\s+['"](\.[^'"]+)['"]|(?:^|\n)\s*import\s+['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : /\.(ts|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Each module's relative imports, by absolute path. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), m[1] ?? m[2] ?? m[3]));
    graph.set(file, [...new Set(targets.filter((t) => files.includes(t)))]);
  }
  return graph;
}

/** The strongly connected components with more than one module, or a module importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.map((f) => relative(REPO, f)).sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the import graph of src/ has no cycle, type-only imports included', () => {
  const graph = importGraph(modules(SRC));
  // The reading itself is checked: the session emitter's imports are found, type-only ones too.
  assert.deepEqual(
    graph
      .get(join(SRC, 'emit', 'session.ts'))!
      .map((f) => relative(SRC, f))
      .sort(),
    [
      'acquire/lines.ts',
      'dialect/dialect.ts',
      'emit/content.ts',
      'emit/contract.ts',
      'emit/defaults.ts',
      'rdf/iri.ts',
      'rdf/terms.ts',
      'rdf/vocab.ts',
    ],
  );
  assert.deepEqual(cycles(graph), []);
});

test('the cycle finder finds a cycle of type-only imports', () => {
  const a = join(SRC, 'a.ts');
  const b = join(SRC, 'b.ts');
  const c = join(SRC, 'c.ts');
  assert.deepEqual(
    cycles(
      new Map([
        [a, [b]],
        [b, [a, c]],
        [c, []],
      ]),
    ),
    [['src/a.ts', 'src/b.ts']],
  );
  assert.deepEqual(cycles(new Map([[c, [c]]])), [['src/c.ts']]);
});
