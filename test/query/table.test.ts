import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderTable } from '../../src/query/table.ts';

/**
 * Found by running every ready query as a user would: record-envelope.rq answers 131,982 rows on
 * the corpus, and `weave query -f` failed with "Maximum call stack size exceeded" drawing its
 * table (a column's width was Math.max over a spread of every row).
 */
test('a table of 200,000 rows is drawn, each column as wide as its widest cell', () => {
  const rows = Array.from({ length: 200_000 }, (_, i) => ({ n: { type: 'literal' as const, value: String(i) } }));
  const lines = renderTable({ head: { vars: ['n'] }, results: { bindings: rows } }, { width: 80 })
    .trimEnd()
    .split('\n');
  // The header, a rule as wide as the widest cell (6), the rows (text, left-aligned) and the count line.
  assert.equal(lines.length, 200_003);
  assert.deepEqual([lines[0], lines[1], lines[2], lines[200_001]], ['?n', '------', '0', '199999']);
  assert.equal(lines[200_002], '(200000 rows)');
});
