import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utcSeconds, utcSpan } from '../src/time.ts';

test('a moment and a span as every command prints them: to the second, in UTC, a span within one day giving its day once', () => {
  assert.equal(utcSeconds('2026-12-07T11:27:54.222Z'), '2026-12-07 11:27:54 UTC');
  // weave conversation printed a segment as 2026-01-20T16:00:00Z – 2026-01-20T16:05:03Z.
  assert.equal(utcSpan('2026-01-20T16:00:00Z', '2026-01-20T16:05:03.5Z'), '2026-01-20 16:00:00 – 16:05:03 UTC');
  assert.equal(utcSpan('2026-01-20T23:59:00Z', '2026-01-21T00:01:00Z'), '2026-01-20 23:59:00 – 2026-01-21 00:01:00 UTC');
  // An offset is read as the moment it names.
  assert.equal(utcSeconds('2026-01-20T18:00:00+02:00'), '2026-01-20 16:00:00 UTC');
  // What is not a time is printed as it is.
  assert.equal(utcSeconds('?'), '?');
  assert.equal(utcSpan('?', '2026-01-20T16:00:00Z'), '? – 2026-01-20T16:00:00Z');
});
