import { iri, RDF, XSD, type Term } from './terms.ts';
import { WEAVE_TERMS, type WeaveTerm } from './weave-terms.ts';

export type { WeaveTerm };

/**
 * Every vocabulary IRI the emitter writes, typed once. The weave: terms are generated from
 * `ontology/weave.ttl`; `test/ontology.test.ts` checks the list is current.
 */

export const WEAVE_NS = 'https://repolex.ai/ontology/weave#';
/** The named graph the ontology is loaded into. */
export const ONTOLOGY_GRAPH = 'https://repolex.ai/ontology/weave';

export const PREFIXES: Record<string, string> = {
  weave: WEAVE_NS,
  rdf: RDF,
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: XSD,
  owl: 'http://www.w3.org/2002/07/owl#',
  prov: 'http://www.w3.org/ns/prov#',
  oa: 'http://www.w3.org/ns/oa#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  dcterms: 'http://purl.org/dc/terms/',
};

/** ravel's vocabulary, which the alignment graph (src/align/ravel.ts) maps Weave's onto. */
export const RAVEL_NS = 'https://repolex.ai/ontology/ravel/';

/** The prefixes exports declare (Turtle, TriG, RDF/XML): the predeclared ones, and ravel's for the alignment. */
export const EXPORT_PREFIXES: Record<string, string> = { ...PREFIXES, ravel: RAVEL_NS };

/** `PREFIX` lines for every predeclared prefix, for queries people type. */
export function sparqlPrefixes(): string {
  return Object.entries(PREFIXES)
    .map(([p, ns]) => `PREFIX ${p}: <${ns}>\n`)
    .join('');
}

/**
 * A namespace as a frozen object of the terms it may name: `weave.Turn` is
 * `<https://repolex.ai/ontology/weave#Turn>`, and a name the list lacks does not compile.
 */
function namespace<const N extends string>(base: string, names: readonly N[]): Readonly<Record<N, Term>> {
  return Object.freeze(Object.fromEntries(names.map((name) => [name, iri(base + name)]))) as Record<N, Term>;
}

/** Generated from the ontology, so the code can name only what `ontology/weave.ttl` declares. */
export const weave = namespace(WEAVE_NS, WEAVE_TERMS);
export const rdf = namespace(RDF, ['type', 'reifies', 'JSON']);
export const rdfs = namespace(PREFIXES.rdfs, ['label', 'comment']);
export const prov = namespace(PREFIXES.prov, [
  'Activity',
  'Entity',
  'SoftwareAgent',
  'used',
  'generated',
  'wasDerivedFrom',
  'wasAttributedTo',
  'generatedAtTime',
  'endedAtTime',
]);
export const oa = namespace(PREFIXES.oa, [
  'Annotation',
  'SpecificResource',
  'TextQuoteSelector',
  'TextPositionSelector',
  'hasBody',
  'hasTarget',
  'hasSource',
  'hasSelector',
  'exact',
  'prefix',
  'suffix',
  'start',
  'end',
]);
export const dcterms = namespace(PREFIXES.dcterms, ['identifier']);
export const a = rdf.type;

const WEAVE_NAMES: ReadonlySet<string> = new Set(WEAVE_TERMS);

/** A weave: term named by data (a reader's finding fields): it must be one the ontology declares. */
export function weaveTerm(name: string): Term {
  if (!WEAVE_NAMES.has(name)) throw new Error(`weave:${name} is not declared in ontology/weave.ttl`);
  return weave[name as WeaveTerm];
}
