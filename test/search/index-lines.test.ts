import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { SearchIndex } from '../../src/search/index.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

type IndexJson = Record<string, unknown> & { index?: [string, unknown][] };

/** A store of the spine fixtures (two sessions), the path of its index file, and that file's lines after the format line, parsed. */
async function indexedStore(dir: string): Promise<{ store: string; path: string; format: unknown; lines: unknown[][] }> {
  const store = join(dir, 'store');
  await ingest([join(FIXTURES, 'spine')], { storeDir: store, soul: 'local', archive: false });
  const path = join(store, (await readManifest(store))!.files!['search/index'].file);
  const [format, ...lines] = (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { store, path, format, lines };
}

/** MiniSearch's JSON put back together from the index lines' fields, items and entries. */
function indexOf(lines: unknown[][]): IndexJson {
  const index: IndexJson = {};
  for (const [kind, key, a, b] of lines as [string, string, unknown, unknown][])
    if (kind === 'field') index[key] = a;
    else if (kind === 'item') (index[key] as unknown[]).push(a);
    else if (kind === 'entry') (index[key] as Record<string, unknown>)[a as string] = b;
  return index;
}

/**
 * The search index file is JSON lines (issue 25: the index of a store with long sessions is more
 * than one string holds): a format line, then a session or a field of the index a line. It keeps
 * of a document only its kind (the rest of a hit is read with its snippet), and of a session its
 * documents' range of short ids. An index file of a format before is not read: the index is made
 * again from the documents files, with the same hits.
 */
test('the search index is JSON lines holding kinds and id ranges; one of a format before is made again with the same hits', async () => {
  const dir = await tempDir();
  try {
    const { store, path, format, lines } = await indexedStore(dir);
    assert.deepEqual(format, { format: 'weave-search/5' });
    // The spine fixtures are two sessions, their documents numbered one after the other.
    const sessions = lines
      .filter(([kind]) => kind === 'session')
      .map(([, , state]) => state as { first: number; count: number; ids?: unknown });
    assert.equal(sessions.length, 2);
    const index = indexOf(lines);
    const count = index.documentCount as number;
    const [a, b] = sessions.map(({ first, count }) => [first, count]).sort(([x], [y]) => x - y);
    assert.deepEqual([a[0], b[0], a[1] + b[1]], [0, a[1], count]);
    assert.ok(sessions.every((s) => s.ids === undefined));
    // Each document's stored fields: its kind, the digest it folds by (52 bits) and its stream's number.
    const stored = Object.values(index.storedFields as Record<string, Record<string, unknown>>);
    assert.equal(stored.length, count);
    assert.ok(
      stored.every((f) => Object.keys(f).join() === 'kind,fold,streamNo' && Number.isSafeInteger(f.fold) && (f.fold as number) < 2 ** 52),
      JSON.stringify(stored[0]),
    );
    // Each session's streams numbered from the main one's 0: 1111… has two sub-agents (one of a
    // workflow), 2222… one (a side file beside it).
    const ids = index.documentIds as Record<string, string>;
    const streamsOf = (session: string) =>
      [
        ...new Set(
          Object.entries(index.storedFields as Record<string, { streamNo: number }>)
            .filter(([short]) => ids[short].startsWith(`${session} `))
            .map(([, f]) => f.streamNo),
        ),
      ].sort();
    assert.deepEqual(streamsOf('11111111-1111-4111-8111-111111111111'), [0, 1, 2]);
    assert.deepEqual(streamsOf('22222222-2222-4222-8222-222222222222'), [0, 1]);

    const hits = async () => (await (await SearchIndex.open(store)).search('README typo')).hits;
    const now = await hits();
    assert.ok(now.length > 0);
    // A hit still tells its turn, role and time, read from the documents file.
    assert.ok(
      now.every((h) => h.event.includes('/Turn/') && h.time && h.session && h.block.includes('/ContentBlock/')),
      JSON.stringify(now[0]),
    );

    // The same index as the Weave before wrote it (format 3: every stored field, a session's ids).
    await writeFile(path, `${JSON.stringify({ format: 'weave-search/3' })}\n${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    assert.deepEqual(await hits(), now);
  } finally {
    await removeDir(dir);
  }
});

/**
 * The index is read back a term at a time into MiniSearch's own index, and written a term at a
 * time from it (never its whole JSON beside it): what is read is what was written, term for term.
 */
test('the index read back a term at a time holds every term and posting it was written with', async () => {
  const dir = await tempDir();
  try {
    const { store, lines } = await indexedStore(dir);
    const written = indexOf(lines);
    const read = ((await SearchIndex.open(store)) as unknown as { mini: { toJSON(): IndexJson } }).mini.toJSON();
    // The terms' order is the index's tree's, which a load may change.
    const byTerm = (json: IndexJson) => ({ ...json, index: [...(json.index ?? [])].sort(([x], [y]) => (x < y ? -1 : 1)) });
    // The spine fixtures' two sessions hold 62 distinct terms.
    assert.equal(written.index?.length, 62);
    assert.deepEqual(byTerm(read), byTerm(written));
  } finally {
    await removeDir(dir);
  }
});

/**
 * A session's documents are added to the index as they are read, a line at a time (a long
 * session's are never held all at once). A documents file that fails part way leaves none of
 * that session in the index, and the other session as it was.
 */
test('a documents file broken part way leaves none of its session in the index', async () => {
  const dir = await tempDir();
  try {
    const { store } = await indexedStore(dir);
    const manifest = (await readManifest(store))!;
    const index = await SearchIndex.open(store, manifest);
    const before = index.documentCount;
    const found = async () => (await index.search('README typo')).hits.map((h) => h.session);
    // Of the two sessions, only one speaks of the README's typo.
    const [broken] = new Set(await found());
    const [name, entry] = Object.entries(manifest.files!).find(([n, e]) => n.startsWith('search/documents/') && e.sessionId === broken)!;
    // Its documents file, a head and then a document a line, with its last line cut short under a
    // new digest (as a new version would be).
    const path = join(store, entry.file);
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    const docs = lines.length - 1;
    assert.ok(docs > 1);
    await writeFile(path, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 20)}\n`);
    const changed = { ...manifest, files: { ...manifest.files, [name]: { ...entry, sha1: 'changed' } } };
    await assert.rejects(index.update(changed), SyntaxError);
    assert.deepEqual(await found(), []);
    // The other session's documents, all of them and only them.
    assert.equal(index.documentCount, before - docs);
  } finally {
    await removeDir(dir);
  }
});

/**
 * A search reads of a session's documents file only its results' lines (a long session's file is
 * most of a search's time): the others are passed over by the id at their start, unparsed. A
 * line it does not want, broken, costs the hits nothing; before, it cost them their snippets and
 * turns.
 */
test('a search parses only its results’ lines of a documents file', async () => {
  const dir = await tempDir();
  try {
    const { store } = await indexedStore(dir);
    const index = await SearchIndex.open(store);
    const { hits } = await index.search('README typo');
    assert.ok(hits.length > 0 && hits.every((h) => h.snippet));
    const manifest = (await readManifest(store))!;
    const entry = Object.values(manifest.files!).find((e) => e.file.startsWith('search/documents/') && e.sessionId === hits[0].session)!;
    const path = join(store, entry.file);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const results = new Set((await index.search('README typo', { limit: 1000 })).hits.map((h) => h.block));
    const other = lines.findIndex((line, i) => i > 0 && line && !results.has(JSON.parse(line).block));
    assert.ok(other > 0);
    lines[other] = `${lines[other].slice(0, lines[other].indexOf('","session"') + 2)} broken`;
    await writeFile(path, lines.join('\n'));
    assert.deepEqual((await index.search('README typo')).hits, hits);
  } finally {
    await removeDir(dir);
  }
});

test('a document line’s id is read from its start, escapes and all', async () => {
  const { lineId } = await import('../../src/search/index.ts');
  for (const id of ['s1 urn:x:b/0', 'we"ird\\ id\\ urn:x:b/1', 'back\\\\slash" urn:x:b/2', 'ünï 😀 urn:x:b/3'])
    assert.equal(lineId(JSON.stringify({ id, session: 's', text: '"id":"no"' })), id);
  assert.equal(lineId('{"docs":[]}'), undefined);
  assert.equal(lineId('{"id":"unterminated'), undefined);
});
