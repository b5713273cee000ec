import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Parser } from 'n3';
import type { Literal } from '@rdfjs/types';
import { dateTime, dec, int, num, unsliced } from '../../src/rdf/terms.ts';
import { wellFormed } from '../../src/validate/components.ts';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** The literal a term stands for, read back by an N-Triples parser. */
function literal(term: string): Literal {
  return new Parser({ format: 'application/n-triples' }).parse(`<urn:s> <urn:p> ${term} .`)[0].object as Literal;
}

test('numbers keep an exact lexical form and a datatype that states them (1e400 is INF, not "Infinity"^^xsd:integer)', () => {
  const cases: [string, string, string][] = [
    [int(42), '42', 'integer'],
    [int(-0), '0', 'integer'],
    [int(2n ** 70n), '1180591620717411303424', 'integer'],
    [int(Number.MAX_SAFE_INTEGER), '9007199254740991', 'integer'],
    // Past 2^53 a JSON integer is already rounded by the parse: it is the double it became.
    [int(JSON.parse('12345678901234567890')), '12345678901234567000', 'double'],
    [int(JSON.parse('1e21')), '1e+21', 'double'],
    [int(JSON.parse('1e400')), 'INF', 'double'],
    [int(JSON.parse('-1e400')), '-INF', 'double'],
    // A count that is not whole is kept as found, never truncated (1.5 tokens was stored as 1).
    [int(1.5), '1.5', 'decimal'],
    [num(1.5), '1.5', 'decimal'],
    [num(1e-7), '1e-7', 'double'],
    [num(NaN), 'NaN', 'double'],
    [num(JSON.parse('1e400')), 'INF', 'double'],
    [dec(1), '1.0', 'decimal'],
    [dec(0.25), '0.25', 'decimal'],
    [dec(Infinity), 'INF', 'double'],
    [dec(2 ** 60), '1152921504606847000', 'double'],
  ];
  for (const [term, text, datatype] of cases) {
    const l = literal(term);
    assert.deepEqual([l.value, l.datatype.value], [text, XSD + datatype], term);
    assert.ok(wellFormed(l), `${term} is a valid ${datatype}`);
  }
});

test('a timestamp is an xsd:dateTime only when XML Schema would read it as one; otherwise it is kept as a string', () => {
  const typed = (v: string) => literal(dateTime(v)).datatype.value;
  for (const v of [
    '2026-11-02T09:00:00.000Z',
    '2024-02-29T23:59:59Z',
    '2026-01-01T24:00:00',
    '2026-01-01T00:00:00+14:00',
    '12026-01-01T00:00:00-03:30',
  ])
    assert.equal(typed(v), `${XSD}dateTime`, v);
  for (const v of [
    '2026-13-01T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T25:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:00+15:00',
    '2026-01-01 00:00:00Z',
    '2026-01-01',
    'yesterday',
    '',
  ])
    assert.equal(typed(v), `${XSD}string`, v);
  for (const v of ['2026-11-02T09:00:00.000Z', '2026-13-01T00:00:00Z']) assert.ok(wellFormed(literal(dateTime(v))));
});

test('a text kept of its own is the same text, whatever it holds', () => {
  const line = `<urn:soul:local:Weave/Turn/${'a'.repeat(40)}> "caf\u00e9 \ud83d\ude00 \ud800 lone \\" quote\\n" .`;
  for (const text of ['short', line.slice(1, line.indexOf('>')), line.slice(line.indexOf('"')), '\udc00\ud800 reversed surrogates', ''])
    assert.equal(unsliced(text), text);
});
