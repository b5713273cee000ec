// Weave's TypeScript bundled into plain .mjs by esbuild (which tsx brings), cached under
// node_modules/.cache/weave/ and rebuilt when any file it was built from changes (size or mtime).
// Loading it needs no TypeScript loader: tsx costs a process 0.2 s, and a thread 0.7 s, of CPU to
// bring in and to load Weave's modules through. Each call gives undefined when it cannot be built
// or cached here: the caller then takes the tsx path.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const CACHE = join(ROOT, 'node_modules', '.cache', 'weave');
/** How a bundle is built: part of its cache key, so a change here is never served a bundle built otherwise. */
const OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // CommonJS packages bundled in (yaml) require Node's modules: the bundle gets a require of its own.
  banner: { js: "import { createRequire as __weaveRequire } from 'node:module'; const require = __weaveRequire(import.meta.url);" },
};

/** Modules split into chunks, each loaded when first asked for. */
const SPLIT = { ...OPTIONS, splitting: true, chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' } };

/**
 * The light entries are split as the programs are: what a module imports later (the external
 * store's query rewrite with its SPARQL parser, the YAML printer) is a chunk loaded when asked
 * for, so a command that never asks does not compile it. In one file they were 1.2 MB, parsed
 * by every `weave query`; the entry alone is a fifth of that.
 */
const LIGHT_OPTIONS = { ...SPLIT, entryNames: '[name]' };

/**
 * The programs: the command line and the entries of its threads, built together. Their modules
 * are split into chunks each loads when first asked for (a command's own, a package's), as tsx
 * would load them, and the packages are imported from node_modules as they are (Oxigraph and
 * Comunica load files of their own).
 */
const PROGRAMS = ['cli/main.ts', 'session-worker.ts', 'server/workers/query-worker.ts', 'server/workers/ingest-worker.ts'];
const PROGRAM_OPTIONS = {
  ...SPLIT,
  packages: 'external',
  outbase: SRC,
  entryNames: '[dir]/[name]',
  // Mapped back to the sources when a stack is asked for (`--verbose`: src/cli/launch.mjs).
  sourcemap: 'linked',
};
/** A chunk no build has written for this long is taken away (a process still running from an older build may yet load one). */
const CHUNK_KEPT_MS = 7 * 24 * 3600 * 1000;

/**
 * Each of Weave's modules keeps its own `import.meta.url` in a bundle, where esbuild would give it
 * the bundle's: what a module finds beside itself (the ontology, the queries, a worker's entry, a
 * dialect's module) is where it was.
 */
const OWN_URLS = {
  name: 'weave-own-urls',
  setup(build) {
    build.onLoad({ filter: /\.(ts|mjs)$/ }, async ({ path }) => {
      if (!path.startsWith(SRC)) return undefined;
      const text = await readFile(path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const contents = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href));
      return { contents, loader: extname(path) === '.ts' ? 'ts' : 'js' };
    });
  },
};

/**
 * A light entry's own dynamic imports are the full command's path (src/cli/usage.ts: the reports
 * by SPARQL): its light copy leaves them out, with the packages they bring (Oxigraph). Those of the
 * modules under it stay in the copy (client/external.ts's, which the light path takes).
 * @param {string} entry
 */
function leaveLaterOut(entry) {
  return {
    name: 'weave-leave-later-out',
    setup(build) {
      build.onResolve({ filter: /^\./ }, ({ path, kind, importer }) =>
        kind === 'dynamic-import' && importer === entry ? { path, external: true } : undefined,
      );
    },
  };
}

/**
 * A module and all it imports up front in one file, loaded; for the light entries (client/fast.ts,
 * cli/usage.ts). Loading it must do nothing else: one that fails is loaded again through tsx.
 * @param {URL} entryUrl @returns {Promise<any>}
 */
export async function compiled(entryUrl) {
  try {
    const bundle = await light(entryUrl);
    return bundle && (await import(pathToFileURL(bundle).href));
  } catch {
    return undefined;
  }
}

/**
 * Where the light copy of a module is, built first if need be; undefined when it cannot be built.
 * @param {URL} entryUrl @returns {Promise<string | undefined>}
 */
