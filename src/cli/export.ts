import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { Transform, type Writable } from 'node:stream';
import { defaultMode, ExportFormatError, exportFormats, exportStore, selfContainedByDefault } from '../export/export.ts';
import { ExportSelectionError, planExport } from '../export/graphs.ts';
import type { ReadProgress } from '../export/read.ts';
import { RdfXmlError } from '../export/rdfxml.ts';
import { XmlCharacterError } from '../export/xml-check.ts';
import { helpList, nameList } from '../query/formats.ts';
import { readManifest, sessionsHere } from '../store/manifest.ts';
import { RemoteStore } from '../store/remote/client.ts';
import { readRemoteConfig, withoutCredentials } from '../store/remote/config.ts';
import { isRdfMode, type RdfMode } from '../rdf/rdf-mode.ts';
import { CliError, COMMON_HELP, parse, requireStore, storeDir, sayEmitter } from './options.ts';
import { printHelp } from './help.ts';
import { type Form, printable } from '../terminal.ts';

const DEFAULT_FORMAT = 'trig';

/** Said after every RDF-star export: the file reads without an error where it means something else. */
export const STAR_WARNING =
  'weave export: warning: --rdf star is for Jena 4 and RDF4J; an RDF 1.2 reader (Oxigraph, N3.js) takes each << s p o >> for a reifier of its own, one more statement per claim and link\n';

/** The help, its formats read from the format table. */
function help(formats = exportFormats()): string {
  const graphless = nameList(
    formats.filter((f) => f.carries === 'graph'),
    ' and ',
  );
  const reified = nameList(
    formats.filter((f) => defaultMode(f) === '1.1'),
    ' and ',
  );
  const whole = nameList(formats.filter(selfContainedByDefault), ' and ');
  return `usage: weave export [options]

Writes the store, or some of its graphs, to stdout or a file, streamed graph by graph from the
store's graph files: memory stays flat, and a terminal shows progress on stderr.

options:
  --format F         ${helpList(formats, DEFAULT_FORMAT)};
                     ${graphless} have no graphs, so they merge all graphs into one
  --rdf MODE         how triple terms (claims, evidence links) are written:
                       1.2   as stored: rdf:reifies <<( s p o )>> (default; RDF 1.2 stores)
                       1.1   RDF 1.1 reification on the same reifier: R a rdf:Statement;
                             rdf:subject s; rdf:predicate p; rdf:object o (Virtuoso, rdflib,
                             raptor, Jena; always for ${reified})
                       star  RDF-star << s p o >> (Jena 4, RDF4J only: RDF 1.2 readers such
                             as Oxigraph and N3.js read each as one more reifier)
  --self-contained   add what the statements need to answer elsewhere as in Weave: each
                     record's envelope values (weave:cwd… as queries/record-envelope.rq
                     answers them), the ontology's statements of the terms used (turnRole,
                     subClassOf, domain, range) and the turns' owl:sameAs to ravel's IRIs
                     (default for ${whole})
  --lean             the store's statements only, as stored
  --graph IRI        only this named graph (repeatable)
  --session ID       only this session's graphs (an id or a unique prefix of one): its
                     own and its readers' (repeatable)
  -o, --output FILE  write to FILE (written aside, renamed into place when complete)
${COMMON_HELP}
`;
}

