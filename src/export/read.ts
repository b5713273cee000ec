import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { DataFactory, Parser, Writer } from 'n3';
import { sameAsLine } from '../align/ravel.ts';
import { mapQuadLine, type RdfMode } from '../rdf/rdf-mode.ts';
import type { ExportPlan, GraphSource } from './graphs.ts';

/**
 * The export's input: N-Quads bytes, graph by graph, in whole lines, with triple terms already
 * in the form `mode` asks for. Graph files are read in 1 MiB chunks and passed on as bytes,
 * never decoded as a whole: only lines holding a triple term are decoded and rewritten, and
 * lines typing a turn are noted for the alignment graph. Memory stays flat whatever the size
 * of the store (turn IRIs for the alignment are the one thing kept: a few hundred kB).
 */

export interface Chunk {
  /** Whole N-Quads lines, each ending in "\n". */
  bytes: Buffer;
  /** The graph every line of the chunk names, as N-Triples (`<iri>`), or undefined for the default graph. */
  graph: string | undefined;
}

export interface ReadProgress {
  bytesDone: number;
  graphsDone: number;
}

const CHUNK = 1 << 20;
const NL = 0x0a;
/** What follows the subject on a line typing a turn: `<turn> rdf:type weave:Turn <g> .` */
const TURN_TYPE = Buffer.from('> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://repolex.ai/ontology/weave#Turn> ');
/** Lines holding a triple term (or the text `<<(` in a literal, which the mapping leaves as it is). */
const TRIPLE_TERM = Buffer.from('<<(');

export async function* readExport(plan: ExportPlan, mode: RdfMode, onProgress?: (p: ReadProgress) => void): AsyncGenerator<Chunk> {
  const progress: ReadProgress = { bytesDone: 0, graphsDone: 0 };
  const aligned = new Set<string>();
  for (const source of plan.sources) {
    const graph = source.graph === undefined ? undefined : `<${source.graph}>`;
    const turns: string[] = [];
    for await (const { lines, read } of sourceLines(source)) {
      if (plan.alignmentGraph && source.kind === 'nquads')
        for (const turn of typedTurns(lines)) {
          if (aligned.has(turn)) continue;
          aligned.add(turn);
          turns.push(turn);
        }
      progress.bytesDone += read;
      if (source.kind === 'nquads' && source.turnsOnly) continue;
      yield { bytes: mode === '1.2' ? lines : mapTripleTerms(lines, mode), graph };
      onProgress?.(progress);
    }
    if (plan.alignmentGraph && turns.length)
      yield { bytes: Buffer.from(turns.map((t) => sameAsLine(t, plan.alignmentGraph!)).join('')), graph: `<${plan.alignmentGraph}>` };
    progress.graphsDone++;
    onProgress?.(progress);
  }
}

/** The IRIs of the turns typed in `lines`, each decoded into a string of its own. */
export function typedTurns(lines: Buffer): string[] {
  const turns: string[] = [];
  for (let at = lines.indexOf(TURN_TYPE); at !== -1; at = lines.indexOf(TURN_TYPE, at + TURN_TYPE.length)) {
    const start = lines.lastIndexOf(NL, at) + 1;
    if (lines[start] === 0x3c /* < */) turns.push(lines.toString('utf8', start + 1, at));
  }
  return turns;
}

/** `lines` with each line that holds a triple term rewritten in `mode`; the others are copied as bytes. */
function mapTripleTerms(lines: Buffer, mode: RdfMode): Buffer {
  const pieces: Buffer[] = [];
  let copied = 0;
  for (let at = lines.indexOf(TRIPLE_TERM); at !== -1; at = lines.indexOf(TRIPLE_TERM, at)) {
    const start = lines.lastIndexOf(NL, at) + 1;
    const end = lines.indexOf(NL, at) + 1 || lines.length;
    pieces.push(lines.subarray(copied, start), Buffer.from(mapQuadLine(lines.toString('utf8', start, end), mode)));
    copied = at = end;
  }
  if (!pieces.length) return lines;
  pieces.push(lines.subarray(copied));
  return Buffer.concat(pieces);
}

/** A source in whole lines, with the bytes read from disk for each piece. */
async function* sourceLines(source: GraphSource): AsyncGenerator<{ lines: Buffer; read: number }> {
  if (source.kind === 'turtle') {
    yield { lines: Buffer.from(turtleAsNQuads(await readFile(source.path, 'utf8'), source.graph)), read: source.bytes };
    return;
  }
  if (!source.bytes) return;
  let rest: Buffer | undefined;
  let read = 0;
  for await (const chunk of createReadStream(source.path, { highWaterMark: CHUNK, end: source.bytes - 1 }) as AsyncIterable<Buffer>) {
    const bytes = rest ? Buffer.concat([rest, chunk]) : chunk;
    read += chunk.length;
    const end = bytes.lastIndexOf(NL) + 1;
    rest = bytes.subarray(end);
    if (!end) continue;
    yield { lines: bytes.subarray(0, end), read };
    read = 0;
  }
  if (rest?.length || read) yield { lines: rest?.length ? Buffer.concat([rest, Buffer.from('\n')]) : Buffer.alloc(0), read };
}

/**
 * A small Turtle file (the ontology, the term alignment) as N-Quads in `graph`, each statement once. Blank node labels
 * come from the graph's name, so an export is the same byte for byte each time and two files'
 * blank nodes never meet.
 */
export function turtleAsNQuads(turtle: string, graph: string): string {
  const name = DataFactory.namedNode(graph);
  const writer = new Writer({ format: 'N-Quads' });
  const blankNodePrefix = `t${createHash('sha1').update(graph).digest('hex').slice(0, 8)}_`;
  let anonymous = 0;
  const factory = { ...DataFactory, blankNode: (label?: string) => DataFactory.blankNode(label ?? `${blankNodePrefix}a${anonymous++}`) };
  for (const q of new Parser({ format: 'text/turtle', baseIRI: graph, blankNodePrefix, factory }).parse(turtle))
    writer.addQuad(q.subject, q.predicate, q.object, name);
  let out = '';
  writer.end((_error, text) => (out = text));
  // A document may state a triple twice (the ontology's parts do); a store holds it once.
  return [...new Set(out.split('\n'))].join('\n');
}
