import type { DatasetCore, Quad, Term } from '@rdfjs/types';

/**
 * A read-mostly RDF/JS DatasetCore for one data graph under validation: quads indexed by
 * subject, by IRI or blank-node object and by predicate, and `match` answering with a plain
 * list instead of a new indexed dataset. shacl-engine only walks `match` results; building an
 * indexed dataset for every step of every path (what @rdfjs/dataset does) spent most of a
 * corpus run in the garbage collector. Quads are held in one default graph.
 */
export class DataGraph implements DatasetCore {
  /** Subject, then predicate IRI: most lookups are one property of one node. */
  private readonly bySubject = new Map<string, Map<string, Quad[]>>();
  /** Every quad of a subject, for a lookup of all its properties (a closed shape's): flattening its map each time, the corpus took 28 CPU-s, not 26. */
  private readonly allOfSubject = new Map<string, Quad[]>();
  private readonly byObject = new Map<string, Quad[]>();
  private readonly byPredicate = new Map<string, Quad[]>();
  private readonly all = new Set<Quad>();

  get size(): number {
    return this.all.size;
  }

  add(quad: Quad): this {
    // A repeated quad is harmless: shacl-engine counts distinct values.
    const o = nodeKey(quad.object);
    this.all.add(quad);
    const s = nodeKey(quad.subject)!;
    let properties = this.bySubject.get(s);
    if (!properties) this.bySubject.set(s, (properties = new Map()));
    push(properties, quad.predicate.value, quad);
    push(this.allOfSubject, s, quad);
    push(this.byPredicate, quad.predicate.value, quad);
    if (o) push(this.byObject, o, quad);
    return this;
  }

  delete(quad: Quad): this {
    for (const q of this.match(quad.subject, quad.predicate, quad.object)) {
      this.all.delete(q);
      const properties = this.bySubject.get(nodeKey(q.subject)!)!;
      for (const [map, key] of [
        [properties, q.predicate.value],
        [this.byPredicate, q.predicate.value],
        [this.byObject, nodeKey(q.object)],
        [this.allOfSubject, nodeKey(q.subject)],
      ] as const) {
        const list = key === undefined ? undefined : map.get(key);
        if (list) list.splice(list.indexOf(q), 1);
      }
    }
    return this;
  }

  has(quad: Quad): boolean {
    return this.match(quad.subject, quad.predicate, quad.object).size > 0;
  }

  match(subject?: Term | null, predicate?: Term | null, object?: Term | null, graph?: Term | null): QuadList {
    if (graph && graph.termType !== 'DefaultGraph') return new QuadList([]);
    const o = object ? nodeKey(object) : undefined;
    const candidates = subject
      ? this.ofSubject(subject, predicate)
      : o !== undefined
        ? this.byObject.get(o)
        : predicate
          ? this.byPredicate.get(predicate.value)
          : [...this.all];
    return new QuadList(candidates ?? []).filter(subject, predicate, object);
  }

  [Symbol.iterator](): Iterator<Quad> {
    return this.all[Symbol.iterator]();
  }

  private ofSubject(subject: Term, predicate?: Term | null): Quad[] | undefined {
    const key = nodeKey(subject) ?? '';
    return predicate ? this.bySubject.get(key)?.get(predicate.value) : this.allOfSubject.get(key);
  }
}

/** What `match` returns: the matching quads, themselves matchable. */
class QuadList implements DatasetCore {
  constructor(private readonly quads: Quad[]) {}

  get size(): number {
    return this.quads.length;
  }

  filter(subject?: Term | null, predicate?: Term | null, object?: Term | null): QuadList {
    if (!subject && !predicate && !object) return this;
    return new QuadList(
      this.quads.filter(
        (q) =>
          (!subject || same(q.subject, subject)) &&
          (!predicate || q.predicate.value === predicate.value) &&
          (!object || same(q.object, object)),
      ),
    );
  }

  match(subject?: Term | null, predicate?: Term | null, object?: Term | null, graph?: Term | null): QuadList {
    return graph && graph.termType !== 'DefaultGraph' ? new QuadList([]) : this.filter(subject, predicate, object);
  }

  has(quad: Quad): boolean {
    return this.filter(quad.subject, quad.predicate, quad.object).size > 0;
  }

  add(): this {
    throw new Error('a match result is read-only');
  }

  delete(): this {
    throw new Error('a match result is read-only');
  }

  [Symbol.iterator](): Iterator<Quad> {
    return this.quads[Symbol.iterator]();
  }
}

function same(a: Term, b: Term): boolean {
  return a.value === b.value && a.termType === b.termType && a.equals(b);
}

/** A key for an IRI, blank node or triple term; undefined for a literal (never indexed as object). */
function nodeKey(term: Term): string | undefined {
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Quad':
      return `<<${nodeKey(term.subject)} ${term.predicate.value} ${nodeKey(term.object) ?? literalKey(term.object)}>>`;
    default:
      return undefined;
  }
}

function literalKey(term: Term): string {
  return term.termType === 'Literal' ? `"${term.value}"@${term.language}^^${term.datatype.value}` : `?${term.value}`;
}

function push(map: Map<string, Quad[]>, key: string, quad: Quad): void {
  const list = map.get(key);
  if (list) list.push(quad);
  else map.set(key, [quad]);
}
