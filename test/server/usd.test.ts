import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usd } from '../../src/server/http/pages/html.ts';

// The fixture sessions cost fractions of a cent: a page must never show one as "$0.0000".
test('a page writes a cost in cents from a dollar up, four places below, and never $0.0000 for a cost', () => {
  assert.deepEqual([0, 0.00003, 0.00005, 0.000081, 0.0123, 0.99994, 1, 12.345].map(usd), [
    '$0',
    '<$0.0001',
    '$0.0001',
    '$0.0001',
    '$0.0123',
    '$0.9999',
    '$1.00',
    '$12.35',
  ]);
});