export async function light(entryUrl) {
  const entry = fileURLToPath(entryUrl);
  const name = basename(entry, '.ts');
  // Keyed by the entry's full path (checkouts sharing node_modules keep their own copies) and the options.
  const key = createHash('sha1').update(entry).update(JSON.stringify(LIGHT_OPTIONS)).digest('hex').slice(0, 12);
  const dir = join(CACHE, `${name}-${key}`);
  try {
    await builtIn(dir, { ...LIGHT_OPTIONS, entryPoints: [entry] }, [leaveLaterOut(entry)]);
    return join(dir, `${name}.mjs`);
  } catch {
    return undefined;
  }
}

/**
 * Where the built copy of one of the programs is (`entryUrl`: its TypeScript module, one of
 * PROGRAMS), built first if need be; the caller imports it, and what its loading throws is the
 * program's own failure.
 * @param {URL} entryUrl @returns {Promise<string | undefined>}
 */
export async function program(entryUrl) {
  const entry = relative(SRC, fileURLToPath(entryUrl));
  if (!PROGRAMS.includes(entry)) return undefined;
  const key = createHash('sha1').update(SRC).update(JSON.stringify(PROGRAM_OPTIONS)).digest('hex').slice(0, 12);
  const dir = join(CACHE, `programs-${key}`);
  try {
    await builtIn(dir, { ...PROGRAM_OPTIONS, entryPoints: PROGRAMS.map((p) => join(SRC, p)) });
    return join(dir, entry.replace(/\.ts$/, '.mjs'));
  } catch {
    return undefined;
  }
}

/**
 * A split build in `dir`, built again unless every input is as it was (`dir/built.json`), and the
 * chunks no build has written for a while taken away.
 */
async function builtIn(dir, options, plugins = []) {
  const meta = join(dir, 'built.json');
  if (await fresh(meta)) return;
  const written = await build({ ...options, outdir: dir }, meta, plugins);
  // A sweep that fails leaves old chunks, nothing worse.
  await sweep(join(dir, 'chunks'), written).catch(() => undefined);
}

/** Whether every input recorded in a build's metadata is as it was when it was built. */
async function fresh(metaPath) {
  let inputs;
  try {
    ({ inputs } = JSON.parse(await readFile(metaPath, 'utf8')));
  } catch {
    return false;
  }
  const now = await Promise.all(inputs.map(([path]) => stat(join(ROOT, path)).catch(() => undefined)));
  return now.every((s, i) => s && s.size === inputs[i][1] && s.mtimeMs === inputs[i][2]);
}

/** Builds, writes every output file and then the metadata naming the inputs and the outputs; the paths written. */
async function build(options, metaPath, plugins = []) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    ...options,
    absWorkingDir: ROOT,
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [...plugins, OWN_URLS],
  });
  // This file is an input too: a bundle made otherwise is made again.
  const made = relative(ROOT, fileURLToPath(import.meta.url));
  const inputs = await Promise.all(
    [...Object.keys(result.metafile.inputs), made].map(async (path) => {
      const s = await stat(join(ROOT, path));
      return [path, s.size, s.mtimeMs];
    }),
  );
  // Each file written aside and renamed, so a concurrent run (another process, or another thread
  // of this one) never imports half a file; chunks and maps before the entries that name them.
  const aside = `${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const put = async (path, contents) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(`${path}.${aside}`, contents);
    await rename(`${path}.${aside}`, path);
  };
  const entries = new Set(
    Object.entries(result.metafile.outputs)
      .filter(([, output]) => output.entryPoint)
      .map(([path]) => join(ROOT, path)),
  );
  const files = [...result.outputFiles].sort((a, b) => Number(entries.has(a.path)) - Number(entries.has(b.path)));
  for (const file of files) await put(file.path, file.contents);
  await put(metaPath, JSON.stringify({ inputs, outputs: files.map((f) => relative(dirname(metaPath), f.path)) }));
  return new Set(files.map((f) => f.path));
}

/** Takes away the chunks of older builds that no build has written for a week. */
async function sweep(dir, written) {
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (written.has(path)) continue;
    const s = await stat(path).catch(() => undefined);
    if (s && now - s.mtimeMs > CHUNK_KEPT_MS) await rm(path, { force: true });
  }
}
