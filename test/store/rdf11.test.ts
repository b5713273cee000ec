import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import { graphPayload, graphQuads, maskMarkup, reifiedText } from '../../src/store/remote/rdf11.ts';

/** What an external store is sent: graph names dropped, triple terms in RDF 1.1 form, markup in literals escaped. */

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const G = 'urn:g:1';
const line = (s: string) => `${s} <${G}> .`;

describe('graphPayload', () => {
  it('drops the graph name of plain lines', () => {
    assert.equal(
      graphPayload(`${line('<urn:s> <urn:p> "x"')}\n${line('<urn:s> <urn:q> <urn:o>')}\n`, G, false),
      '<urn:s> <urn:p> "x" .\n<urn:s> <urn:q> <urn:o> .\n',
    );
    assert.equal(graphPayload('<urn:s> <urn:p> "x" .\n', null, false), '<urn:s> <urn:p> "x" .\n');
  });

  it('writes rdf:reifies <<( s p o )>> as rdf:Statement on the same reifier, its annotations untouched', () => {
    const text = `${line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> "o" )>>`)}\n${line('<urn:r> <urn:evidence> <urn:exact>')}\n`;
    assert.deepEqual(
      graphPayload(text, G, false).split('\n').sort(),
      [
        `<urn:r> <${RDF}type> <${RDF}Statement> .`,
        `<urn:r> <${RDF}subject> <urn:s> .`,
        `<urn:r> <${RDF}predicate> <urn:p> .`,
        `<urn:r> <${RDF}object> "o" .`,
        '<urn:r> <urn:evidence> <urn:exact> .',
        '',
      ].sort(),
    );
  });

  it('gives a triple term under another predicate a blank node of its own', () => {
    const out = graphPayload(`${line('<urn:a> <urn:claims> <<( <urn:s> <urn:p> <urn:o> )>>')}\n`, G, false)
      .trim()
      .split('\n');
    const [statement] = out.filter((l) => l.includes(`<${RDF}type>`));
    const node = statement.split(' ')[0];
    assert.match(node, /^_:\w+$/);
    assert.deepEqual(
      out.sort(),
      [
        `${node} <${RDF}object> <urn:o> .`,
        `${node} <${RDF}predicate> <urn:p> .`,
        `${node} <${RDF}subject> <urn:s> .`,
        `${node} <${RDF}type> <${RDF}Statement> .`,
        `<urn:a> <urn:claims> ${node} .`,
      ].sort(),
    );
  });

  it('keeps triple terms for a store that takes RDF 1.2', () => {
    assert.equal(
      graphPayload(`${line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> "o" )>>`)}\n`, G, true),
      `<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> "o" )>> .\n`,
    );
  });

  it('escapes < in literals only, and the literal reads back the same', () => {
    const text = line('<urn:s> <urn:text> "<!DOCTYPE html>\\n<html lang=\'en\'>"@en');
    const sent = graphPayload(`${text}\n`, G, false);
    assert.equal(sent, '<urn:s> <urn:text> "\\u003C!DOCTYPE html>\\n\\u003Chtml lang=\'en\'>"@en .\n');
    const [before] = oxigraph.parse(text, { format: 'application/n-quads' });
    const [after] = oxigraph.parse(sent, { format: 'application/n-triples' });
    assert.equal(after.object.value, before.object.value);
    assert.equal(maskMarkup('<urn:s> <urn:p> <urn:o> .'), '<urn:s> <urn:p> <urn:o> .');
  });
});

