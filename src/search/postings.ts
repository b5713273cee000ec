import MiniSearch from 'minisearch';
import { countTokens } from './tokens.ts';

/**
 * MiniSearch's postings, kept small. MiniSearch holds each term's postings as a Map of field to a
 * Map of document to count: a JavaScript Map costs some 180 bytes even with one entry, and most
 * terms are in one field of a few documents, so the maps were most of the index's memory (a long
 * session's index took 3 GB of heap for a file of 758 MB). Here a term's fields are a short list
 * and each field's postings one array of (document, count) pairs, documents in ascending order.
 *
 * Both classes stand in for the Maps exactly where MiniSearch uses them (its `removeTerm`,
 * `termResults`, `vacuum` and `toJSON`, MiniSearch 7 as pinned, and countedAdd in its `add`'s
 * place): `get`, `set`, `has`, `delete`, `size`, `keys` and iteration, which, as a Map's, may
 * delete as it goes.
 */

/** Pairs past this many are kept in a Uint32Array: 4 bytes a number, where an array of numbers takes 8. */
const TYPED_FROM = 16;

/** One field's postings of one term: MiniSearch's Map of short document id to count. */
export class Postings {
  /**
   * [id, count, id, count, …], ids ascending, in `used` places: an array of numbers while few (a
   * typed array costs some 150 bytes of its own, and most terms are in a few documents), then a
   * Uint32Array with room to grow, whose places past `used` are zero. A deleted pair keeps its id
   * with a count of 0 until a quarter of the pairs are deleted: a Map's iteration survives
   * deletes, and so does this.
   */
  private pairs: number[] | Uint32Array;
  private used: number;
  private deleted = 0;
  /** How many times the pairs were moved to a new array by an insert or a compaction. */
  private replaced = 0;

  constructor(pairs: number[] = []) {
    this.pairs = pairs.length > TYPED_FROM * 2 ? Uint32Array.from(pairs) : pairs;
    this.used = pairs.length;
  }

  /** The postings of a Map, or of [id, count] pairs in any order. */
  static of(entries: Iterable<[number, number]>): Postings {
    const list = [...entries].sort(([x], [y]) => x - y);
    return new Postings(list.flat());
  }

  /**
   * The postings of an index file's object of document to count: its keys, integers, iterate in
   * ascending order (as a JavaScript object orders them), so no sort.
   */
  static ofObject(counts: Record<string, number>): Postings {
    const pairs: number[] = [];
    for (const id in counts) pairs.push(Number(id), counts[id]);
    return new Postings(pairs);
  }

  get size(): number {
    return (this.used >> 1) - this.deleted;
  }

