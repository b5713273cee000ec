import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import MiniSearch, { type Options } from 'minisearch';
import { ingest } from '../../src/ingest.ts';
import type { SearchDoc } from '../../src/search/docs.ts';
import { readDocuments } from '../../src/search/index.ts';
import { Postings, TermPostings, withCompactPostings } from '../../src/search/postings.ts';
import { documentsFiles } from '../../src/search/request.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

/**
 * The search index's compact postings (src/search/postings.ts) stand in for MiniSearch's Maps:
 * they must behave as the Maps do wherever MiniSearch uses them, so that every search answers
 * as it did, score for score.
 */

test('Postings answer get, has, size, delete and iteration as a Map does, through mixed changes', () => {
  // Each change: a kind (0–9) and a number. Mostly appends in id order (as MiniSearch adds
  // documents), with updates (set, or one added), deletes and inserts between. A fixed seed: no test depends on chance.
  const changes = fc.array(fc.tuple(fc.nat(9), fc.nat(1 << 20)), { minLength: 500, maxLength: 2000 });
  fc.assert(
    fc.property(changes, (steps) => {
      const map = new Map<number, number>();
      const postings = new Postings();
      let appended = 0;
      for (const [op, r] of steps) {
        // Kind 4 adds to the last id again (a document's term once more), deleted or not.
        const id = op < 4 ? (appended += 1 + (r % 3)) : op === 4 ? appended : r % (appended + 5);
        if (op < 7) {
          const count = (map.get(id) ?? 0) + 1;
          map.set(id, count);
          // As MiniSearch's addTerm adds one, or as its loadJS and vacuum set a count.
          if (r % 2) postings.increment(id);
          else postings.set(id, count);
        } else assert.equal(postings.delete(id), map.delete(id), `delete ${id}`);
        assert.equal(postings.size, map.size);
        assert.equal(postings.get(id), map.get(id));
        assert.equal(postings.has(id + 1), map.has(id + 1));
      }
      // A Map iterates in the order entries came; MiniSearch adds documents in id order, so compare as sets of pairs.
      const sorted = [...map].sort(([x], [y]) => x - y);
      assert.deepEqual([...postings], sorted);
      assert.deepEqual(
        [...postings.keys()],
        sorted.map(([id]) => id),
      );
    }),
    { seed: 7, numRuns: 20 },
  );
});

test('Postings may be deleted from while they are iterated, as MiniSearch vacuums a Map, kept in an array or a typed array', () => {
  // 8 pairs are kept in an array of numbers, 100 in a Uint32Array (postings.ts TYPED_FROM).
  for (const n of [8, 100]) {
    const ids = Array.from({ length: n }, (_, i) => i + 1);
    const postings = Postings.of(ids.map((id) => [id, id * 10] as [number, number]));
    const seen: number[] = [];
    for (const [id] of postings) {
      seen.push(id);
      if (id % 2 === 0) postings.delete(id);
    }
    assert.deepEqual(seen, ids);
    const odd = ids.filter((id) => id % 2 === 1);
    assert.deepEqual(
      [...postings],
      odd.map((id) => [id, id * 10]),
    );
    assert.equal(postings.size, n / 2);
  }
});

test('a pair appended while Postings are iterated is seen, as in a Map, as they grow from an array to a typed array', () => {
  const postings = new Postings();
  const map = new Map<number, number>();
  postings.set(1, 1);
  map.set(1, 1);
  const seen: number[] = [];
  for (const [id] of postings) {
    seen.push(id);
    if (id < 40) postings.set(id + 1, 1);
  }
  for (const [id] of map) if (id < 40) map.set(id + 1, 1);
  assert.deepEqual(seen, [...map.keys()]);
  assert.equal(postings.size, 40);
});

test("TermPostings keep a term's fields as a Map of field id would", () => {
  const term = new TermPostings();
  assert.equal(term.size, 0);
  term.set(1, Postings.of(new Map([[4, 2]])));
  term.set(0, Postings.of([[9, 1]]));
  assert.equal(term.size, 2);
  assert.deepEqual(
    [...term].map(([field, postings]) => [field, [...postings]]),
    [
      [0, [[9, 1]]],
      [1, [[4, 2]]],
    ],
  );
  assert.ok(term.delete(0));
  assert.ok(!term.delete(0));
  assert.deepEqual([...term.keys()], [1]);
});

describe('MiniSearch with compact postings, against MiniSearch as it is, on the fixtures', () => {
  let dir: string;
  let docs: SearchDoc[];
  const OPTIONS: Options<SearchDoc> = {
    fields: ['text', 'tool'],
    storeFields: ['session', 'block'],
    autoVacuum: false,
  };
  before(async () => {
    dir = await tempDir();
    await ingest([FIXTURES], { storeDir: dir, soul: 'local', archive: false });
    docs = [];
    for (const [, entry] of documentsFiles((await readManifest(dir))!)) docs.push(...(await readDocuments(dir, entry.file)).docs);
  });
  after(() => removeDir(dir));

  const QUERIES = ['cart total', 'readme', 'README typo', 'tset', 'npm test', 'error', 'Bash', 'the', 'fix the bug'];
  const answers = (mini: MiniSearch<SearchDoc>) =>
    QUERIES.flatMap((q) =>
      (['AND', 'OR'] as const).map((combineWith) =>
        mini
          .search(q, { combineWith, prefix: (t) => t.length > 2, fuzzy: (t) => (t.length > 5 ? 0.15 : 0) })
          .map((r) => `${r.id} ${r.score} ${r.terms.join(',')}`),
      ),
    );

  test('every search answers the same, score for score; also after a session is discarded and the index vacuumed', async () => {
    assert.ok(docs.length > 100, `${docs.length} documents`);
    const plain = new MiniSearch<SearchDoc>({ ...OPTIONS });
    const compact = withCompactPostings(new MiniSearch<SearchDoc>({ ...OPTIONS }));
    plain.addAll(docs);
    compact.addAll(docs);
    const before = answers(plain);
    assert.ok(before.flat().length > 50, 'the queries find something');
    assert.deepEqual(answers(compact), before);
    assert.deepEqual(compact.toJSON(), plain.toJSON());

    // One session's documents out, as an update replaces a session.
    const gone = docs.filter((d) => d.session === docs[0].session);
    for (const d of gone) {
      plain.discard(d.id);
      compact.discard(d.id);
    }
    assert.deepEqual(answers(compact), answers(plain));
    await plain.vacuum();
    await compact.vacuum();
    assert.deepEqual(answers(compact), answers(plain));
    assert.deepEqual(compact.toJSON(), plain.toJSON());
    // And back in, under new short ids.
    plain.addAll(gone);
    compact.addAll(gone);
    assert.deepEqual(answers(compact), answers(plain));
  });
});
