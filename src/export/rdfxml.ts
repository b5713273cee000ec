import { Transform } from 'node:stream';
import type * as RDF from '@rdfjs/types';
import { xmlAttribute, xmlText } from '../rdf/xml.ts';
import { EXPORT_PREFIXES } from '../rdf/vocab.ts';

const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const XML_LITERAL = `${RDF_NS}XMLLiteral`;

/** XML names: a predicate is written as namespace + local name, and RDF/XML has no other way. */
const NAME_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const LOCAL_NAME = new RegExp(`[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*$`);

export class RdfXmlError extends Error {}

/**
 * Quads in, ONE RDF/XML document out (RDF/XML has no graphs: they merge). Each run of a
 * subject's statements is one `rdf:Description`, so nothing is held back. Predicates in a
 * namespace the document does not declare get a declaration on their own element. The caller
 * checks first that no text holds a character XML 1.0 cannot carry (`src/rdf/xml.ts`), and
 * hands over RDF 1.1 statements: RDF/XML has no triple terms.
 */
export function rdfXmlWriter(): Transform {
  let subject: string | undefined;
  const declarations = Object.entries({ rdf: RDF_NS, ...EXPORT_PREFIXES })
    .map(([p, ns]) => `\n    xmlns:${p}="${xmlAttribute(ns)}"`)
    .join('');
  const prefixOf = new Map(Object.entries({ rdf: RDF_NS, ...EXPORT_PREFIXES }).map(([p, ns]) => [ns, p]));

  return new Transform({
    writableObjectMode: true,
    construct(done) {
      this.push(`<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF${declarations}>\n`);
      done();
    },
    transform(quad: RDF.Quad, _encoding, done) {
      let out = '';
      const s = node(quad.subject);
      if (s !== subject) {
        if (subject !== undefined) out += '  </rdf:Description>\n';
        out += `  <rdf:Description ${s}>\n`;
        subject = s;
      }
      try {
        out += `    ${property(quad.predicate.value, quad.object, prefixOf)}\n`;
      } catch (e) {
        return done(e as Error);
      }
      done(null, out);
    },
    flush(done) {
      done(null, `${subject === undefined ? '' : '  </rdf:Description>\n'}</rdf:RDF>\n`);
    },
  });
}

function node(term: RDF.Term): string {
  if (term.termType === 'NamedNode') return `rdf:about="${xmlAttribute(term.value)}"`;
  if (term.termType === 'BlankNode') return `rdf:nodeID="${nodeId(term.value)}"`;
  throw new RdfXmlError(`RDF/XML cannot hold a ${term.termType} as a subject; export with --rdf 1.1`);
}

/** Blank node labels are NCNames in RDF/XML; N-Triples allows a few more characters. */
function nodeId(label: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(label) ? label : `b${Buffer.from(label).toString('hex')}`;
}

function property(predicate: string, object: RDF.Term, prefixOf: Map<string, string>): string {
  const local = LOCAL_NAME.exec(predicate)?.[0];
  if (!local) throw new RdfXmlError(`RDF/XML cannot write the predicate <${predicate}>: it does not end in an XML name`);
  const ns = predicate.slice(0, -local.length);
  const prefix = prefixOf.get(ns);
  const name = prefix ? `${prefix}:${local}` : `p:${local}`;
  const declare = prefix ? '' : ` xmlns:p="${xmlAttribute(ns)}"`;
  switch (object.termType) {
    case 'NamedNode':
      return `<${name}${declare} rdf:resource="${xmlAttribute(object.value)}"/>`;
    case 'BlankNode':
      return `<${name}${declare} rdf:nodeID="${nodeId(object.value)}"/>`;
    case 'Literal': {
      if (object.datatype.value === XML_LITERAL) throw new RdfXmlError('rdf:XMLLiteral is not written by this exporter');
      const attr = object.language
        ? ` xml:lang="${xmlAttribute(object.language)}"`
        : object.datatype.value === XSD_STRING
          ? ''
          : ` rdf:datatype="${xmlAttribute(object.datatype.value)}"`;
      return `<${name}${declare}${attr}>${xmlText(object.value)}</${name}>`;
    }
    default:
      throw new RdfXmlError(`RDF/XML cannot hold a ${object.termType} as an object; export with --rdf 1.1`);
  }
}