  get(id: number): number | undefined {
    const at = this.find(id);
    return at >= 0 && this.pairs[at + 1] !== 0 ? this.pairs[at + 1] : undefined;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  set(id: number, count: number): this {
    const at = this.find(id);
    if (at >= 0) {
      if (this.pairs[at + 1] === 0) this.deleted--;
      this.pairs[at + 1] = count;
    } else if (-at - 1 === this.used) this.append(id, count);
    else {
      // A new array, not a splice: an iteration under way goes on over the one it began with.
      const before = -at - 1;
      const pairs = Array.from(this.pairs.slice(0, this.used));
      pairs.splice(before, 0, id, count);
      this.replace(pairs);
    }
    return this;
  }

  delete(id: number): boolean {
    const at = this.find(id);
    if (at < 0 || this.pairs[at + 1] === 0) return false;
    this.pairs[at + 1] = 0;
    if (++this.deleted * 4 >= this.used >> 1) this.compact();
    return true;
  }

  *keys(): IterableIterator<number> {
    for (const [id] of this) yield id;
  }

  *entries(): IterableIterator<[number, number]> {
    yield* this;
  }

  *[Symbol.iterator](): IterableIterator<[number, number]> {
    const made = this.replaced;
    let pairs = this.pairs;
    for (let i = 0; ; i += 2) {
      // An append keeps every pair where it was (in place, or in a grown array): go on over the
      // live pairs, and see it as a Map's iteration would. An insert or a compaction moves them: go
      // on over the array it replaced, whose places past its pairs are zero, a count no pair has.
      const live = this.replaced === made;
      if (live) pairs = this.pairs;
      if (i >= (live ? this.used : pairs.length)) return;
      if (pairs[i + 1] !== 0) yield [pairs[i], pairs[i + 1]];
    }
  }

  private append(id: number, count: number): void {
    const pairs = this.pairs;
    if (Array.isArray(pairs)) {
      if (pairs.length < TYPED_FROM * 2) {
        pairs.push(id, count);
        this.used = pairs.length;
        return;
      }
      this.pairs = grown(pairs, this.used);
    } else if (this.used === pairs.length) this.pairs = grown(pairs, this.used);
    this.pairs[this.used++] = id;
    this.pairs[this.used++] = count;
  }

  /** The pairs without the deleted, in a new array (an iteration under way keeps the old one). */
  private compact(): void {
    const kept: number[] = [];
    for (let i = 0; i < this.used; i += 2) if (this.pairs[i + 1] !== 0) kept.push(this.pairs[i], this.pairs[i + 1]);
    this.replace(kept);
    this.deleted = 0;
  }

  private replace(pairs: number[]): void {
    this.pairs = pairs.length > TYPED_FROM * 2 ? Uint32Array.from(pairs) : pairs;
    this.used = pairs.length;
    this.replaced++;
  }

  /** Adds `by` to `id`'s count, as MiniSearch's addTerm adds one: most often to the last pair, the document being added. */
  increment(id: number, by = 1): void {
    const last = this.used - 2;
    if (last >= 0 && this.pairs[last] === id) {
      if (this.pairs[last + 1] === 0) this.deleted--;
      this.pairs[last + 1] += by;
    } else this.set(id, (this.get(id) ?? 0) + by);
  }

  /** The index of `id`'s pair, else −(where it would go) − 1. */
  private find(id: number): number {
    const pairs = this.pairs;
    let low = 0;
    let high = (this.used >> 1) - 1;
    // Documents are added in id order: the last pair first.
    if (high >= 0 && pairs[high * 2] < id) return -(this.used + 1);
    while (low <= high) {
      const mid = (low + high) >> 1;
      const at = pairs[mid * 2];
      if (at === id) return mid * 2;
      if (at < id) low = mid + 1;
      else high = mid - 1;
    }
    return -(low * 2) - 1;
  }
}

/** A Uint32Array of `pairs`' first `used` numbers, with room for half as many again. */
function grown(pairs: number[] | Uint32Array, used: number): Uint32Array {
  const made = new Uint32Array(Math.max(TYPED_FROM * 4, used + (used >> 1) + 2) & ~1);
  for (let i = 0; i < used; i++) made[i] = pairs[i];
  return made;
}

/**
 * One term's postings by field: MiniSearch's Map of field id to postings. The index has two
 * fields (text and tool), kept in the object itself; a field past them in a list.
 */
export class TermPostings {
  private field0: Postings | undefined = undefined;
  private field1: Postings | undefined = undefined;
  private more: (Postings | undefined)[] | undefined = undefined;

  get size(): number {
    return (this.field0 ? 1 : 0) + (this.field1 ? 1 : 0) + (this.more?.filter(Boolean).length ?? 0);
  }

  get(field: number): Postings | undefined {
    return field === 0 ? this.field0 : field === 1 ? this.field1 : this.more?.[field - 2];
  }

  has(field: number): boolean {
    return this.get(field) !== undefined;
  }

  set(field: number, postings: Postings | undefined): this {
    if (field === 0) this.field0 = postings;
    else if (field === 1) this.field1 = postings;
    else (this.more ??= [])[field - 2] = postings;
    return this;
  }

  delete(field: number): boolean {
    const had = this.has(field);
    this.set(field, undefined);
    return had;
  }

  *keys(): IterableIterator<number> {
    for (const [field] of this) yield field;
  }

  *entries(): IterableIterator<[number, Postings]> {
    yield* this;
  }

