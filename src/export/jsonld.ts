import { Transform } from 'node:stream';
import type * as RDF from '@rdfjs/types';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/**
 * Quads in, one JSON-LD document out, in expanded form: an array holding one
 * `{"@id": graph, "@graph": [...]}` object per run of a graph's quads and one node object per run
 * of a subject's statements. JSON-LD merges node objects with the same `@id` and graph objects
 * with the same name, so nothing needs holding back to group them: memory stays flat. Every
 * literal keeps its lexical form (`@value` is always a string), and IRIs stay whole.
 *
 * JSON-LD 1.1 has no triple terms; the export hands this writer RDF 1.1 reification instead,
 * so claims and evidence links stay (`rdf:Statement` with subject, predicate, object).
 */
export function jsonLdWriter(): Transform {
  let graph: string | undefined | null = null; // null: no graph open yet
  let subject: string | undefined;
  let node: Record<string, unknown> | undefined;
  let first = true;
  let firstInGraph = true;

  const flushNode = (): string => {
    if (!node) return '';
    const text = (firstInGraph ? '' : ',\n') + JSON.stringify(node);
    firstInGraph = false;
    node = undefined;
    return text;
  };
  const closeGraph = (): string => (graph === null ? '' : flushNode() + (graph === undefined ? '' : ']}'));

  return new Transform({
    writableObjectMode: true,
    transform(quad: RDF.Quad, _encoding, done) {
      let out = '';
      const g = quad.graph.termType === 'DefaultGraph' ? undefined : quad.graph.value;
      if (g !== graph || graph === null) {
        out += closeGraph();
        // Default-graph nodes sit at the top level; a named graph opens a graph object.
        out += (first ? '[\n' : ',\n') + (g === undefined ? '' : `{"@id":${JSON.stringify(g)},"@graph":[\n`);
        first = false;
        graph = g;
        firstInGraph = true;
        subject = undefined;
      }
      const s = id(quad.subject);
      if (s !== subject || !node) {
        out += flushNode();
        node = { '@id': s };
        subject = s;
      }
      if (quad.predicate.value === RDF_TYPE && quad.object.termType !== 'Literal') push(node, '@type', id(quad.object));
      else push(node, quad.predicate.value, value(quad.object));
      done(null, out || undefined);
    },
    flush(done) {
      done(null, first ? '[]\n' : `${closeGraph()}\n]\n`);
    },
  });
}

function push(node: Record<string, unknown>, key: string, v: unknown): void {
  const values = (node[key] ??= []) as unknown[];
  values.push(v);
}

function id(term: RDF.Term): string {
  if (term.termType === 'NamedNode') return term.value;
  if (term.termType === 'BlankNode') return `_:${term.value}`;
  throw new Error(`JSON-LD cannot hold a ${term.termType} here; export it with --rdf 1.1`);
}

function value(term: RDF.Term): Record<string, string> {
  if (term.termType !== 'Literal') return { '@id': id(term) };
  if (term.language) return { '@value': term.value, '@language': term.language };
  return term.datatype.value === XSD_STRING ? { '@value': term.value } : { '@value': term.value, '@type': term.datatype.value };
}
