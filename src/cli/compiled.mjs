// A TypeScript module bundled into one plain .mjs by esbuild (which tsx brings), cached under
// node_modules/.cache/weave/ and rebuilt when any file it was built from changes (size or mtime).
// Loading it needs no TypeScript loader. Undefined when it cannot be built or cached here: the
// caller then takes the tsx path.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
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

/** @param {URL} entryUrl @returns {Promise<any>} */
export async function compiled(entryUrl) {
  const entry = fileURLToPath(entryUrl);
  // Keyed by the entry's full path (checkouts sharing node_modules keep their own copies) and the options.
  const key = createHash('sha1').update(entry).update(JSON.stringify(OPTIONS)).digest('hex').slice(0, 12);
  const bundle = join(CACHE, `${basename(entry, '.ts')}-${key}.mjs`);
  try {
    if (!(await fresh(`${bundle}.json`))) await build(entry, bundle);
    return await import(pathToFileURL(bundle).href);
  } catch {
    return undefined;
  }
}

/** Whether every input recorded beside the bundle is as it was when the bundle was built. */
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

async function build(entry, bundle) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    ...OPTIONS,
    entryPoints: [entry],
    absWorkingDir: ROOT,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = await Promise.all(
    Object.keys(result.metafile.inputs).map(async (path) => {
      const s = await stat(join(ROOT, path));
      return [path, s.size, s.mtimeMs];
    }),
  );
  await mkdir(CACHE, { recursive: true });
  // Written aside and renamed, so a concurrent run never imports half a file.
  const temp = `${bundle}.${process.pid}.tmp`;
  await writeFile(temp, result.outputFiles[0].contents);
  await rename(temp, bundle);
  await writeFile(`${temp}.json`, JSON.stringify({ inputs }));
  await rename(`${temp}.json`, `${bundle}.json`);
}
