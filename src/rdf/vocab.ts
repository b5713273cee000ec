import { iri, RDF, XSD, type Term } from './terms.ts';

/**
 * Every vocabulary IRI the emitter writes, typed once. `test/ontology.test.ts` proves each weave:
 * term used on the fixtures is declared in `ontology/weave.ttl`.
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

/** `PREFIX` lines for every predeclared prefix, for queries people type. */
export function sparqlPrefixes(): string {
  return Object.entries(PREFIXES).map(([p, ns]) => `PREFIX ${p}: <${ns}>\n`).join('');
}

/** A proxy that turns `weave.Turn` into `<https://repolex.ai/ontology/weave#Turn>`. */
function namespace(base: string): Record<string, Term> {
  const cache = new Map<string, Term>();
  return new Proxy({} as Record<string, Term>, {
    get(_, name: string) {
      let term = cache.get(name);
      if (!term) cache.set(name, (term = iri(base + name)));
      return term;
    },
  });
}

export const weave = namespace(WEAVE_NS);
export const rdf = namespace(RDF);
export const rdfs = namespace(PREFIXES.rdfs);
export const prov = namespace(PREFIXES.prov);
export const oa = namespace(PREFIXES.oa);
export const skos = namespace(PREFIXES.skos);
export const dcterms = namespace(PREFIXES.dcterms);
export const a = rdf.type;
