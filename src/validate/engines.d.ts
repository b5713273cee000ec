/**
 * The little of shacl-engine that Weave uses (rdf-ext's is in src/types/rdf-ext.d.ts); it ships no types. Terms and
 * datasets are RDF/JS (@rdfjs/types).
 */

declare module 'shacl-engine' {
  import type { DatasetCore, Literal, NamedNode, Term } from '@rdfjs/types';
  import type rdf from 'rdf-ext';

  /** A grapoi pointer: the focus node or value a constraint looks at, inside its dataset. */
  export interface Pointer {
    readonly term: Term;
    readonly terms: Term[];
    readonly dataset: DatasetCore;
    out(predicates: Term[]): Pointer;
    node(terms: Term[]): Pointer;
  }

  export interface ValidationContext {
    readonly factory: typeof rdf;
    readonly focusNode: Pointer;
    readonly valueOrNode: Pointer;
    test(ok: boolean, component: NamedNode, args: ResultArgs): void;
    violation(component: NamedNode, args: ResultArgs): void;
    debug(component: NamedNode, args?: ResultArgs): void;
  }

  export interface ResultArgs {
    args?: Record<string, Term | string | number>;
    message?: Literal[];
    value?: Pointer;
  }

  export interface CompiledShape {
    readonly ptr: Pointer;
  }

  export type Compiled = {
    node?: (context: ValidationContext) => void | Promise<void>;
    property?: (context: ValidationContext) => void | Promise<void>;
    generic?: (context: ValidationContext) => void | Promise<void>;
  };

  export type Compile = (shape: CompiledShape) => Compiled | null;

  export interface PathStep {
    start: 'subject' | 'object';
    end: 'subject' | 'object';
    quantifier: string;
    predicates: Term[];
  }

  export interface ValidationResult {
    readonly focusNode: Pointer;
    readonly path: PathStep[] | null;
    readonly value?: Pointer;
    readonly message: Literal[];
    readonly severity: NamedNode;
    readonly constraintComponent: NamedNode;
    readonly shape: CompiledShape;
  }

  export interface ValidationReport {
    readonly conforms: boolean;
    readonly results: ValidationResult[];
  }

  export class Validator {
    constructor(shapes: DatasetCore, options: { factory: typeof rdf; validations?: Map<Term, Compile> });
    validate(data: { dataset: DatasetCore }): Promise<ValidationReport>;
  }
}

declare module 'rdf-validation' {
  import type { Literal } from '@rdfjs/types';

  /** XSD lexical forms: whether a literal's text is valid for its datatype. */
  export class XsdValidation {
    validateSimple(literal: Literal): boolean;
  }
}
