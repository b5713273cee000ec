import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { madeOnce } from '../made-once.ts';
import { type Virtuoso as ExternalVirtuoso, startVirtuoso as startExternalVirtuoso } from '../store/virtuoso.ts';

/**
 * The consumers of the Debian era, as `.ci/run` installs them: Apache Jena 4.5 (`riot`, `sparql`,
 * `rsparql`), raptor2 (`rapper`) and rasqal (`roqet`), python3-rdflib 6.1 and SPARQLWrapper 1.8,
 * and Virtuoso 7.2 (a server of its own per test run, on free loopback ports in a temp
 * directory). Each says why it is missing instead, so a test can skip saying so.
 */

const run = promisify(execFile);
export const PYTHON = '/usr/bin/python3';
const JAVA_DIR = '/usr/share/java';

export async function command(
  file: string,
  args: string[],
  options: { cwd?: string; timeout?: number; exitCodes?: number[] } = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(file, args, { encoding: 'utf8', maxBuffer: 1 << 28, timeout: options.timeout ?? 120_000, cwd: options.cwd });
  } catch (e) {
    const failed = e as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code === 'number' && options.exitCodes?.includes(failed.code))
      return { stdout: failed.stdout, stderr: failed.stderr };
    throw e;
  }
}

/** Why a program or file is missing, or undefined when it is there. */
export function missing(...paths: string[]): string | undefined {
  const absent = paths.filter((p) => !existsSync(p.startsWith('/') ? p : `/usr/bin/${p}`));
  return absent.length ? `not installed here: ${absent.join(', ')} (.ci/run installs it from Debian)` : undefined;
}

// ---- Apache Jena 4.5 (libapache-jena-java): commands by class name on Debian's jars

const JENA_JARS = [
  'jena-arq',
  'jena-base',
  'jena-cmds',
  'jena-core',
  'jena-dboe-base',
  'jena-dboe-index',
  'jena-dboe-storage',
  'jena-dboe-trans-data',
  'jena-dboe-transaction',
  'jena-iri',
  'jena-rdfconnection',
  'jena-tdb',
  'jena-tdb2',
  'commons-cli',
  'commons-codec',
  'commons-compress',
  'commons-csv',
  'commons-io',
  'commons-lang3',
  'dexx.collection',
  'gson',
  'guava',
  'httpclient',
  'httpclient-cache',
  'httpcore',
  'jackson-annotations',
  'jackson-core',
  'jackson-databind',
  'jakarta.json-api',
  'jsonld-java',
  'protobuf',
  'slf4j-api',
  'slf4j-simple',
  'thrift',
  'titanium-json-ld',
].map((j) => join(JAVA_DIR, `${j}.jar`));

export interface Jena {
  /** The classpath, with the Xerces message resources where the relocated classes look for them. */
  classpath: string;
}

let jena: Promise<Jena | string> | undefined;

/**
 * Debian's jena-core relocates Xerces to the package `xerces` but keeps its message resources
 * under `org/apache/jena/ext/xerces/`, so the first datatype check fails ("internal error").
 * The resources are copied, once per run, to where the relocated classes look.
 */
export function findJena(): Promise<Jena | string> {
  jena ??= (async () => {
    const why = missing('java', 'unzip', ...JENA_JARS);
    if (why) return why;
    const dir = await mkdtemp(join(tmpdir(), 'weave-jena-'));
    // Asked of until this process ends; each run left one behind in the temp directory.
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await command('unzip', ['-q', '-o', join(JAVA_DIR, 'jena-core.jar'), 'org/apache/jena/ext/xerces/*.properties', '-d', dir]);
    await mkdir(join(dir, 'resources'), { recursive: true });
    await rename(join(dir, 'org', 'apache', 'jena', 'ext', 'xerces'), join(dir, 'resources', 'xerces'));
    return { classpath: [...JENA_JARS, join(dir, 'resources')].join(':') };
  })();
  return jena;
}

export async function java(j: Jena, main: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return command('java', ['-cp', j.classpath, main, ...args]);
}

/** A SPARQL JSON results document, as Jena writes it. */
export interface JsonAnswer {
  head: { vars: string[] };
  results: { bindings: Record<string, { type: string; value: string; datatype?: string }>[] };
}

/**
 * Jena's answers to query files, all asked in one JVM (JenaAsk.java, compiled once) of a
 * TDB2 store (a directory, its default graph the union) or of an RDF file: each its JSON results,
 * or the first line of its error.
 */
