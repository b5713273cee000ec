import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atRowCap, cutNote, EXTERNAL_ROW_CAP, parseQueryArgs } from '../../src/client/query.ts';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import { removeDir, tempDir } from '../helpers.ts';

/**
 * Virtuoso answers a query with at most 1,048,576 rows and says nothing of the rest (the scale
 * bench met it on record-envelope.rq at 8 copies of the corpus): an answer from an external store
 * with exactly that many rows is told on stderr as one that may be cut, with how to page it.
 */

const JSON_TYPE = 'application/sparql-results+json';
const TSV = 'text/tab-separated-values';
const XML = 'application/sparql-results+xml';

/** An answer of `rows` solutions (each the same: what is counted is the rows) in each format. */
function answers(rows: number) {
  const more = (text: string) => (rows ? `${text}${`,${text}`.repeat(rows - 1)}` : '');
  return {
    json: `{"head":{"vars":["n"]},"results":{"bindings":[${more('{"n":{"type":"literal","value":"1"}}')}]}}`,
    tsv: `?n\n${'"1"\n'.repeat(rows)}`,
    xml: `<sparql><results>${'<result><binding name="n"><literal>1</literal></binding></result>'.repeat(rows)}</results></sparql>`,
  };
}

test('an answer of exactly as many rows as Virtuoso cuts at is counted so, in JSON, TSV and XML; one row fewer is not (TSV, XML)', () => {
  const at = answers(EXTERNAL_ROW_CAP);
  const below = answers(EXTERNAL_ROW_CAP - 1);
  for (const [type, key] of [
    [JSON_TYPE, 'json'],
    [TSV, 'tsv'],
    [XML, 'xml'],
  ] as const) {
    assert.equal(atRowCap(type, at[key]), true, type);
    // (JSON is parsed to be counted: asked once, to keep the test short.)
    if (key !== 'json') assert.equal(atRowCap(type, below[key]), false, type);
  }
  assert.equal(atRowCap(JSON_TYPE, '{"head":{"vars":[]},"results":{"bindings":[]}}'), false);
  // A row whose variable is unbound is an empty line of TSV; the last line may lack its newline.
  assert.equal(atRowCap(TSV, `?n\n${'\n'.repeat(EXTERNAL_ROW_CAP)}`), true);
  assert.equal(atRowCap(TSV, at.tsv.slice(0, -1)), true);
  assert.equal(atRowCap(TSV, below.tsv.slice(0, -1)), false);
});

test('the note is said for an external store only', async () => {
  const base = await tempDir();
  try {
    const external = remoteStoreDir('http://127.0.0.1:9/sparql', base);
    const text = answers(EXTERNAL_ROW_CAP).tsv;
    const ask = async (store: string) => cutNote((await parseQueryArgs(['SELECT ?n {}', '--format', 'tsv', '--store', store]))!, text);
    assert.equal(
      await ask(external),
      'weave query: the answer has 1,048,576 rows, the most Virtuoso answers with: it may be cut. Ask for it in pages (ORDER BY with LIMIT and OFFSET) to have it whole\n',
    );
    assert.equal(await ask(base), undefined, 'a store held here answers whole or not at all (507)');
  } finally {
    await removeDir(base);
  }
});
