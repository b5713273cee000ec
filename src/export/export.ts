import { Readable, type Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StreamParser } from 'n3';
import { type Format, formatsFor } from '../query/formats.ts';
import type { RdfMode } from '../rdf/rdf-mode.ts';
import type { ExportPlan } from './graphs.ts';
import { readExport, type ReadProgress } from './read.ts';
import { selfContained } from './self-contained.ts';
import { turtleWriter } from './turtle.ts';
import { checkXmlCharacters } from './xml-check.ts';

/**
 * `weave export`: the store's graph files streamed out graph by graph in any RDF syntax of the
 * format table (src/query/formats.ts), with triple terms in the form the consumer reads. The
 * line syntaxes (N-Quads, N-Triples) are written straight from the lines; the others parse the
 * lines back into quads with N3 and write them with a streaming writer (n3's, or the format's
 * own), so memory stays flat whatever the size of the store.
 */

/** A format's name, as `--format` gives it. */
export type ExportFormat = string;

/** The syntaxes the export writes: the graph syntaxes a streaming writer writes. */
export function exportFormats(): Format[] {
  return formatsFor('graph').filter((f) => f.lines || f.n3 || f.writer);
}

/** The `--rdf` mode an export takes when none is given: RDF 1.2, or RDF 1.1 where the syntax has no triple terms. */
export function defaultMode(format: Format): RdfMode {
  return format.tripleTerms['1.2'] ? '1.2' : '1.1';
}

/**
 * Whether an export is self-contained (src/export/self-contained.ts) unless `--lean`: Turtle,
 * TriG and JSON-LD, the documents one loads into another tool. The line syntaxes stay the
 * store's lines as they are (bulk loads, round trips) unless `--self-contained`.
 */
export function selfContainedByDefault(format: Format): boolean {
  return ['turtle', 'trig', 'jsonld'].includes(format.name);
}

export class ExportFormatError extends Error {}

export async function exportStore(
  plan: ExportPlan,
  name: ExportFormat,
  mode: RdfMode,
  out: Writable,
  onProgress?: (p: ReadProgress) => void,
  options: { selfContained?: boolean } = {},
): Promise<void> {
  const format = exportFormats().find((f) => f.name === name);
  if (!format) throw new ExportFormatError(`no export writes "${name}"`);
  // An export is what was asked or nothing: a syntax without triple terms takes only RDF 1.1.
  if (format.tripleTerms[mode] !== mode)
    throw new ExportFormatError(`${format.label} cannot carry triple terms: export it with --rdf 1.1 (the default for it)`);
  if (format.xml) await checkXmlCharacters(plan);

  // RDF-star is written by n3's writer itself: N3 would read `<< s p o >>` as RDF 1.2's reifier syntax.
  const lineMode = !format.lines && mode === 'star' ? '1.2' : mode;
  const read = readExport(plan, lineMode, onProgress);
  const chunks = options.selfContained ? selfContained(read, plan) : read;
  const text = Readable.from(textOf(chunks, !!format.lines && format.carries === 'graph'), { objectMode: false });
  const sink = { end: false } as const;
  if (format.lines) return pipeline(text, out, sink);
  return pipeline(text, nquadsParser(), format.n3 ? turtleWriter(format, mode) : format.writer!(), out, sink);
}

/** The chunks' bytes; for N-Triples each line loses its graph (every line of a chunk names the same one). */
async function* textOf(chunks: AsyncIterable<{ bytes: Buffer; graph: string | undefined }>, dropGraph: boolean): AsyncGenerator<Buffer> {
  for await (const { bytes, graph } of chunks) {
    if (!bytes.length) continue;
    yield dropGraph && graph ? withoutGraph(bytes, graph) : bytes;
  }
}

const END = Buffer.from(' .\n');

/**
 * Lines without their graph term: ` <g> .` can only end a line, since a literal cannot hold a
 * raw line break and every line of the chunk names `<g>`.
 */
export function withoutGraph(lines: Buffer, graph: string): Buffer {
  const tail = Buffer.from(` ${graph} .\n`);
  const pieces: Buffer[] = [];
  let copied = 0;
  for (let at = lines.indexOf(tail); at !== -1; at = lines.indexOf(tail, copied)) {
    pieces.push(lines.subarray(copied, at), END);
    copied = at + tail.length;
  }
  pieces.push(lines.subarray(copied));
  return Buffer.concat(pieces);
}

function nquadsParser(): Transform {
  return new StreamParser({ format: 'application/n-quads' }) as unknown as Transform;
}
