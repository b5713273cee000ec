import { createHash } from 'node:crypto';
import { instanceIri } from '../rdf/iri.ts';
import { str, tripleTerm, type Term, type Triple } from '../rdf/terms.ts';
import { a, rdf, weave, type WeaveTerm } from '../rdf/vocab.ts';
import { superclassesOf } from './vocabulary.ts';
import { NONE, SharedLists } from '../lists.ts';

/** How well a derived link is founded (the glossary's correlation quality). */
export type Evidence = 'exact_unique' | 'exact_ambiguous' | 'strong_inference' | 'weak_inference' | 'unresolved' | 'conflict';

export const EVIDENCE_LEVELS: readonly Evidence[] = [
  'exact_unique',
  'exact_ambiguous',
  'strong_inference',
  'weak_inference',
  'unresolved',
  'conflict',
];

/** The lists of classes nodes are given, each made once (lists.ts). */
const CLASS_LISTS = new SharedLists<WeaveTerm>();

/** How many items of a part's loop (calls, tools, records) are derived between two hand-ons. */
const TAKEN_EVERY = 512;

/** A link's annotation, made into triples only when taken. */
interface Annotation extends Triple {
  evidence: Evidence;
}

/** What a link to nothing stood for: the kinds of Unresolved placeholder. */
type UnresolvedKind =
  | 'tool_result'
  | 'tool_use'
  | 'child_stream'
  | 'notified_child'
  | 'spawn_call'
  | 'spawn_of_child'
  | 'epoch_continuation'
  | 'run'
  | 'summarized_boundary'
  | 'epoch_summary';

/**
 * Collects one session's derived triples. Every link goes in twice: as the asserted triple, and
 * as an RDF 1.2 annotation `<reifier> rdf:reifies <<( s p o )>> ; weave:evidence <level>`, so a
 * query can keep the exact links or list the inferred ones. Reifier IRIs hash the session and the
 * triple, so the same derivation always yields the same IRI.
 */
export class Derivation {
  /**
   * What was derived since it was last taken (`taken`, after each part of the model), in order:
   * triples, and annotations kept as the link and its level until then: a long session has
   * millions, and its reifier and triple term are the longest texts of the part.
   */
  private made: (Triple | Annotation)[] = [];
  private readonly placeholders = new Map<string, Term>();
  /**
   * The classes already stated of each node, so a class two kinds share is stated once: the
   * node's term (shared with its triples) to its list of class names, one list per distinct list
   * (CLASS_LISTS: a few dozen in all, shared by every session), never one per node.
   */
  private readonly types = new Map<Term, readonly WeaveTerm[]>();

  constructor(
    readonly soul: string,
    readonly sessionId: string,
  ) {}

  /** The triples derived since the last taken, each annotation as its two; they are let go as they are taken. */
  *taken(): Generator<Triple> {
    const made = this.made;
    this.made = [];
    for (let i = 0; i < made.length; i++) {
      const t = made[i];
      made[i] = undefined as never;
      if (!('evidence' in t)) {
        yield t;
        continue;
      }
      const { s, p, o, evidence } = t;
      const digest = createHash('sha1').update(`${this.sessionId} ${s} ${p} ${o}`).digest('hex').slice(0, 20);
      const reifier = instanceIri(this.soul, 'Link', this.sessionId, digest);
      yield { s: reifier, p: rdf.reifies, o: tripleTerm({ s, p, o }) };
      yield { s: reifier, p: weave.evidence, o: weave[evidence] };
    }
  }

  /**
   * What was derived so far, handed on at every `TAKEN_EVERY`th item of a part's loop: a long
   * session's calls or tools are then never all held as triples at once.
   */
  *takenAt(item: number): Generator<Triple> {
    if (item > 0 && item % TAKEN_EVERY === 0) yield* this.taken();
  }

  add(s: Term, p: Term, o: Term): void {
    this.made.push({ s, p, o });
  }

  link(s: Term, p: Term, o: Term, evidence: Evidence): void {
    this.made.push({ s, p, o });
    this.annotate(s, p, o, evidence);
  }

  private annotate(s: Term, p: Term, o: Term, evidence: Evidence): void {
    this.made.push({ s, p, o, evidence });
  }

  /**
   * A link this session would state and cannot: `s` is a node every session holding it shares
   * (a tool use the API named), `o` this session's placeholder. Another session may hold the real
   * target, so the link is not asserted on the shared node; only its annotation says, unasserted,
   * that this session's records leave it open.
   */
  gap(s: Term, p: Term, o: Term): void {
    this.annotate(s, p, o, 'unresolved');
  }

  /**
   * `node` is a `cls`, and so every superclass the ontology declares for it (the store does no
   * inference: `?n a weave:Step` must find every step). With `evidence`, the class itself is a
   * derived link and carries it; its superclasses follow from it.
   */
  typed(node: Term, cls: WeaveTerm, evidence?: Evidence): void {
    const before = this.types.get(node) ?? NONE;
    let stated = before;
    for (const name of [cls, ...superclassesOf(cls)]) {
      if (stated.includes(name)) continue;
      stated = CLASS_LISTS.with(stated, name);
      if (name === cls && evidence) this.link(node, a, weave[name], evidence);
      else this.add(node, a, weave[name]);
    }
    if (stated !== before) this.types.set(node, stated);
  }

  /**
   * The explicit stand-in for something a record points at and the session does not hold: one
   * node per kind and id, typed weave:Unresolved and nothing else, so that a query for blocks,
   * turns, calls or streams never meets one; its kind says what it stands in for.
   */
  unresolved(kind: UnresolvedKind, id: string): Term {
    const key = `${kind}\u0000${id}`;
    let node = this.placeholders.get(key);
    if (node) return node;
    node = instanceIri(this.soul, 'Unresolved', this.sessionId, kind, id);
    this.placeholders.set(key, node);
    this.add(node, a, weave.Unresolved);
    this.add(node, weave.unresolvedKind, str(kind));
    this.add(node, weave.missingId, str(id));
    return node;
  }
}
