import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readLine } from '../../src/dialect/claude-code/read.ts';

/**
 * Whatever a line holds, what is said about it quotes none of it (issue 15, defect 4): every
 * message readLine gives is one of a few fixed forms, with at most a position in it.
 */

const FORMS = [
  /^Unexpected token: not valid JSON$/,
  /^not valid JSON$/,
  /^Unexpected end of JSON input$/,
  /^[A-Z][a-z-]*( [a-zA-Z',{}[\]:-]+)* (in JSON )?at position \d+( \(line \d+ column \d+\))?$/,
  /^expected a JSON object, found (an array|null|a number|a string|a boolean)$/,
  /^the record has no string "type"$/,
  /^nested more than \d+ levels deep; kept as text, not read$/,
];
const SEED = Number(process.env.WEAVE_FUZZ_SEED ?? 15);

test('a malformed line is described in one of a few fixed forms, whatever its bytes (fast-check)', () => {
  const line = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    // Almost-JSON: a real record with a character changed, dropped or added.
    fc.tuple(fc.jsonValue(), fc.nat(), fc.string({ unit: 'binary', maxLength: 3 })).map(([v, at, s]) => {
      const text = JSON.stringify({ type: 'user', value: v });
      const i = at % (text.length + 1);
      return text.slice(0, i) + s + text.slice(i + (at % 2));
    }),
  );
  fc.assert(
    fc.property(line, (text) => {
      const result = readLine({ lineNo: 1, offset: 0, byteLength: Buffer.byteLength(text), text, terminated: true });
      if (result.kind !== 'malformed') return;
      assert.ok(
        FORMS.some((f) => f.test(result.error)),
        `not a fixed form: ${JSON.stringify(result.error)}`,
      );
    }),
    { seed: SEED, numRuns: 2000 },
  );
});
