import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import oxigraph from 'oxigraph';
import { storedValue } from '../../src/readers/spine-builder.ts';
import { CORPUS, FIXTURES, HAS_CORPUS } from '../helpers.ts';

/**
 * The readers' spine takes a timestamp as a store gives it back (canonical form). The runtimes'
 * UTC form is put in that form without a store: checked here against Oxigraph's own round trip,
 * on forms at the edges and on every timestamp of the fixtures' (and the corpus's) transcripts.
 */

const DATE_TIME = '^^<http://www.w3.org/2001/XMLSchema#dateTime>';
const store = new oxigraph.Store();
function roundTrip(term: string): string {
  store.load(`<urn:x> <urn:x> ${term} .`, { format: 'application/n-triples' });
  const [quad] = store.match(null, null, null, null);
  store.delete(quad);
  return quad.object.value;
}

function timestampsUnder(dir: string): Set<string> {
  const found = new Set<string>();
  for (const name of readdirSync(dir, { recursive: true }).map(String))
    if (name.endsWith('.jsonl'))
      for (const m of readFileSync(join(dir, name), 'utf8').matchAll(/"timestamp": ?"([^"\\]{10,40})"/g)) found.add(m[1]);
  return found;
}

function differing(values: Iterable<string>): string[] {
  const out: string[] = [];
  for (const value of values) {
    const term = `"${value}"${DATE_TIME}`;
    let expected: string;
    try {
      expected = roundTrip(term);
    } catch {
      continue; // not a dateTime the store takes: never stated as one
    }
    if (storedValue(term) !== expected) out.push(value);
  }
  return out;
}

test('a timestamp as the store gives it back, at the edges of the fast form', () => {
  const edges = [
    '2025-11-03T10:00:00.000Z',
    '2025-11-03T10:00:00Z',
    '2025-11-03T10:00:00.120Z',
    '2025-11-03T10:00:00.5Z',
    '2024-02-29T23:59:59.999999999Z',
    '2025-12-31T00:00:00.100000Z',
    '2025-11-03T10:00:00.000+00:00',
    '2025-11-03T10:00:00-00:00',
    '2025-11-03T10:00:00+02:00',
    '2025-11-03T24:00:00Z',
    '2025-11-03T10:00:00.0000000001Z',
    '2025-11-03T10:00:00',
    '0999-01-01T00:00:00Z',
    '-0001-01-01T00:00:00Z',
  ];
  assert.deepEqual(differing(edges), []);
});

test("every fixture transcript's timestamp as the store gives it back", () => {
  const all = timestampsUnder(FIXTURES);
  assert.ok(all.size > 300, `${all.size} timestamps`);
  assert.deepEqual(differing(all), []);
});

test("every corpus transcript's timestamp as the store gives it back", { skip: !HAS_CORPUS && 'no ../shared/corpus here' }, () => {
  const all = timestampsUnder(CORPUS);
  assert.ok(all.size > 10_000, `${all.size} timestamps`);
  assert.deepEqual(differing(all), []);
});
