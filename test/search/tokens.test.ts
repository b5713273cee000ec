import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import MiniSearch from 'minisearch';
import { readDocuments } from '../../src/search/index.ts';
import { withCompactPostings } from '../../src/search/postings.ts';
import { countTokens } from '../../src/search/tokens.ts';
import { corpusStore, releaseCorpusStore } from '../corpus-store.ts';
import { HAS_CORPUS } from '../helpers.ts';

/**
 * A field's tokens counted by hand (src/search/tokens.ts) as MiniSearch's default tokenizer splits
 * them, and an index built with them byte for byte the one MiniSearch builds itself.
 */

const SPLIT = /[\n\r\p{Z}\p{P}]+/u;

/** What MiniSearch makes of a text: its tokens' counts (the empty one aside) and its field length. */
function bySplit(text: string): { counts: [string, number][]; length: number } {
  const tokens = text.split(SPLIT);
  const counts = new Map<string, number>();
  for (const token of tokens) if (token) counts.set(token, (counts.get(token) ?? 0) + 1);
  return { counts: [...counts], length: new Set(tokens).size };
}

function byHand(text: string): { counts: [string, number][]; length: number } {
  const counts = new Map<string, number>();
  const length = countTokens(text, counts);
  return { counts: [...counts], length };
}

/**
 * Texts of these pieces, drawn by a fixed generator: ASCII words, case, every ASCII punctuation
 * and symbol (`$+<=>^|~` and the backquote are symbols, not separators), NBSP, an em dash, an
 * ellipsis, CJK, an emoji (a surrogate pair, not a separator), an astral punctuation mark (U+1E95E,
 * a pair that is one), lone surrogates, and line ends.
 */
const PIECES = [
  ...'the The THE git Worktree a1 42 naïve İstanbul ß 日本語 😀'.split(' '),
  ...' \n\t,.-_/"\'()[]{}!?:;@#%&*\\$+<=>^|~`',
  '  ',
  '\r\n',
  ...['\u00a0', '\u2014', '\u2026', '\u3000', '\u{1e95e}', '\ud800', '\udc00', '\u2028'],
];

function* texts(count: number): Generator<string> {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let i = 0; i < count; i++) {
    let text = '';
    for (let n = next() % 12; n > 0; n--) text += PIECES[next() % PIECES.length];
    yield text;
  }
}

describe('countTokens', () => {
  test('counts what the split gives, the field length with its empty token at either end', () => {
    assert.deepEqual(byHand(''), { counts: [], length: 1 });
    assert.deepEqual(byHand(', '), { counts: [], length: 1 });
    assert.deepEqual(byHand('The the, THE'), {
      counts: [
        ['The', 1],
        ['the', 1],
        ['THE', 1],
      ],
      length: 3,
    });
    assert.deepEqual(byHand('(git worktree) git'), {
      counts: [
        ['git', 2],
        ['worktree', 1],
      ],
      length: 3,
    });
    assert.deepEqual(byHand('a+b=c'), { counts: [['a+b=c', 1]], length: 1 });
    assert.deepEqual(byHand('x\u{1e95e}y😀'), {
      counts: [
        ['x', 1],
        ['y😀', 1],
      ],
      length: 2,
    });
  });

  test('is the split for three thousand drawn texts', () => {
    for (const text of texts(3000)) assert.deepEqual(byHand(text), bySplit(text), JSON.stringify(text));
  });
});

/** `docs` indexed by MiniSearch alone, and by the index's own (compact postings, counted adds): their JSON. */
function bothWays(docs: readonly object[]): [string, string] {
  const options = { fields: ['text', 'tool'], storeFields: ['kind'], autoVacuum: false };
  const plain = new MiniSearch(options);
  const counted = withCompactPostings(new MiniSearch(options));
  for (const doc of docs) {
    plain.add(doc);
    counted.add(doc);
  }
  return [JSON.stringify(plain), JSON.stringify(counted)];
}

describe('an index of counted tokens', () => {
  test('is the JSON MiniSearch makes of the same documents', () => {
    const docs = [...texts(500)].map((text, i) => ({ id: `d${i}`, text, kind: 'text', ...(i % 3 ? {} : { tool: 'Bash' }) }));
    docs.push({ id: 'empty', text: '', kind: 'text' }, { id: 'none', text: null as unknown as string, kind: 'text' });
    const [plain, counted] = bothWays(docs);
    assert.ok(plain.length > 10_000);
    assert.equal(counted, plain);
  });

  test('is the JSON MiniSearch makes of the corpus documents', { skip: HAS_CORPUS ? false : 'no corpus at ../shared/corpus' }, async () => {
    const corpus = await corpusStore();
    try {
      const folder = join(corpus.dir, 'search', 'documents');
      const docs: object[] = [];
      for (const file of (await readdir(folder)).sort())
        docs.push(...(await readDocuments(corpus.dir, join('search', 'documents', file))).docs);
      assert.ok(docs.length > 5000, `${docs.length} documents`);
      const [plain, counted] = bothWays(docs);
      assert.equal(counted, plain);
    } finally {
      releaseCorpusStore(corpus);
    }
  });
});