describe('graphQuads', () => {
  const quads = (parts: Buffer[]) => Buffer.concat(parts).toString('utf8');

  it('passes a graph without triple terms on as its own bytes, ending its last line', () => {
    const bytes = Buffer.from(`${line('<urn:s> <urn:p> "x"')}\n${line('<urn:s> <urn:q> <urn:o>')}`);
    const parts = graphQuads(bytes, G, false, 'b');
    assert.equal(parts[0].buffer, bytes.buffer, 'not copied');
    assert.equal(quads(parts), `${bytes}\n`);
    assert.deepEqual(graphQuads(Buffer.alloc(0), G, false, 'b'), []);
  });

  it('converts every line with a triple term, wherever it stands, in one graph of blank nodes', () => {
    const lines = [
      line('<urn:a> <urn:p> "first"'),
      line(`<urn:r1> <${RDF}reifies> <<( <urn:s> <urn:p> "o" )>>`),
      line('<urn:a> <urn:p> "between: <<( in a literal"'),
      line('<urn:a> <urn:claims> <<( <urn:s> <urn:p> <<( <urn:x> <urn:y> <urn:z> )>> )>>'),
      line('<urn:a> <urn:p> "last"'),
    ];
    const out = quads(graphQuads(Buffer.from(`${lines.join('\n')}\n`), G, false, 'g7t')).split('\n');
    assert.equal(out.pop(), '');
    // The four lines of rdf:reifies on r1, two blank nodes of four lines each for the nested terms, and the three plain lines.
    assert.equal(out.length, 3 + 4 + 8 + 1);
    assert.ok(out.every((l) => l.endsWith(` <${G}> .`)));
    assert.ok(out.includes(line('<urn:a> <urn:p> "between: <<( in a literal"')));
    assert.ok(out.includes(line(`<urn:r1> <${RDF}object> "o"`)));
    const nodes = new Set(out.flatMap((l) => l.match(/_:\w+/g) ?? []));
    assert.deepEqual([...nodes].sort(), ['_:g7t1', '_:g7t2']);
    // What Oxigraph reads from it is what the per-line form said.
    const store = new oxigraph.Store();
    store.load(out.join('\n'), { format: 'application/n-quads' });
    assert.equal(store.size, out.length);
  });
});

describe('reifiedText', () => {
  /** What a line's RDF 1.1 form must hold, by Oxigraph's parse of the line itself. */
  const statement = (text: string) => {
    const [q] = oxigraph.parse(text, { format: 'application/n-quads' });
    const t = q.object as oxigraph.Quad;
    const g = oxigraph.namedNode(G);
    return [
      oxigraph.quad(q.subject, oxigraph.namedNode(`${RDF}type`), oxigraph.namedNode(`${RDF}Statement`), g),
      oxigraph.quad(q.subject, oxigraph.namedNode(`${RDF}subject`), t.subject, g),
      oxigraph.quad(q.subject, oxigraph.namedNode(`${RDF}predicate`), t.predicate, g),
      oxigraph.quad(q.subject, oxigraph.namedNode(`${RDF}object`), t.object, g),
    ]
      .map(String)
      .sort();
  };
  const converted = (text: string) =>
    oxigraph
      .parse(quadsOf(graphQuads(Buffer.from(`${text}\n`), G, false, 'b')), { format: 'application/n-quads' })
      .map(String)
      .sort();
  const quadsOf = (parts: Buffer[]) => Buffer.concat(parts).toString('utf8');

  it('reads rdf:reifies lines as text, objects of every kind, the same quads a parse gives', () => {
    for (const text of [
      line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> <urn:o> )>>`),
      line(`_:r7 <${RDF}reifies> <<( <urn:s> <urn:p> "human/authored" )>>`),
      line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> "a > <b> )>> <<x \\"q\\" \\n"@en-GB )>>`),
      line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> "12"^^<http://www.w3.org/2001/XMLSchema#integer> )>>`),
      line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> _:o )>>`),
    ]) {
      assert.ok(reifiedText(text, ` <${G}> .`), text);
      assert.deepEqual(converted(text), statement(text), text);
    }
  });

  it('leaves to the parse what it cannot read as text: nested terms, blank subjects, other predicates, other graphs', () => {
    const suffix = ` <${G}> .`;
    for (const text of [
      line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> <<( <urn:x> <urn:y> <urn:z> )>> )>>`),
      line(`<urn:r> <${RDF}reifies> <<( _:s <urn:p> <urn:o> )>>`),
      line('<urn:r> <urn:claims> <<( <urn:s> <urn:p> <urn:o> )>>'),
      `<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> <urn:o> )>> <urn:g:2> .`,
      line(`<urn:r> <urn:p> "<${RDF}reifies> <<( <urn:s> <urn:p> <urn:o> )>>"`),
    ])
      assert.equal(reifiedText(text, suffix), undefined, text);
    // The nested one still comes out whole, by the parse.
    const nested = line(`<urn:r> <${RDF}reifies> <<( <urn:s> <urn:p> <<( <urn:x> <urn:y> <urn:z> )>> )>>`);
    assert.equal(converted(nested).length, 8);
  });
});
