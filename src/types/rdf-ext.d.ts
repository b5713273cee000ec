/** The part of rdf-ext (2.x, which ships no types) that Weave uses: its factory and datasets (federation, shapes). */
declare module 'rdf-ext' {
  import type * as RDF from '@rdfjs/types';

  export interface DatasetExt extends RDF.DatasetCore<RDF.Quad, RDF.Quad>, Iterable<RDF.Quad> {
    match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): DatasetExt;
    import(stream: NodeJS.ReadableStream): Promise<DatasetExt>;
  }

  interface Environment extends RDF.DataFactory<RDF.Quad, RDF.Quad> {
    dataset(quads?: Iterable<RDF.Quad>): DatasetExt;
    fromTerm<T extends RDF.Term>(term: T): T;
    fromQuad(quad: RDF.Quad): RDF.Quad;
  }

  const rdf: Environment;
  export default rdf;
}
