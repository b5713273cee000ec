import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import { startTestServer, type TestServer } from './helpers.ts';

/**
 * A Graph Store read follows the format table as a CONSTRUCT does: RDF/XML carries no RDF 1.2
 * triple term and no character XML 1.0 cannot carry, so such a graph is sent in the next format
 * the client accepts, or refused with 406; Oxigraph wrote them into it, an RDF/XML with
 * `rdf:parseType="Triple"` that RDF 1.1 parsers (rapper, rdflib) refuse, and an ill-formed one.
 */

const TOKEN = 'graph-store-read-token';
const ESCAPED = 'urn:gsr:escaped';
const CLAIM = 'urn:gsr:claim';
let server: TestServer;

const read = (graph: string, accept: string, query = '') =>
  fetch(`${server.base}/store?graph=${encodeURIComponent(graph)}${query}`, { headers: { accept } });

before(async () => {
  server = await startTestServer({ allowUpdate: true, token: TOKEN }, null);
  for (const [graph, body] of [
    [ESCAPED, '<urn:gsr:s> <urn:gsr:says> "red \\u001B[31m text" .\n'],
    [CLAIM, '<urn:gsr:r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <urn:gsr:s> <urn:gsr:p> <urn:gsr:o> )>> .\n'],
  ]) {
    const put = await fetch(`${server.base}/store?graph=${encodeURIComponent(graph)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/n-triples' },
      body,
    });
    assert.equal(put.status, 201);
  }
});
after(() => server?.stop());

describe('Graph Store reads in RDF/XML', () => {
  it('a graph holding a character XML 1.0 cannot carry: the next accepted format, else 406', async () => {
    const refused = await read(ESCAPED, 'application/rdf+xml');
    assert.equal(refused.status, 406);
    assert.equal(
      await refused.text(),
      '406 Not Acceptable: the result cannot be sent as application/rdf+xml: it holds 1 statement with characters XML 1.0 cannot carry, so it cannot be RDF/XML; accept text/turtle, application/n-triples or application/n-quads\n',
    );
    const next = await read(ESCAPED, 'application/rdf+xml, application/n-triples;q=0.5');
    assert.equal(next.status, 200);
    assert.equal(next.headers.get('content-type'), 'application/n-triples; charset=utf-8');
    assert.equal(await next.text(), '<urn:gsr:s> <urn:gsr:says> "red \\u001B[31m text" .\n');
  });

  it('a graph holding a triple term: 406 under --rdf 1.2, as the query endpoint; RDF 1.1 reification under rdf=1.1', async () => {
    const refused = await read(CLAIM, 'application/rdf+xml');
    assert.equal(refused.status, 406);
    assert.equal(
      await refused.text(),
      '406 Not Acceptable: the result cannot be sent as application/rdf+xml: it holds RDF 1.2 triple terms (ask for rdf=1.1); accept text/turtle, application/n-triples or application/n-quads\n',
    );
    const turtle = await read(CLAIM, 'application/rdf+xml, text/turtle;q=0.5');
    assert.equal(turtle.status, 200);
    assert.equal(turtle.headers.get('content-type'), 'text/turtle; charset=utf-8');

    const reified = await read(CLAIM, 'application/rdf+xml', '&rdf=1.1');
    assert.equal(reified.status, 200);
    assert.equal(reified.headers.get('content-type'), 'application/rdf+xml; charset=utf-8');
    const parsed = new oxigraph.Store();
    parsed.load(await reified.text(), { format: 'application/rdf+xml' });
    const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
    assert.deepEqual(
      parsed
        .match(null, null, null, null)
        .map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`)
        .sort(),
      [
        `urn:gsr:r ${RDF}object urn:gsr:o`,
        `urn:gsr:r ${RDF}predicate urn:gsr:p`,
        `urn:gsr:r ${RDF}subject urn:gsr:s`,
        `urn:gsr:r ${RDF}type ${RDF}Statement`,
      ],
    );
  });
});
