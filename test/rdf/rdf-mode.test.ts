import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Parser } from 'n3';
import { NQuadsSyntaxError, parseQuadLine, tripleTermParts } from '../../src/rdf/nquads.ts';
import { mapQuadLine, starTerm, tripleTermNode } from '../../src/rdf/rdf-mode.ts';
import { iri, nquad, str, tripleTerm, typed } from '../../src/rdf/terms.ts';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const G = '<urn:g>';

test('a line splits into the exact term texts the emitter wrote, whatever the literal holds', () => {
  const text = fc.string({ unit: 'binary', maxLength: 40 });
  fc.assert(
    fc.property(text, text, fc.webUrl(), (a, b, dt) => {
      const s = iri(`urn:s/${encodeURIComponent(a)}`);
      const o = typed(b, dt);
      const reified = tripleTerm({ s, p: iri('urn:p'), o: str(a) });
      for (const [obj, graph] of [
        [o, iri('urn:g')],
        [reified, iri('urn:g')],
        [str(b), undefined],
      ] as const) {
        const line = graph ? nquad({ s, p: iri('urn:p'), o: obj }, graph) : `${s} <urn:p> ${obj} .\n`;
        assert.deepEqual(parseQuadLine(line.trimEnd()), { s, p: '<urn:p>', o: obj, g: graph });
      }
    }),
  );
});

test('triple terms split into their parts, nested ones kept whole', () => {
  assert.deepEqual(tripleTermParts('<<( <urn:a> <urn:b> <<( <urn:c> <urn:d> "e" )>> )>>'), [
    '<urn:a>',
    '<urn:b>',
    '<<( <urn:c> <urn:d> "e" )>>',
  ]);
  assert.deepEqual(parseQuadLine('_:b1 <urn:p> "x"@en-GB .'), { s: '_:b1', p: '<urn:p>', o: '"x"@en-GB', g: undefined });
  assert.equal(parseQuadLine('   '), undefined);
  assert.equal(parseQuadLine('# a comment'), undefined);
});

test('syntax errors name the column, never the text of a literal', () => {
  for (const line of [
    '<urn:s> <urn:p> "sk-secret-value',
    '<urn:s> <urn:p> "sk-secret-value" <urn:g>',
    '<urn:s> "sk-secret-value" .',
    '<urn:s> <urn:p> <<( <urn:a> "sk-secret-value" )>> .',
  ]) {
    assert.throws(
      () => parseQuadLine(line),
      (e: Error) => e instanceof NQuadsSyntaxError && !e.message.includes('sk-secret') && /column \d+|terms/.test(e.message),
    );
  }
});

test('--rdf 1.1: a reifier becomes rdf:Statement with subject, predicate and object, in the same graph', () => {
  const line = `<urn:claim> <${RDF}reifies> <<( <urn:turn> <urn:exhibits> "human/authored" )>> ${G} .`;
  assert.equal(
    mapQuadLine(line, '1.1'),
    [
      `<urn:claim> <${RDF}type> <${RDF}Statement> ${G} .`,
      `<urn:claim> <${RDF}subject> <urn:turn> ${G} .`,
      `<urn:claim> <${RDF}predicate> <urn:exhibits> ${G} .`,
      `<urn:claim> <${RDF}object> "human/authored" ${G} .`,
      '',
    ].join('\n'),
  );
  // Real RDF 1.1: N3 reads it back with no triple term left.
  const quads = new Parser({ format: 'N-Quads' }).parse(mapQuadLine(line, '1.1'));
  assert.equal(quads.length, 4);
  assert.ok(quads.every((q) => (q.object.termType as string) !== 'Quad' && q.graph.value === 'urn:g'));
});

test('--rdf 1.1: a triple term elsewhere, or nested, gets a blank node named from the triple', () => {
  const inner = '<<( <urn:c> <urn:d> "e" )>>';
  const outer = `<<( <urn:a> <urn:b> ${inner} )>>`;
  const lines = mapQuadLine(`<urn:x> <urn:says> ${outer} .`, '1.1').trimEnd().split('\n');
  const [o, i] = [tripleTermNode(outer), tripleTermNode(inner)];
  assert.match(o, /^_:tt[0-9a-f]{24}$/);
  assert.notEqual(o, i);
  assert.deepEqual(lines, [
    `<urn:x> <urn:says> ${o} .`,
    `${o} <${RDF}type> <${RDF}Statement> .`,
    `${o} <${RDF}subject> <urn:a> .`,
    `${o} <${RDF}predicate> <urn:b> .`,
    `${o} <${RDF}object> ${i} .`,
    `${i} <${RDF}type> <${RDF}Statement> .`,
    `${i} <${RDF}subject> <urn:c> .`,
    `${i} <${RDF}predicate> <urn:d> .`,
    `${i} <${RDF}object> "e" .`,
  ]);
  // The same triple gets the same node wherever it occurs.
  assert.equal(tripleTermNode(inner), i);
});

test('--rdf star: << s p o >> where RDF 1.2 writes <<( s p o )>>, nested too; other lines untouched', () => {
  const line = `<urn:claim> <${RDF}reifies> <<( <urn:a> <urn:b> <<( <urn:c> <urn:d> "<<( not a term )>>" )>> )>> ${G} .`;
  assert.equal(
    mapQuadLine(line, 'star'),
    `<urn:claim> <${RDF}reifies> << <urn:a> <urn:b> << <urn:c> <urn:d> "<<( not a term )>>" >> >> ${G} .\n`,
  );
  assert.equal(starTerm('"plain"'), '"plain"');
  // A literal that merely holds the characters "<<(" is the same in every mode.
  const literal = `<urn:s> <urn:p> "a <<( b )>> c" ${G} .\n`;
  for (const mode of ['1.2', '1.1', 'star'] as const) assert.equal(mapQuadLine(literal, mode), literal);
});
