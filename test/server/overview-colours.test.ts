import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seriesColours } from '../../src/server/http/pages/overview.ts';

test('every model series of /overview has a colour of its own, however many there are', () => {
  assert.deepEqual(seriesColours(3), ['#3056d3', '#e0a800', '#2e9e6b']);
  // Past the ten of the palette (15 models took it round again: three pairs shared a colour),
  // hues 24° apart, dark and light in turn.
  const fifteen = seriesColours(15);
  assert.deepEqual(fifteen.slice(0, 4), ['hsl(0, 65%, 40%)', 'hsl(24, 65%, 58%)', 'hsl(48, 65%, 40%)', 'hsl(72, 65%, 58%)']);
  assert.equal(fifteen[14], 'hsl(336, 65%, 40%)');
  assert.equal(new Set(fifteen).size, 15);
  assert.equal(new Set(seriesColours(40)).size, 40);
});