  *[Symbol.iterator](): IterableIterator<[number, Postings]> {
    const count = 2 + (this.more?.length ?? 0);
    for (let field = 0; field < count; field++) {
      const postings = this.get(field);
      if (postings !== undefined) yield [field, postings];
    }
  }
}

/**
 * MiniSearch's own members these stand in under (private in its types; the version is pinned):
 * its index of terms, and what its `add` reads and calls (countedAdd stands in for it).
 */
interface Inner {
  _index: Iterable<[string, Iterable<[number, Iterable<[number, number]>]>]> & {
    fetch(term: string, make: () => TermPostings): TermPostings;
    set(term: string, postings: TermPostings): void;
  };
  add(document: unknown): void;
  _options: {
    fields: string[];
    idField: string;
    extractField: (document: unknown, field: string) => unknown;
    stringifyField: (value: unknown, field: string) => string;
    tokenize: unknown;
    processTerm: unknown;
  };
  _idToShortId: Map<unknown, number>;
  _fieldIds: Record<string, number>;
  _documentCount: number;
  addDocumentId(id: unknown): number;
  saveStoredFields(document: number, doc: unknown): void;
  addFieldLength(document: number, field: number, count: number, length: number): void;
}

/**
 * `mini`, adding its documents as MiniSearch does but into TermPostings and Postings in place of
 * the Maps it makes, each field's tokens counted once (countedAdd). Only for MiniSearch's default
 * tokenizer and term processing, the index's, which countedAdd does by hand.
 */
export function withCompactPostings<T>(mini: MiniSearch<T>): MiniSearch<T> {
  const inner = mini as unknown as Inner;
  const { tokenize, processTerm } = inner._options;
  if (tokenize !== MiniSearch.getDefault('tokenize') || processTerm !== MiniSearch.getDefault('processTerm'))
    throw new Error(
      "compact postings count tokens as MiniSearch's default tokenizer and term processing make them, not as this index's own",
    );
  inner.add = countedAdd(inner);
  return mini;
}

/**
 * MiniSearch's `add` (7.2, as pinned), each field's tokens counted in one pass (tokens.ts) and
 * each distinct one added once with its count, where MiniSearch splits, counts the split again for
 * the field's length, and lower-cases and adds every token one at a time. Its tokenizer and term
 * processing must be the defaults, which this does by hand: the same terms, counts and field
 * lengths, in the same order (test/search/tokens.test.ts builds an index both ways).
 */
function countedAdd(inner: Inner): (document: unknown) => void {
  const counts = new Map<string, number>();
  const made = () => new TermPostings();
  return (document) => {
    const { extractField, stringifyField, fields, idField } = inner._options;
    const id = extractField(document, idField);
    if (id == null) throw new Error(`MiniSearch: document does not have ID field "${idField}"`);
    if (inner._idToShortId.has(id)) throw new Error(`MiniSearch: duplicate ID ${id}`);
    const documentId = inner.addDocumentId(id);
    inner.saveStoredFields(documentId, document);
    for (const field of fields) {
      const value = extractField(document, field);
      if (value == null) continue;
      const fieldId = inner._fieldIds[field];
      const length = countTokens(stringifyField(value, field), counts);
      inner.addFieldLength(documentId, fieldId, inner._documentCount - 1, length);
      // Two tokens that differ only in case are one term: the second adds to the first's last pair.
      counts.forEach((count, token) => {
        const byField = inner._index.fetch(token.toLowerCase(), made);
        const postings = byField.get(fieldId);
        if (postings === undefined) byField.set(fieldId, new Postings([documentId, count]));
        else postings.increment(documentId, count);
      });
    }
  };
}

/** One term of an index file (its postings by field, then by document, as MiniSearch's JSON has them) into `mini`'s index, as its `loadJS` sets them. */
export function loadTerm<T>(mini: MiniSearch<T>, term: string, fields: Record<string, Record<string, number>>): void {
  const postings = new TermPostings();
  for (const [field, counts] of Object.entries(fields)) postings.set(Number.parseInt(field, 10), Postings.ofObject(counts));
  (mini as unknown as Inner)._index.set(term, postings);
}
