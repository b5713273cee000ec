import type { Literal, NamedNode, Quad, Term } from '@rdfjs/types';
import rdf from 'rdf-ext';
import { XsdValidation } from 'rdf-validation';
import type { Compile, CompiledShape, ValidationContext } from 'shacl-engine';
import { RDF, XSD } from '../rdf/terms.ts';
import { WEAVE_NS } from '../rdf/vocab.ts';

/**
 * Constraints `weave validate` runs natively. The three Weave components are declared in
 * ontology/shapes.ttl with SHACL-SPARQL validators (portable, but one query per focus node is far
 * too slow for a corpus); these are the same checks in code, and test/validate/ proves the two
 * agree. `sh:datatype` is replaced too: the library's xsd:string check rejects every character
 * outside the Basic Multilingual Plane (it tests UTF-16 code units against a surrogate range), so
 * every emoji would fail, and it does not check rdf:JSON at all.
 */

export const SH = 'http://www.w3.org/ns/shacl#';
export const WSH = 'https://repolex.ai/ontology/weave/shapes#';

const n = (iri: string) => rdf.namedNode(iri);
const HAS_CONTENT_BLOCK = n(`${WEAVE_NS}hasContentBlock`);
const BLOCK_ORDER = n(`${WEAVE_NS}blockOrder`);
const REIFIES = n(`${RDF}reifies`);
const XSD_STRING = `${XSD}string`;
const RDF_JSON = `${RDF}JSON`;
const xsd = new XsdValidation();

const message = (text: string): Literal[] => [rdf.literal(text)];
const parameter = (shape: CompiledShape, local: string): Term | undefined => shape.ptr.out([n(WSH + local)]).terms[0];
const isTrue = (term: Term | undefined) => term?.termType === 'Literal' && (term.value === 'true' || term.value === '1');

/** Whether a literal's text is a valid lexical form of its datatype. */
export function wellFormed(literal: Literal): boolean {
  switch (literal.datatype.value) {
    case XSD_STRING:
      return literal.value.isWellFormed();
    case RDF_JSON:
      try {
        JSON.parse(literal.value);
        return true;
      } catch {
        return false;
      }
    default:
      return xsd.validateSimple(literal);
  }
}

const compileDatatype: Compile = (shape) => {
  const datatype = shape.ptr.out([n(`${SH}datatype`)]).term as NamedNode;
  const component = n(`${SH}DatatypeConstraintComponent`);
  return {
    generic(context) {
      const term = context.valueOrNode.term;
      const typed = term.termType === 'Literal' && term.datatype.equals(datatype);
      if (!typed)
        context.violation(component, {
          args: { datatype },
          message: message(`Not a literal of datatype <${datatype.value}>`),
          value: context.valueOrNode,
        });
      else if (!wellFormed(term as Literal))
        context.violation(component, {
          args: { datatype },
          message: message(`Ill-formed <${datatype.value}> literal`),
          value: context.valueOrNode,
        });
      else context.debug(component);
    },
  };
};

/** The values of `predicate` on the focus node, without repeats. */
function values(context: ValidationContext, subject: Term, predicate: NamedNode): Term[] {
  return [...context.focusNode.dataset.match(subject, predicate, null)].map((q) => q.object);
}

const compileDenseBlockOrder: Compile = (shape) => {
  if (!isTrue(parameter(shape, 'denseBlockOrder'))) return null;
  const component = n(`${WSH}DenseBlockOrderConstraintComponent`);
  return {
    node(context) {
      const owner = context.focusNode.term;
      const blocks = values(context, owner, HAS_CONTENT_BLOCK);
      const seen = new Set<number>();
      let problem: string | undefined;
      for (const block of blocks) {
        const orders = values(context, block, BLOCK_ORDER);
        if (orders.length !== 1) {
          problem = `a block has ${orders.length} orders`;
          break;
        }
        const order = orders[0].termType === 'Literal' && /^[0-9]+$/.test(orders[0].value) ? Number(orders[0].value) : NaN;
        if (!(order < blocks.length) || seen.has(order)) {
          problem = `order ${orders[0].value} of ${blocks.length} blocks is ${seen.has(order) ? 'repeated' : 'out of 0…n−1'}`;
          break;
        }
        seen.add(order);
      }
      if (problem) context.violation(component, { message: message(`Its content blocks are not ordered 0…n−1: ${problem}`) });
      else context.debug(component);
    },
  };
};

function reified(context: ValidationContext): Term[] {
  return values(context, context.focusNode.term, REIFIES);
}

const compileReifiesAsserted: Compile = (shape) => {
  const param = parameter(shape, 'reifiesAsserted');
  if (!param) return null;
  const wanted = isTrue(param);
  const component = n(`${WSH}ReifiesAssertedConstraintComponent`);
  return {
    node(context) {
      for (const term of reified(context)) {
        if (term.termType !== 'Quad') continue;
        const t = term as Quad;
        const asserted = context.focusNode.dataset.match(t.subject, t.predicate, t.object).size > 0;
        if (asserted !== wanted)
          context.violation(component, {
            message: message(wanted ? 'It reifies a triple that is not asserted' : 'It reifies a triple that is asserted, and must not be'),
            value: context.focusNode.node([term]),
          });
      }
    },
  };
};

const compileReifiesPredicate: Compile = (shape) => {
  const predicate = parameter(shape, 'reifiesPredicate');
  if (!predicate) return null;
  const component = n(`${WSH}ReifiesPredicateConstraintComponent`);
  return {
    node(context) {
      for (const term of reified(context)) {
        if (term.termType === 'Quad' && (term as Quad).predicate.equals(predicate)) continue;
        context.violation(component, {
          args: { reifiesPredicate: predicate },
          message: message(`It reifies something that is not a triple term of <${predicate.value}>`),
          value: context.focusNode.node([term]),
        });
      }
    },
  };
};

/** Keyed by the parameter that switches each on, as shacl-engine looks them up. */
export const COMPONENTS = new Map<Term, Compile>([
  [n(`${SH}datatype`), compileDatatype],
  [n(`${WSH}denseBlockOrder`), compileDenseBlockOrder],
  [n(`${WSH}reifiesAsserted`), compileReifiesAsserted],
  [n(`${WSH}reifiesPredicate`), compileReifiesPredicate],
]);
