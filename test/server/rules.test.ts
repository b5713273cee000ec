import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { hasDatasetClause } from '../../src/query/run.ts';
import { HttpError } from '../../src/server/errors.ts';
import { acceptedTypes } from '../../src/server/http/media.ts';
import { acceptable, negotiate, parseAccept } from '../../src/server/http/negotiate.ts';
import { parseProtocolRequest, type ProtocolRequest } from '../../src/server/http/protocol.ts';
import { multipartParts } from '../../src/server/http/routes/graph-store.ts';
import { requestUrlPlugin, splitUrl } from '../../src/server/http/url.ts';
import { literalTripleTerms, ntTerm } from '../../src/query/solutions.ts';
import { applyUsingGraphs } from '../../src/server/workers/operations/update-dataset.ts';

/** The server's rules as pure functions: negotiation, the protocol's request shapes, USING. */

const status = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof HttpError) return e.status;
    throw e;
  }
  return 0;
};

describe('content negotiation', () => {
  it('reads q-values and drops malformed members', () => {
    assert.deepEqual(parseAccept('text/csv;q=0.5, application/sparql-results+json, nonsense, */*;q=0.1'), [
      { type: 'text', subtype: 'csv', q: 0.5 },
      { type: 'application', subtype: 'sparql-results+json', q: 1 },
      { type: '*', subtype: '*', q: 0.1 },
    ]);
  });

  it('picks the highest q, the most specific range deciding, server order breaking ties', () => {
    const offers = ['application/sparql-results+json', 'application/sparql-results+xml', 'text/csv'];
    assert.equal(negotiate('text/csv;q=0.9, application/sparql-results+xml;q=0.8', offers), 'text/csv');
    // */* gives everything 0.5, but text/csv is named explicitly at 0.1: the specific range wins.
    assert.equal(
      negotiate('*/*;q=0.5, text/csv;q=0.1', ['text/csv', 'application/sparql-results+json']),
      'application/sparql-results+json',
    );
    assert.equal(negotiate('text/*', offers), 'text/csv');
    assert.equal(negotiate(undefined, offers), 'application/sparql-results+json');
    assert.equal(negotiate('image/png', offers), undefined);
    assert.equal(negotiate('text/csv;q=0', offers), undefined);
    assert.deepEqual(acceptable('application/sparql-results+xml;q=0.2, */*;q=0.1', offers), [offers[1], offers[0], offers[2]]);
  });

  it('maps loose names and the format parameter onto the formats served', () => {
    assert.deepEqual(acceptedTypes('solutions', 'application/json'), ['application/sparql-results+json']);
    assert.deepEqual(acceptedTypes('graph', 'application/json'), ['application/ld+json']);
    assert.deepEqual(acceptedTypes('graph', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')[0], 'text/turtle');
    assert.deepEqual(acceptedTypes('solutions', 'text/csv', 'tsv'), ['text/tab-separated-values']);
    // A name this kind of result cannot take, or one nobody knows, leaves the choice to Accept (never 406).
    assert.deepEqual(acceptedTypes('graph', 'application/n-triples', 'csv'), ['application/n-triples']);
    assert.deepEqual(acceptedTypes('solutions', 'text/csv', 'thrift'), ['text/csv']);
    // SPARQLWrapper's names, sent as format=, output= and results= (and twice for rdf+xml, json-ld and tsv).
    assert.deepEqual(acceptedTypes('graph', '*/*', ['xml']), ['application/rdf+xml']);
    assert.deepEqual(acceptedTypes('graph', '*/*', ['rdf+xml', 'application/rdf+xml,application/xml']), ['application/rdf+xml']);
    assert.deepEqual(acceptedTypes('graph', '*/*', ['n3']), ['text/turtle']);
    assert.deepEqual(acceptedTypes('graph', '*/*', ['json-ld', 'application/ld+json,application/x-json+ld']), ['application/ld+json']);
    assert.deepEqual(acceptedTypes('solutions', '*/*', ['xml']), ['application/sparql-results+xml']);
    assert.deepEqual(acceptedTypes('solutions', '*/*', ['tsv', 'text/tab-separated-values']), ['text/tab-separated-values']);
  });
});

describe('the request URL', () => {
  it('is split at its first ?: the query string keeps every later ?, as in a SPARQL query sent unencoded', () => {
    const { path, query } = splitUrl('/sparql?query=SELECT ?s WHERE { ?s ?p ?o }&format=csv');
    assert.equal(path, '/sparql');
    assert.equal(query, 'query=SELECT ?s WHERE { ?s ?p ?o }&format=csv');
    assert.deepEqual(
      [...new URLSearchParams(query)],
      [
        ['query', 'SELECT ?s WHERE { ?s ?p ?o }'],
        ['format', 'csv'],
      ],
    );
    assert.deepEqual(splitUrl('/describe?iri=urn:x?y'), { path: '/describe', query: 'iri=urn:x?y' });
    assert.deepEqual(splitUrl('/healthz'), { path: '/healthz', query: '' });
    assert.deepEqual(splitUrl('/store?'), { path: '/store', query: '' });
  });
});

describe('route plugins', () => {
  it('are refused by Fastify when the context is not registered before them', async () => {
    const app = Fastify();
    app.register(requestUrlPlugin);
    app.register(import('../../src/server/http/routes/describe.ts'));
    await assert.rejects(async () => app.ready(), /The dependency 'weave-context' of plugin 'weave-routes-describe' is not registered/);
  });
});

describe('SPARQL protocol request shapes', () => {
  const req = (r: Partial<ProtocolRequest>): ProtocolRequest => ({ method: 'GET', search: new URLSearchParams(), ...r });

  it('reads a GET query with its dataset', () => {
    const { operation } = parseProtocolRequest(
      req({ search: new URLSearchParams('query=ASK{}&default-graph-uri=urn:a&named-graph-uri=urn:b&named-graph-uri=urn:c') }),
    );
    assert.deepEqual(operation, { kind: 'query', query: 'ASK{}', defaultGraphs: ['urn:a'], namedGraphs: ['urn:b', 'urn:c'] });
  });

  it('reads form and direct POSTs', () => {
    const form = parseProtocolRequest(
      req({
        method: 'POST',
        contentType: 'application/x-www-form-urlencoded',
        body: Buffer.from('update=CLEAR+ALL&using-graph-uri=urn%3Ag'),
      }),
    );
    assert.deepEqual(form.operation, { kind: 'update', update: 'CLEAR ALL', usingGraphs: ['urn:g'], usingNamedGraphs: [] });
    const direct = parseProtocolRequest(
      req({ method: 'POST', contentType: 'application/sparql-query; charset=UTF-8', body: Buffer.from('SELECT * {}') }),
    );
    assert.equal(direct.operation.kind, 'query');
  });

  it('answers a bare GET with the service description', () => {
    assert.deepEqual(parseProtocolRequest(req({})).operation, { kind: 'description' });
  });

  it('refuses what the protocol refuses, with the right status', () => {
    assert.equal(
      status(() => parseProtocolRequest(req({ method: 'PUT' }))),
      405,
    );
    assert.equal(
      status(() => parseProtocolRequest(req({ search: new URLSearchParams('query=ASK{}&query=ASK{}') }))),
      400,
    );
    assert.equal(
      status(() => parseProtocolRequest(req({ search: new URLSearchParams('update=CLEAR ALL') }))),
      400,
    );
    assert.equal(
      status(() => parseProtocolRequest(req({ method: 'POST', body: Buffer.from('query=ASK{}') }))),
      415,
    );
    assert.equal(
      status(() => parseProtocolRequest(req({ method: 'POST', contentType: 'text/plain', body: Buffer.from('ASK {}') }))),
      415,
    );
    assert.equal(
      status(() =>
        parseProtocolRequest(
          req({ method: 'POST', contentType: 'application/sparql-query; charset=UTF-16', body: Buffer.from('ASK {}', 'utf16le') }),
        ),
      ),
      415,
    );
    assert.equal(
      status(() =>
        parseProtocolRequest(req({ method: 'POST', contentType: 'application/sparql-query', body: Buffer.from([0x41, 0xff, 0xfe]) })),
      ),
      400,
    );
    assert.equal(
      status(() =>
        parseProtocolRequest(
          req({ method: 'POST', contentType: 'application/x-www-form-urlencoded', body: Buffer.from('query=ASK{}&update=CLEAR ALL') }),
        ),
      ),
      400,
    );
    assert.equal(
      status(() => parseProtocolRequest(req({ search: new URLSearchParams('query=ASK{}&default-graph-uri=relative') }))),
      400,
    );
  });
});

describe('using-graph-uri written into the update', () => {
  it('adds USING before the WHERE of each DELETE/INSERT, and leaves DATA operations alone', () => {
    const update =
      'CLEAR ALL ; INSERT DATA { <urn:s> <urn:p> "where" } ;\nINSERT { GRAPH <urn:out> { ?s a <urn:C> } } WHERE { ?s a <urn:D> }';
    assert.equal(
      applyUsingGraphs(update, ['urn:g1'], ['urn:g2']),
      'CLEAR ALL ; INSERT DATA { <urn:s> <urn:p> "where" } ;\nINSERT { GRAPH <urn:out> { ?s a <urn:C> } } USING <urn:g1> USING NAMED <urn:g2> WHERE { ?s a <urn:D> }',
    );
  });

  it('turns DELETE WHERE into its long form so it can take USING', () => {
    assert.equal(applyUsingGraphs('DELETE WHERE { ?s ?p ?o }', ['urn:g'], []), 'DELETE { ?s ?p ?o } USING <urn:g> WHERE { ?s ?p ?o }');
  });

  it('refuses USING or WITH in the text together with the parameters', () => {
    assert.equal(
      status(() => applyUsingGraphs('WITH <urn:x> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }', [], ['urn:g'])),
      400,
    );
    // A prefixed name or string that spells a keyword is not one.
    assert.equal(
      applyUsingGraphs('PREFIX with: <urn:w#> INSERT { ?s with:p "USING" } WHERE { ?s ?p ?o }', ['urn:g'], []),
      'PREFIX with: <urn:w#> INSERT { ?s with:p "USING" } USING <urn:g> WHERE { ?s ?p ?o }',
    );
  });

  it('knows when a query names its own dataset', () => {
    assert.equal(hasDatasetClause('SELECT * FROM <urn:g> { ?s ?p ?o }'), true);
    assert.equal(hasDatasetClause('SELECT * { ?s ?p "FROM <urn:g>" } # FROM <x>'), false);
  });
});

describe('triple terms for clients that predate RDF 1.2', () => {
  it('writes a triple term as its N-Triples text', () => {
    const term = {
      type: 'triple' as const,
      value: {
        subject: { type: 'uri' as const, value: 'urn:s' },
        predicate: { type: 'uri' as const, value: 'urn:p' },
        object: { type: 'literal' as const, value: 'say "hi"\n', 'xml:lang': 'en' },
      },
    };
    assert.equal(ntTerm(term, '1.2'), '<<( <urn:s> <urn:p> "say \\"hi\\"\\n"@en )>>');
    const results = {
      head: { vars: ['t', 'x'] },
      results: {
        bindings: [{ t: term, x: { type: 'literal' as const, value: '1', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } }],
      },
    };
    const flat = literalTripleTerms(results);
    assert.deepEqual(flat.results!.bindings[0].t, { type: 'literal', value: '<<( <urn:s> <urn:p> "say \\"hi\\"\\n"@en )>>' });
    assert.equal(flat.results!.bindings[0].x.value, '1');
  });
});

describe('multipart Graph Store payloads', () => {
  it('splits the parts with their media types', () => {
    const body =
      '--b1\r\nContent-Disposition: form-data; name="a"; filename="a.ttl"\r\nContent-Type: text/turtle\r\n\r\n<urn:a> <urn:p> 1 .\r\n--b1\r\nContent-Type: application/n-triples\r\n\r\n<urn:b> <urn:p> 2 .\r\n--b1--\r\n';
    assert.deepEqual(multipartParts('multipart/form-data; boundary=b1', Buffer.from(body)), [
      { text: '<urn:a> <urn:p> 1 .', format: 'text/turtle' },
      { text: '<urn:b> <urn:p> 2 .', format: 'application/n-triples' },
    ]);
  });
});
