import { Transform } from 'node:stream';
import type * as RDF from '@rdfjs/types';
import { DataFactory, Writer } from 'n3';
import type { Format } from '../query/formats.ts';
import type { RdfMode } from '../rdf/rdf-mode.ts';
import { EXPORT_PREFIXES } from '../rdf/vocab.ts';

/**
 * N3's writer in RDF-star form: a triple term is written `<< s p o >>`, as Jena 4 and RDF4J read
 * it, where RDF 1.2 writes `<<( s p o )>>` (which they do not). N3 has no option for it, so the
 * one method that writes triple terms is replaced.
 */
class StarWriter extends Writer {
  _encodeQuad(q: RDF.Quad): string {
    const self = this as unknown as Encoders;
    return `<< ${self._encodeSubject(q.subject)} ${self._encodePredicate(q.predicate)} ${self._encodeObject(q.object)} >>`;
  }
}

interface Encoders {
  _encodeSubject(t: RDF.Term): string;
  _encodePredicate(t: RDF.Term): string;
  _encodeObject(t: RDF.Term): string;
}

/**
 * Quads in, text out in a syntax n3 writes (`format.n3`: Turtle, TriG…), through N3's streaming
 * writer (prefixes declared once, a subject's statements grouped, TriG's graph blocks opened as
 * the graph changes). A syntax without graphs takes every quad into the one default graph.
 */
export function turtleWriter(format: Format, mode: RdfMode): Transform {
  let writer!: Writer;
  // N3 writes a few characters at a time; they are passed on in pieces of 64 KiB.
  let buffer = '';
  const stream = new Transform({
    writableObjectMode: true,
    transform(quad: RDF.Quad, _encoding, done) {
      writer.addQuad(format.carries === 'graph' ? DataFactory.quad(quad.subject, quad.predicate, quad.object) : quad);
      if (buffer.length >= 1 << 16) {
        stream.push(buffer);
        buffer = '';
      }
      done();
    },
    flush(done) {
      writer.end((error) => {
        if (buffer) stream.push(buffer);
        done(error);
      });
    },
  });
  const sink = { write: (text: string) => void (buffer += text), end: (done?: () => void) => done?.() };
  writer = n3Writer(sink, format, mode);
  return stream;
}

/** Quads as Turtle or TriG text in one go, for answers small enough to hold (query results). */
export function turtleText(quads: Iterable<RDF.Quad>, format: Format, mode: RdfMode): string {
  let text = '';
  const writer = n3Writer({ write: (t: string) => void (text += t), end: (done?: () => void) => done?.() }, format, mode);
  for (const q of quads) writer.addQuad(format.carries === 'graph' ? DataFactory.quad(q.subject, q.predicate, q.object) : q);
  writer.end();
  return text;
}

function n3Writer(sink: { write(text: string): void; end(done?: () => void): void }, format: Format, mode: RdfMode): Writer {
  const options = { format: format.n3, prefixes: EXPORT_PREFIXES, end: false };
  // A space before each statement's final dot: Virtuoso 7.2 reads `weave:lineCount 4.` as the
  // decimal `4.` and stops. N3 begins every write that ends a statement with ".\n".
  const spaced = { write: (text: string) => sink.write(text.startsWith('.\n') ? ` ${text}` : text), end: sink.end };
  return mode === 'star' ? new StarWriter(spaced as never, options) : new Writer(spaced as never, options);
}