export async function jenaAsk(j: Jena, data: string, files: string[]): Promise<(JsonAnswer | { error: string })[]> {
  // No answer of an earlier run is taken for this one's.
  await Promise.all(files.flatMap((file) => [rm(`${file}.json`, { force: true }), rm(`${file}.error`, { force: true })]));
  await command('java', ['-cp', `${j.classpath}:${await jenaAskClasses(j)}`, 'JenaAsk', data, ...files]);
  return Promise.all(
    files.map(async (file) => {
      const json = await readFile(`${file}.json`, 'utf8').catch(() => undefined);
      if (json === undefined) return { error: await readFile(`${file}.error`, 'utf8').catch(() => 'no answer') };
      return JSON.parse(json) as JsonAnswer;
    }),
  );
}

/**
 * JenaAsk.java compiled once per machine (keyed by its source and Jena's jars): run from its
 * source, java compiled it again at every call: 2.6 CPU seconds a call where 1.5 do.
 */
async function jenaAskClasses(j: Jena): Promise<string> {
  const source = fileURLToPath(new URL('./JenaAsk.java', import.meta.url));
  const key = createHash('sha256')
    .update(await readFile(source))
    .update(JSON.stringify(JENA_JARS.map((jar) => [jar, statSync(jar).size, statSync(jar).mtimeMs])))
    .digest('hex')
    .slice(0, 16);
  return madeOnce(join(tmpdir(), `weave-jena-ask-${key}`), async (dir) => {
    // javac's own module, as java ran it for a source file: a JRE (.ci/run's) has no javac command.
    await command('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-cp', j.classpath, '-d', dir, source]);
  });
}

/** `riot --count` over files in one run: the quads (or triples) Jena parsed in each; any error it logs fails. */
export async function riotCounts(j: Jena, files: string[], syntax?: string): Promise<number[]> {
  // riot --count reports on stderr, one line per file.
  const { stdout, stderr } = await java(j, 'riotcmd.riot', [...(syntax ? [`--syntax=${syntax}`] : []), '--count', ...files]);
  if (/ERROR|Exception/.test(stderr)) throw new Error(`riot: ${stderr.split('\n').find((l) => /ERROR|Exception/.test(l))}`);
  const counts = [...(stderr + stdout).matchAll(/: (?:Quads|Triples) = ([\d,]+)/g)].map((m) => Number(m[1].replace(/,/g, '')));
  if (counts.length !== files.length) throw new Error(`riot counted ${counts.length} of ${files.length} files: ${stdout}${stderr}`);
  return counts;
}

/** TSV results as rows of cells (the header row left out). */
export function tsvRows(tsv: string): string[][] {
  return tsv
    .trim()
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

// ---- raptor2 and rasqal

/** roqet's TSV answer; it exits with 2 when it printed warnings, answers included. */
export async function roqet(dataFile: string, queryFile: string): Promise<string> {
  return (await command('roqet', ['-q', '-i', 'sparql', '-r', 'tsv', '-D', dataFile, queryFile], { exitCodes: [2] })).stdout;
}

export async function rapperCount(file: string, syntax: string): Promise<number> {
  const { stderr } = await command('rapper', ['-i', syntax, '-c', file]);
  const m = /Parsing returned (\d+) triples/.exec(stderr);
  if (!m || /error/i.test(stderr.replace(/Parsing returned.*/, ''))) throw new Error(`rapper: ${stderr}`);
  return Number(m[1]);
}

// ---- python3 (Debian's, not a pyenv shim)

export async function python(script: string, args: string[], timeout?: number): Promise<string> {
  const { stdout } = await command(PYTHON, [script, ...args], { timeout });
  return stdout;
}

// ---- Virtuoso 7.2 (virtuoso-opensource): a server of its own

/** The test suite's Virtuoso (test/store/virtuoso.ts), with a SPARQL SELECT of its own. */
export interface Virtuoso extends ExternalVirtuoso {
  /** A SPARQL SELECT over Virtuoso's own endpoint, as rows of values. */
  select(query: string): Promise<Record<string, string>[]>;
}

/** Starts Virtuoso on loopback ports in a temp directory of its own; `files` is where it may read. */
export async function startVirtuoso(files: string): Promise<Virtuoso> {
  const virtuoso = await startExternalVirtuoso({ readable: [files] });
  return {
    ...virtuoso,
    async select(query) {
      const res = await fetch(`${virtuoso.endpoint}?query=${encodeURIComponent(query)}`, {
        headers: { accept: 'application/sparql-results+json' },
      });
      if (!res.ok) throw new Error(`Virtuoso ${res.status}: ${await res.text()}`);
      const json = (await res.json()) as { results: { bindings: Record<string, { value: string }>[] } };
      return json.results.bindings.map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));
    },
  };
}
