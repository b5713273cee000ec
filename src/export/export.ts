import { Readable, type Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StreamParser } from 'n3';
import type { RdfMode } from '../rdf/rdf-mode.ts';
import type { ExportPlan } from './graphs.ts';
import { jsonLdWriter } from './jsonld.ts';
import { readExport, type ReadProgress } from './read.ts';
import { rdfXmlWriter } from './rdfxml.ts';
import { turtleWriter } from './turtle.ts';
import { checkXmlCharacters } from './xml-check.ts';

/**
 * `weave export`: the store's graph files streamed out graph by graph in any syntax, with triple
 * terms in the form the consumer reads. N-Quads and N-Triples are written straight from the
 * lines; the other syntaxes parse the lines back into quads with N3 and write them with a
 * streaming writer, so memory stays flat whatever the size of the store.
 */

export const EXPORT_FORMATS = ['trig', 'nquads', 'turtle', 'ntriples', 'jsonld', 'rdfxml'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Syntaxes that cannot carry a triple term: they take RDF 1.1 reification, always. */
export const NEEDS_RDF_11: ReadonlySet<ExportFormat> = new Set(['jsonld', 'rdfxml']);

export class ExportFormatError extends Error {}

export async function exportStore(
  plan: ExportPlan,
  format: ExportFormat,
  mode: RdfMode,
  out: Writable,
  onProgress?: (p: ReadProgress) => void,
): Promise<void> {
  if (NEEDS_RDF_11.has(format) && mode !== '1.1')
    throw new ExportFormatError(
      `${format === 'jsonld' ? 'JSON-LD' : 'RDF/XML'} cannot carry triple terms: export it with --rdf 1.1 (the default for it)`,
    );
  if (format === 'rdfxml') await checkXmlCharacters(plan);

  // RDF-star is written by the Turtle writer itself: N3 would read `<< s p o >>` as RDF 1.2's reifier syntax.
  const lineMode = (format === 'trig' || format === 'turtle') && mode === 'star' ? '1.2' : mode;
  const chunks = readExport(plan, lineMode, onProgress);
  const text = Readable.from(textOf(chunks, format === 'ntriples'), { objectMode: false });
  const sink = { end: false } as const;
  switch (format) {
    case 'nquads':
    case 'ntriples':
      return pipeline(text, out, sink);
    case 'trig':
    case 'turtle':
      return pipeline(text, nquadsParser(), turtleWriter(format === 'trig' ? 'TriG' : 'Turtle', mode), out, sink);
    case 'jsonld':
      return pipeline(text, nquadsParser(), jsonLdWriter(), out, sink);
    case 'rdfxml':
      return pipeline(text, nquadsParser(), rdfXmlWriter(), out, sink);
  }
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
