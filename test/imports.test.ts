import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers.ts';

/**
 * The import graph of src/ has no cycle, type-only imports included: a cycle of types is still two
 * modules that cannot be understood (or moved) apart; and it keeps the seams the READMEs state.
 * Imports are read from the text, so this needs no dependency: `import … from`, `export … from`,
 * `import(…)` with a literal path.
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

/**
 * The seams the READMEs state, as (importer, imported) rules over paths relative to the repository:
 * the main thread's HTTP side and the external-store backend never reach into the query workers'
 * operations (src/server/README.md), and no module outside src/dialect reaches into a runtime's
 * folder there: the rest of the code asks the `Dialect` interface (src/dialect/README.md).
 */
const SEAMS: { rule: string; breaks: (from: string, to: string) => boolean }[] = [
  {
    rule: 'src/server/http and src/server/remote-backend.ts do not import src/server/workers/operations',
    breaks: (from, to) =>
      (from.startsWith('src/server/http/') || from === 'src/server/remote-backend.ts') && to.startsWith('src/server/workers/operations/'),
  },
  {
    rule: "no module outside src/dialect imports a runtime's folder in it (src/dialect/<runtime>/)",
    breaks: (from, to) => !from.startsWith('src/dialect/') && /^src\/dialect\/[^/]+\//.test(to),
  },
];

/** Every import that breaks a seam, as `<file> imports <file>: <rule>`. */
function seamBreaches(graph: Map<string, string[]>): string[] {
  const breaches: string[] = [];
  for (const [file, targets] of graph) {
    const from = relative(REPO, file);
    for (const target of targets) {
      const to = relative(REPO, target);
      for (const seam of SEAMS) if (seam.breaks(from, to)) breaches.push(`${from} imports ${to}: ${seam.rule}`);
    }
  }
  return breaches.sort();
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

test('the import graph of src/ keeps the stated seams', () => {
  const breaches = seamBreaches(importGraph(modules(SRC)));
  assert.deepEqual(breaches, [], `imports across a stated seam:\n${breaches.join('\n')}`);
});

test('the seam check names the file, the import and the rule', () => {
  const at = (path: string) => join(REPO, path);
  const graph = new Map([
    [at('src/server/http/store-summary.ts'), [at('src/server/workers/operations/persist.ts'), at('src/store/manifest.ts')]],
    [at('src/server/remote-backend.ts'), [at('src/server/workers/operations/rows.ts'), at('src/server/workers/pool.ts')]],
    [at('src/server/workers/query-worker.ts'), [at('src/server/workers/operations/query.ts')]],
    [at('src/model/tools.ts'), [at('src/dialect/claude-code/ids.ts'), at('src/dialect/dialect.ts')]],
    [at('src/dialect/index.ts'), [at('src/dialect/claude-code/index.ts')]],
  ]);
  assert.deepEqual(seamBreaches(graph), [
    "src/model/tools.ts imports src/dialect/claude-code/ids.ts: no module outside src/dialect imports a runtime's folder in it (src/dialect/<runtime>/)",
    'src/server/http/store-summary.ts imports src/server/workers/operations/persist.ts: src/server/http and src/server/remote-backend.ts do not import src/server/workers/operations',
    'src/server/remote-backend.ts imports src/server/workers/operations/rows.ts: src/server/http and src/server/remote-backend.ts do not import src/server/workers/operations',
  ]);
});

/** A package import: a bare name (no `.` or `/` first) after `import … from`, `import`, `import(`, `require(` or `require.resolve(`. */
const PACKAGE_IMPORT =
  /(?:^|\n)\s*((?:import|export)\s[^'"]*?\sfrom\s+|import\s+)['"]([^.'"/][^'"]*)['"]|\b(?:import|require|require\.resolve)\(\s*['"]([^.'"/][^'"]*)['"]\s*\)/g;

/** The packages a module imports (not Node's own), each with whether it is needed when the code runs (not `import type`). */
function packageImports(file: string): { name: string; runtime: boolean }[] {
  if (file.endsWith('.d.ts')) return [];
  return [...readFileSync(file, 'utf8').matchAll(PACKAGE_IMPORT)].flatMap((m) => {
    const spec = m[2] ?? m[3];
    if (isBuiltin(spec)) return [];
    const name = spec
      .split('/')
      .slice(0, spec.startsWith('@') ? 2 : 1)
      .join('/');
    return [{ name, runtime: !/^(?:import|export)\s+type\s/.test(m[1] ?? '') }];
  });
}

test('every package src/, test/ and bench/ import is declared in package.json; src/ needs only dependencies at run time', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const undeclared: string[] = [];
  const devAtRuntime: string[] = [];
  for (const dir of ['src', 'test', 'bench'])
    for (const file of modules(join(REPO, dir)))
      for (const { name, runtime } of packageImports(file)) {
        if (!pkg.dependencies[name] && !pkg.devDependencies[name]) undeclared.push(`${relative(REPO, file)} imports ${name}`);
        else if (dir === 'src' && runtime && !pkg.dependencies[name]) devAtRuntime.push(`${relative(REPO, file)} imports ${name}`);
      }
  assert.deepEqual(undeclared, [], `imported but not in package.json:\n${undeclared.join('\n')}`);
  assert.deepEqual(devAtRuntime, [], `needed at run time but only a devDependency:\n${devAtRuntime.join('\n')}`);
});