export async function main(args: string[]): Promise<number> {
  const { values } = parse(args, {
    format: { type: 'string' },
    rdf: { type: 'string' },
    graph: { type: 'string', multiple: true },
    session: { type: 'string', multiple: true },
    output: { type: 'string', short: 'o' },
    'self-contained': { type: 'boolean' },
    lean: { type: 'boolean' },
  });
  if (values.help) {
    printHelp(help());
    return 0;
  }
  const formats = exportFormats();
  const format = formats.find((f) => f.name === (values.format ?? DEFAULT_FORMAT));
  if (!format) throw new CliError(`unknown --format "${values.format}" (one of ${nameList(formats)})`, 2);
  const mode: RdfMode = (values.rdf ?? defaultMode(format)) as RdfMode;
  if (!isRdfMode(mode)) throw new CliError(`unknown --rdf "${values.rdf}" (1.2, 1.1 or star)`, 2);
  if (values.lean && values['self-contained']) throw new CliError('--lean and --self-contained exclude each other', 2);
  const selfContained = values['self-contained'] ?? (!values.lean && selfContainedByDefault(format));

  const dir = storeDir(values);
  // Without a store there is nothing of the user's to write: the ontology alone would pass for an export.
  await requireStore(dir);
  await sayEmitter(dir);
  let plan: Awaited<ReturnType<typeof planExport>>;
  try {
    plan = await planExport(dir, { graphs: values.graph, sessions: values.session });
  } catch (e) {
    if (e instanceof ExportSelectionError) throw new CliError(e.message);
    throw e;
  }

  const temp = values.output ? `${values.output}.${process.pid}.tmp` : undefined;
  // RDF is for programs: written exactly into a file or a pipe, shown (never obeyed) on a terminal.
  const shown = !temp && process.stdout.isTTY ? shownOnTerminal(format.name === 'rdfxml' ? 'data' : 'code') : undefined;
  const out: Writable = temp ? createWriteStream(temp) : (shown ?? process.stdout);
  const bar = progressBar(plan.bytes, plan.sources.length);
  try {
    await exportStore(plan, format.name, mode, out, bar.update, { selfContained });
    if (shown) await new Promise<void>((resolve) => shown.end(resolve));
    if (temp) {
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      await rename(temp, values.output!);
    }
    if (mode === 'star') process.stderr.write(STAR_WARNING);
    if (!values.graph?.length && !values.session?.length) await tellOthersLeftOut(dir);
  } catch (e) {
    if (temp) {
      out.destroy();
      await rm(temp, { force: true });
    }
    if (e instanceof ExportFormatError) throw new CliError(e.message, 2);
    if (e instanceof XmlCharacterError || e instanceof RdfXmlError) throw new CliError(e.message);
    if (temp && writing(e, temp)) throw new CliError(`cannot write ${values.output}: ${whyNotWritten(e as NodeJS.ErrnoException)}`);
    throw e;
  } finally {
    bar.done();
  }
  return 0;
}

/** Whether `e` is the file system refusing the output (its file written aside, or the rename into place). */
function writing(e: unknown, temp: string): boolean {
  const { code, path } = (e ?? {}) as NodeJS.ErrnoException;
  return typeof code === 'string' && path === temp;
}

/**
 * Why the output could not be written, in words: Node's own message named the file written
 * aside (`x.trig.26930.tmp`), not the one the user asked for.
 */
function whyNotWritten(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'its folder does not exist';
    case 'ENOTDIR':
      return 'a part of its path is not a folder';
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'no permission to write there';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOSPC':
      return 'the disk is full';
    default:
      return e.code ?? 'error';
  }
}

/**
 * An export is of the graph files here, this machine's graphs: in an external store several
 * machines feed, the user is told how many sessions the others wrote there, which it leaves out.
 */
async function tellOthersLeftOut(dir: string): Promise<void> {
  const config = await readRemoteConfig(dir);
  const manifest = config && (await readManifest(dir));
  if (!config || !manifest) return;
  // Loaded only here: the search module is not an export's.
  const { sessionsOfOthers } = await import('../search/others.ts');
  const n = (await sessionsOfOthers(new RemoteStore(config), manifest.soul ?? 'local', sessionsHere(manifest)).catch(() => [])).length;
  if (!n) return;
  const [sessions, are, them] = n === 1 ? ['1 session', 'is', 'it'] : [`${n.toLocaleString('en')} sessions`, 'are', 'them'];
  process.stderr.write(
    `weave export: ${sessions} other machines wrote into ${withoutCredentials(config.endpoint).url.origin} ${are} not in the export, which holds this machine's graphs; export ${them} on those machines\n`,
  );
}

/** A one-line bar on stderr when it is a terminal: bytes read of the graph files, graphs done, MB/s. */
export function progressBar(totalBytes: number, graphs: number, stream: NodeJS.WriteStream = process.stderr) {
  if (!stream.isTTY) return { update: undefined, done() {} };
  const started = performance.now();
  let last = 0;
  return {
    update(p: ReadProgress) {
      const now = performance.now();
      if (now - last < 100) return;
      last = now;
      const width = 24;
      const filled = Math.round((p.bytesDone / Math.max(1, totalBytes)) * width);
      const mbs = p.bytesDone / 1e6 / Math.max(0.001, (now - started) / 1000);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.graphsDone}/${graphs} graphs · ${(p.bytesDone / 1e6).toFixed(1)}/${(totalBytes / 1e6).toFixed(1)} MB · ${mbs.toFixed(1)} MB/s\x1b[K`,
      );
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}

/** A stream to stdout on a terminal: what is written passes through printable (terminal.ts) in `form`. */
function shownOnTerminal(form: Form): Transform {
  // A character split between two chunks is decoded whole.
  const decoder = new StringDecoder('utf8');
  const stream = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      done(null, printable(typeof chunk === 'string' ? chunk : decoder.write(chunk), { form }));
    },
    flush(done) {
      done(null, printable(decoder.end(), { form }));
    },
  });
  stream.pipe(process.stdout);
  return stream;
}
