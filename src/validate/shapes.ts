import { readFile } from 'node:fs/promises';
import type { BlankNode, DatasetCore, NamedNode, Quad, Term } from '@rdfjs/types';
import { Parser } from 'n3';
import rdf from 'rdf-ext';
import { Validator, type PathStep, type ValidationResult } from 'shacl-engine';
import { PREFIXES } from '../rdf/vocab.ts';
import { COMPONENTS, SH, WSH } from './components.ts';
import { DataGraph } from './graph.ts';

/**
 * The shapes of ontology/shapes.ttl as a ready validator, and its results as plain rows that
 * name the shape, the focus node and the path, and never quote a literal of the data.
 */

export const SHAPES_FILE = new URL('../../ontology/shapes.ttl', import.meta.url);

/** One constraint a node of the data breaks. */
export interface Violation {
  /** The node shape, with the property path when a property shape failed: `wsh:EventShape weave:timestamp`. */
  shape: string;
  /** The constraint component, short: `MinCount`, `Datatype`, `DenseBlockOrder`. */
  constraint: string;
  /** The focus node in N-Triples form. */
  focus: string;
  message: string;
  /** The offending value, described without its text when it is a literal. */
  value?: string;
}

export interface Shapes {
  validator: Validator;
  /** The node shape owning each property shape, for readable names. */
  owners: Map<string, Term>;
}

export async function loadShapes(file: URL | string = SHAPES_FILE): Promise<Shapes> {
  const quads = new Parser({ baseIRI: WSH }).parse(await readFile(file, 'utf8'));
  const dataset = rdf.dataset(quads.map((q) => rdf.quad(q.subject, q.predicate, q.object)));
  const owners = new Map<string, Term>();
  for (const q of dataset.match(null, rdf.namedNode(`${SH}property`), null)) owners.set(key(q.object), q.subject);
  return { validator: new Validator(dataset, { factory: rdf, validations: COMPONENTS }), owners };
}

/** Validates one data graph (all `quads`, whatever graph they sat in, as one graph). */
export async function validateQuads(shapes: Shapes, quads: Iterable<Quad>): Promise<Violation[]> {
  const dataset = new DataGraph();
  for (const q of quads) dataset.add(q);
  return validateDataset(shapes, dataset);
}

export async function validateDataset(shapes: Shapes, dataset: DatasetCore): Promise<Violation[]> {
  const report = await shapes.validator.validate({ dataset });
  return report.results.filter((r) => r.severity.value === `${SH}Violation`).map((r) => violation(shapes, r));
}

function violation(shapes: Shapes, r: ValidationResult): Violation {
  const shapeTerm = r.shape.ptr.term;
  const owner = shapes.owners.get(key(shapeTerm));
  const path = r.path ? pathText(r.path) : undefined;
  const name = owner ? `${short(owner)}${path ? ` ${path}` : ''}` : short(shapeTerm);
  const out: Violation = {
    shape: name,
    constraint: r.constraintComponent.value.replace(/^.*[#/]/, '').replace(/ConstraintComponent$/, ''),
    focus: termText(r.focusNode.term),
    message: r.message.map((m) => m.value).join('; ') || defaultMessage(r),
  };
  const value = r.value?.term;
  if (value && !value.equals(r.focusNode.term)) out.value = describeValue(value);
  return out;
}

/** For the components shacl-engine reports without a message. */
function defaultMessage(r: ValidationResult): string {
  const param = (local: string) =>
    r.shape.ptr
      .out([rdf.namedNode(SH + local)])
      .terms.map((t) => short(t))
      .join(', ');
  switch (r.constraintComponent.value.slice(SH.length)) {
    case 'ClassConstraintComponent':
      return `Not typed ${param('class')}`;
    case 'NodeConstraintComponent':
      return `Does not conform to ${param('node')}`;
    case 'OrConstraintComponent':
      return 'None of the alternatives (sh:or) holds';
    case 'NotConstraintComponent':
      return 'Conforms to a shape it must not (sh:not)';
    default:
      return `Violates ${short(r.constraintComponent)}`;
  }
}

function key(term: Term): string {
  return `${term.termType}:${term.value}`;
}

const PREFIX_OF = [...Object.entries({ ...PREFIXES, wsh: WSH, sh: SH })].sort((a, b) => b[1].length - a[1].length);

/** A vocabulary IRI with its prefix (`weave:text`); anything else in angle brackets. */
function short(term: Term): string {
  if (term.termType !== 'NamedNode') return term.termType === 'BlankNode' ? `_:${term.value}` : termText(term);
  for (const [prefix, ns] of PREFIX_OF)
    if (term.value.startsWith(ns) && /^[\w-]+$/.test(term.value.slice(ns.length))) return `${prefix}:${term.value.slice(ns.length)}`;
  return `<${term.value}>`;
}

function pathText(path: PathStep[]): string {
  return path
    .map((step) => `${step.start === 'object' ? '^' : ''}${step.predicates.map((p) => short(p as NamedNode)).join('|')}`)
    .join('/');
}

function termText(term: Term): string {
  if (term.termType === 'NamedNode') return `<${term.value}>`;
  if (term.termType === 'BlankNode') return `_:${(term as BlankNode).value}`;
  if (term.termType === 'Quad') return 'a triple term';
  return describeValue(term);
}

/** Datatypes whose text is a number, a truth value or a time: safe to show, never a secret. */
const SHOWN = /#(integer|decimal|double|float|boolean|dateTime|date|long|int)$/;

/**
 * A value for the report. Literals of transcripts hold secrets, so a literal is described by
 * datatype and length only, unless it is typed as a number, truth value or time and its text is
 * short and made only of the characters those are written with.
 */
function describeValue(term: Term): string {
  if (term.termType !== 'Literal') return termText(term);
  const datatype = short(term.datatype);
  if (SHOWN.test(term.datatype.value) && /^[\w.:+-]{0,40}$/.test(term.value)) return `"${term.value}"^^${datatype}`;
  return `a ${datatype} literal of ${[...term.value].length} characters`;
}
