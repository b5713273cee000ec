import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { documentUrl, startEndpoint, startRawEndpoint, type TestEndpoint } from '../federation/endpoint.ts';
import { serviceDescription } from '../../src/server/http/descriptions.ts';
import { EXPECTED_TURNS, REPO, startTestServer, TURN, type TestServer } from './helpers.ts';

/**
 * The endpoint as the wider world uses it: federated queries (SERVICE and source=) against a
 * Soul endpoint and a Pool document, within the allow-list and the timeout; triple terms in the
 * form the client reads (?rdf=); and the protocol details clients of the Debian era depend on.
 */

const FEDERATION = join(REPO, 'fixtures', 'federation');
const RAVEL = 'https://repolex.ai/ontology/ravel/';
const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
/** The statements of session 4444's own graph (the server fixtures' second session). */
const STORED_44 = 157;
let server: TestServer;
let soul: TestEndpoint;
let slow: TestEndpoint;
/** An allowed endpoint whose server has gone: its port is closed. */
let gone: string;
/** An allowed endpoint that starts its answer, then closes the connection. */
let cut: { url: string; close(): void };
/** An allowed endpoint that binds a triple term nested 1000 deep, past what Oxigraph's WebAssembly can parse. */
let deep: { url: string; close(): void };
/** An allowed endpoint whose SPARQL results stop short, the response ending cleanly. */
let short: { url: string; close(): void };
/** An allowed endpoint down for maintenance: every query gets 503. */
let down: { url: string; close(): void };

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.base}${path}`, { headers });
const query = (q: string, params = '', accept = 'application/sparql-results+json') =>
  get(`/sparql?query=${encodeURIComponent(q)}${params}`, { accept });

before(async () => {
  soul = await startEndpoint(join(FEDERATION, 'soul.trig'), 'application/trig', {
    documents: { '/pool.ttl': { file: join(FEDERATION, 'pool.ttl'), type: 'text/turtle' } },
  });
  slow = await startEndpoint(join(FEDERATION, 'soul.trig'), 'application/trig', { delayMs: 20_000 });
  const closed = await startEndpoint(join(FEDERATION, 'soul.trig'), 'application/trig');
  gone = closed.url;
  await closed.close();
  cut = await startRawEndpoint((res) => {
    res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
    res.write('{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"urn:a"}},');
    setTimeout(() => res.socket?.destroy(), 50);
  });
  let nested: unknown = { type: 'uri', value: 'urn:b' };
  for (let i = 0; i < 1000; i++)
    nested = {
      type: 'triple',
      value: { subject: { type: 'uri', value: 'urn:a' }, predicate: { type: 'uri', value: 'urn:p' }, object: nested },
    };
  deep = await startRawEndpoint((res) => {
    res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
    res.end(JSON.stringify({ head: { vars: ['o'] }, results: { bindings: [{ o: nested }] } }));
  });
  short = await startRawEndpoint((res) => {
    res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
    res.end('{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"urn:a"}},{"s":{"ty');
  });
  down = await startRawEndpoint((res) => {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('down for maintenance');
  });
  server = await startTestServer({
    serviceAllow: [soul.url, documentUrl(soul, '/pool.ttl'), slow.url, gone, cut.url, deep.url, short.url, down.url],
  });
});
after(async () => {
  await server?.stop();
  cut?.close();
  deep?.close();
  short?.close();
  down?.close();
  await soul?.close();
  await slow?.close();
});

describe('federated queries at the endpoint', () => {
  it('SERVICE to an allowed endpoint, joined by IRI through the alignment', async () => {
    const res = await query(
      `PREFIX ravel: <${RAVEL}> SELECT ?turn ?memory WHERE { ?turn owl:sameAs ?a . SERVICE <${soul.url}> { ?memory ravel:fromTurn ?a } } ORDER BY ?turn`,
    );
    assert.equal(res.status, 200, await res.clone().text());
    const rows = ((await res.json()) as { results: { bindings: Record<string, { value: string }>[] } }).results.bindings.map((b) => [
      b.turn.value,
      b.memory.value,
    ]);
    // soul.trig: each session's memory rests on its first prompt and its last answer (3333…: turns 1 and 4, 4444…: 1 and 2).
    assert.deepEqual(rows, [
      [TURN('5e55e55e-0000-4000-8000-000000000001'), 'https://repolex.ai/ravel/Memory/m5e947117f3a0b596'],
      [TURN('5e55e55e-0000-4000-8000-000000000004'), 'https://repolex.ai/ravel/Memory/m5e947117f3a0b596'],
      [TURN('7e55e55e-0000-4000-8000-000000000001'), 'https://repolex.ai/ravel/Memory/ma787db49647d080d'],
      [TURN('7e55e55e-0000-4000-8000-000000000002'), 'https://repolex.ai/ravel/Memory/ma787db49647d080d'],
    ]);
  });

  it('source= an allowed document on the web, in any result format', async () => {
    const q =
      'PREFIX copia: <https://repolex.ai/ontology/kit/copia/> SELECT ?turn ?moment WHERE { ?turn owl:sameAs ?a . ?moment prov:wasDerivedFrom ?a }';
    const res = await query(q, `&source=${encodeURIComponent(documentUrl(soul, '/pool.ttl'))}`, 'text/csv');
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(
      await res.text(),
      `turn,moment\r\n${TURN('5e55e55e-0000-4000-8000-000000000004')},https://repolex.ai/pool/Moment/m-0001\r\n`,
    );
  });

  it('an endpoint off the allow-list gets a clear 400 and is never contacted', async () => {
    const other = await startEndpoint(join(FEDERATION, 'soul.trig'), 'application/trig');
    try {
      const res = await query(`SELECT * WHERE { SERVICE <${other.url}> { ?s ?p ?o } }`);
      assert.equal(res.status, 400);
      assert.match(
        await res.text(),
        new RegExp(`^400 Bad Request: SERVICE <${other.url.replace(/[./]/g, '\\$&')}> is not on the allow-list \\(`),
      );
      assert.equal((await query('SELECT * WHERE { ?s ?p ?o } LIMIT 1', `&source=${encodeURIComponent(other.url)}`)).status, 400);
      assert.equal((await query('SELECT * WHERE { ?s ?p ?o } LIMIT 1', `&source=${encodeURIComponent('/etc/passwd')}`)).status, 400);
      assert.equal(other.requests, 0);
    } finally {
      await other.close();
    }
  });

  it('an allowed endpoint that does not answer: 502 naming it and why, not a 400 "fetch failed"; SERVICE SILENT passes it by', async () => {
    const res = await query(`SELECT * WHERE { SERVICE <${gone}> { ?s ?p ?o } }`);
    assert.equal(res.status, 502);
    assert.equal(await res.text(), `502 Bad Gateway: could not reach ${gone}: connect ECONNREFUSED ${new URL(gone).host}\n`);
    const silent = await query(`SELECT ?s WHERE { SERVICE SILENT <${gone}> { ?s ?p ?o } }`);
    assert.equal(silent.status, 200);
    assert.deepEqual(await silent.json(), { head: { vars: ['s'] }, results: { bindings: [{}] } });
  });

  it('an allowed endpoint that answers a query with an HTTP error: 502 naming it and the status, not a 400 as if the query were wrong; SERVICE SILENT passes it by', async () => {
    const res = await query(`SELECT * WHERE { SERVICE <${down.url}> { ?s ?p ?o } }`);
    assert.equal(res.status, 502);
    assert.equal(await res.text(), `502 Bad Gateway: ${down.url} answered HTTP 503 Service Unavailable\n`);
    const silent = await query(`SELECT ?s WHERE { SERVICE SILENT <${down.url}> { ?s ?p ?o } }`);
    assert.deepEqual(await silent.json(), { head: { vars: ['s'] }, results: { bindings: [{}] } });
  });

  it('a federated query keeps the server timeout: an endpoint not answered by a quarter of it before its end is cut, 502 naming it (SERVICE SILENT answers without it), and the same copy answers on', async () => {
    // Comunica loaded (a second or more on a busy machine, within the first federated query's time).
    assert.equal((await query(`ASK { SERVICE <${soul.url}> { ?s ?p ?o } }`)).status, 200);
    const restarts = server.ctx.pool.stats.restarts;
    // 3 s: the endpoint is cut at 2.25 s.
    let started = performance.now();
    const res = await query(`SELECT * WHERE { SERVICE <${slow.url}> { ?s ?p ?o } }`, '&timeout=3');
    assert.equal(await res.text(), `502 Bad Gateway: ${slow.url} did not answer within the query's timeout of 3 s (--timeout)\n`);
    assert.ok(performance.now() - started < 3000);
    started = performance.now();
    const silent = await query(`SELECT (COUNT(*) AS ?n) WHERE { SERVICE SILENT <${slow.url}> { ?s ?p ?o } }`, '&timeout=3');
    assert.deepEqual(await silent.json(), {
      head: { vars: ['n'] },
      results: { bindings: [{ n: { type: 'literal', value: '1', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } }] },
    });
    assert.ok(performance.now() - started < 3000);
    assert.equal((await query('ASK { ?s ?p ?o }')).status, 200);
    assert.equal(server.ctx.pool.stats.restarts, restarts);
  });

  it('an allowed endpoint that cuts its answer off: 502 naming it, and the same copy of the store answers on', async () => {
    // undici's "terminated" TypeError was thrown where nobody caught it: the worker ended (500
    // "the query worker crashed (TypeError)"), or, caught, was a 400 "terminated".
    const restarts = server.ctx.pool.stats.restarts;
    for (let i = 0; i < 2; i++) {
      const res = await query(`SELECT * WHERE { SERVICE <${cut.url}> { ?s ?p ?o } }`);
      assert.equal(res.status, 502);
      assert.equal(await res.text(), `502 Bad Gateway: the answer from ${cut.url} was cut off: terminated\n`);
    }
    // The server fixtures' six turns (helpers.ts), from the copy that ran the failed queries.
    const next = await query('SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }');
    assert.deepEqual(await next.json(), {
      head: { vars: ['n'] },
      results: { bindings: [{ n: { type: 'literal', value: '6', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } }] },
    });
    assert.equal(server.ctx.pool.stats.restarts, restarts);
  });

  it('a trap of the store inside a federated query replaces that copy (507), as on any query: it was taken as matching nothing, and the broken copy answered on', async () => {
    // The store counted the join's pattern with the bound term in it: Oxigraph traps parsing a
    // triple term nested 1000 deep, which leaves its memory in an unknown state.
    const q = `SELECT ?c WHERE { SERVICE <${deep.url}> { ?x <urn:q> ?o } ?c rdf:reifies ?o }`;
    const restarts = server.ctx.pool.stats.restarts;
    const res = await query(q);
    assert.equal(res.status, 507);
    assert.equal(
      await res.text(),
      `507 Insufficient Storage: the query "${q}" stopped the store inside WebAssembly (memory access out of bounds): it needs more memory than one embedded store has at this size. Narrow it (a LIMIT, one named graph, fewer joins, a subquery that aggregates first), or move the store to an external SPARQL store (docs/guide.md, "An external store"). The server is still up and opens a fresh copy of the store.\n`,
    );
    assert.equal(server.ctx.pool.stats.restarts, restarts + 1);
    const next = await query('SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }');
    assert.deepEqual(await next.json(), {
      head: { vars: ['n'] },
      results: { bindings: [{ n: { type: 'literal', value: '6', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } }] },
    });
  });

  it("SERVICE SILENT over an endpoint that is gone, cuts its answer off or stops short: one solution with no bindings (POST); the store's own trap stays 507", async () => {
    // The answers cut off and stopped short held urn:a when they failed: it was answered as if it
    // were all (cut off), or the query failed with 502 all the same (stopped short).
    const post = (q: string) =>
      fetch(`${server.base}/sparql`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/sparql-results+json' },
        body: new URLSearchParams({ query: q }),
      });
    const turns = EXPECTED_TURNS.map(([turn]) => ({ turn: { type: 'uri', value: turn } }));
    for (const url of [gone, cut.url, short.url]) {
      const res = await post(
        `SELECT ?turn ?s WHERE { ?turn a weave:Turn OPTIONAL { SERVICE SILENT <${url}> { ?s ?p ?o } } } ORDER BY ?turn`,
      );
      assert.equal(res.status, 200, url);
      assert.deepEqual(await res.json(), { head: { vars: ['turn', 's'] }, results: { bindings: turns } }, url);
      const union = await post(
        `SELECT ?turn ?s WHERE { { ?turn a weave:Turn } UNION { SERVICE SILENT <${url}> { ?s ?p ?o } } } ORDER BY ?turn`,
      );
      assert.deepEqual(await union.json(), { head: { vars: ['turn', 's'] }, results: { bindings: [{}, ...turns] } }, url);
    }
    const loud = await post(`SELECT ?s WHERE { SERVICE <${short.url}> { ?s ?p ?o } }`);
    assert.equal(loud.status, 502);
    assert.equal(await loud.text(), `502 Bad Gateway: the answer from ${short.url} ended before its results were whole\n`);
    // SILENT passes by the other endpoint's failures, not the store's: the trap is in the join, after the SERVICE answered.
    const restarts = server.ctx.pool.stats.restarts;
    const trapped = await post(`SELECT ?c WHERE { SERVICE SILENT <${deep.url}> { ?x <urn:q> ?o } ?c rdf:reifies ?o }`);
    assert.equal(trapped.status, 507);
    assert.equal(server.ctx.pool.stats.restarts, restarts + 1);
  });

  it('the service description claims sd:BasicFederatedQuery only when federation is on', async () => {
    const sd = await (await get('/sparql', { accept: 'text/turtle' })).text();
    assert.match(sd, /sd:feature sd:UnionDefaultGraph, sd:BasicFederatedQuery ;/);
    const facts = { endpoint: 'http://x/sparql', voidUrl: 'http://x/void', allowUpdate: false };
    assert.doesNotMatch(serviceDescription({ ...facts, federated: false }), /BasicFederatedQuery/);
  });
});

describe('triple terms and protocol details for every client', () => {
  const CLAIMS =
    'CONSTRUCT { ?c rdf:reifies ?t } WHERE { ?c rdf:reifies ?t FILTER(isTRIPLE(?t) && STRSTARTS(STR(?c), "urn:soul:local:Weave/Claim/")) }';

  it('?rdf=1.1 in RDF/XML, ?rdf=star in N-Triples', async () => {
    const xml = await query(CLAIMS, '&rdf=1.1', 'application/rdf+xml');
    assert.equal(xml.headers.get('content-type'), 'application/rdf+xml; charset=utf-8');
    const loaded = new oxigraph.Store();
    loaded.load(await xml.text(), { format: 'application/rdf+xml', base_iri: server.base });
    // Two human/authored claims on the fixtures: each four statements.
    assert.equal(loaded.size, 8);
    assert.equal(loaded.match(null, null, oxigraph.namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#Statement')).length, 2);
    const star = await (await query(CLAIMS, '&rdf=star', 'application/n-triples')).text();
    assert.equal(
      star.match(
        / << <urn:soul:local:Weave\/Turn\/[57]e55e55e-0000-4000-8000-000000000001> <https:\/\/repolex\.ai\/ontology\/weave#exhibits> "human\/authored" >> \.$/gm,
      )?.length,
      2,
    );
  });

  it('a Graph Store read honours ?rdf=1.1: a session graph with its triple terms as RDF 1.1 reification', async () => {
    const graph = `/store?graph=${encodeURIComponent('urn:soul:local:Weave/graph/44444444-4444-4444-8444-444444444444')}`;
    const read = async (params: string, accept: string) => {
      const res = await get(`${graph}${params}`, { accept });
      assert.equal(res.status, 200, await res.clone().text());
      const loaded = new oxigraph.Store();
      loaded.load(await res.text(), { format: accept, base_iri: server.base });
      return loaded;
    };
    const count = (store: oxigraph.Store, p: string | null, o?: string) =>
      store.match(null, p ? oxigraph.namedNode(`${RDF_NS}${p}`) : null, o ? oxigraph.namedNode(`${RDF_NS}${o}`) : null).length;
    const tripleTerms = (store: oxigraph.Store) => store.match().filter((q) => q.object.termType === 'Quad').length;
    // The session of two turns states 19 links, each `L rdf:reifies <<( s p o )>>`, and nothing else holds a triple term.
    const stored = await read('', 'application/n-triples');
    assert.deepEqual([stored.size, count(stored, 'reifies'), tripleTerms(stored)], [STORED_44, 19, 19]);
    for (const accept of ['text/turtle', 'application/n-triples', 'application/rdf+xml']) {
      const lowered = await read('&rdf=1.1', accept);
      // Each link: rdf:reifies gone, a Statement with its subject, predicate and object in its place (three statements more).
      assert.deepEqual(
        [
          lowered.size,
          tripleTerms(lowered),
          count(lowered, 'reifies'),
          count(lowered, 'type', 'Statement'),
          count(lowered, 'subject'),
          count(lowered, 'object'),
        ],
        [STORED_44 + 3 * 19, 0, 0, 19, 19, 19],
        accept,
      );
    }
  });

  it('CSV writes a triple term as SPARQL 1.2 CSV does, whole, not Oxigraph\'s bare "s p o"', async () => {
    const q = 'SELECT ?t WHERE { ?c rdf:reifies ?t FILTER(STRSTARTS(STR(?c), "urn:soul:local:Weave/Claim/")) }';
    const lines = (await (await query(q, '', 'text/csv')).text()).split('\r\n');
    assert.deepEqual(lines.sort(), [
      '',
      ...['5e55e55e', '7e55e55e'].map(
        (t) => `"<<( ${TURN(`${t}-0000-4000-8000-000000000001`)} https://repolex.ai/ontology/weave#exhibits ""human/authored"" )>>"`,
      ),
      't',
    ]);
  });

  it('triple-terms=literal reaches SPARQL XML and RDF/XML', async () => {
    const select = await (
      await query('SELECT ?t WHERE { ?c rdf:reifies ?t } LIMIT 1', '&triple-terms=literal', 'application/sparql-results+xml')
    ).text();
    assert.match(select, /<binding name="t"><literal>&lt;&lt;\( &lt;urn:soul:/);
    const graph = await query(CLAIMS, '&triple-terms=literal', 'application/rdf+xml');
    assert.equal(graph.status, 200);
    assert.match(await graph.text(), /<rdf:reifies>&lt;&lt;\( &lt;urn:soul:local:Weave\/Turn\//);
  });

  it('the query form is parsed: two prologue declarations on one line still make a CONSTRUCT', async () => {
    const res = await get(
      `/sparql?query=${encodeURIComponent('PREFIX a: <urn:a#> PREFIX b: <urn:b#> CONSTRUCT { ?t a:role ?r } WHERE { ?t a/weave:turnRole ?r }')}`,
    );
    assert.equal(res.headers.get('content-type'), 'text/turtle; charset=utf-8');
    assert.equal(new Parser().parse(await res.text()).length, 6);
  });

  it('the service description and VoID in every format they advertise', async () => {
    for (const path of ['/sparql', '/void'])
      for (const [type, format] of [
        ['text/turtle', 'text/turtle'],
        ['application/n-triples', 'application/n-triples'],
        ['application/rdf+xml', 'application/rdf+xml'],
        ['application/ld+json', 'application/ld+json'],
      ]) {
        const res = await get(path, { accept: type });
        assert.equal(res.status, 200, `${path} as ${type}`);
        const loaded = new oxigraph.Store();
        loaded.load(await res.text(), { format, base_iri: server.base });
        assert.ok(loaded.size > 5, `${path} as ${type}`);
      }
  });

  it('a long query by GET (SPARQLWrapper and rdflib ask by GET): answered up to 256 KiB of headers, past it a plain-text 431', async () => {
    // 3,000 values: a URL of 38 KB, over Node's 16 KiB of headers.
    const values = Array.from({ length: 3000 }, (_, i) => `"value ${i}"`).join(' ');
    const long = await query(`SELECT (COUNT(?v) AS ?n) WHERE { VALUES ?v { ${values} } }`, '', 'text/csv');
    assert.equal(long.status, 200);
    assert.equal(await long.text(), 'n\r\n3000\r\n');
    const over = await new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
      const path = `/sparql?query=${encodeURIComponent(`ASK { VALUES ?v { ${'"x" '.repeat(30_000)}} }`)}`;
      const req = request(`${server.base}${path}`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual(over, {
      status: 431,
      type: 'text/plain; charset=utf-8',
      text: '431 Request Header Fields Too Large: the request line and headers are over 256 KiB; send a long query by POST\n',
    });
  });

  it('a query string or form whose percent-encoded bytes are not UTF-8 (Latin-1 é) is refused, not run with U+FFFD in their place', async () => {
    const latin1 = 'query=SELECT%20%3Fv%20WHERE%20%7B%20BIND(%22caf%E9%22%20AS%20%3Fv)%20%7D';
    const refusal =
      '400 Bad Request: the query string is not UTF-8 once percent-decoded: encode each character as the bytes of its UTF-8 (é is %C3%A9)\n';
    const byGet = await get(`/sparql?${latin1}`, { accept: 'text/csv' });
    assert.equal(byGet.status, 400);
    assert.equal(await byGet.text(), refusal);
    const byForm = await fetch(`${server.base}/sparql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/csv' },
      body: latin1,
    });
    assert.equal(byForm.status, 400);
    assert.equal(await byForm.text(), refusal.replace('query string', 'form body'));
    // UTF-8, and a % that encodes nothing, are read as ever.
    const utf8 = await get(`/sparql?${latin1.replace('%E9', '%C3%A9')}`, { accept: 'text/csv' });
    assert.equal(await utf8.text(), 'v\r\ncafé\r\n');
    const percent = await get(`/sparql?query=${encodeURIComponent('SELECT ?v WHERE { BIND("100" AS ?v) }').replace('100', '100%')}`, {
      accept: 'text/csv',
    });
    assert.equal(await percent.text(), 'v\r\n100%\r\n');
  });

  it("SPARQLWrapper's format names, sent as format=, output= and results=; unknown ones left to Accept", async () => {
    const ask = (names: string, accept: string, q = CLAIMS) => get(`/sparql?query=${encodeURIComponent(q)}&rdf=1.1&${names}`, { accept });
    assert.equal(
      (await ask('format=xml&output=xml&results=xml', 'application/rdf+xml')).headers.get('content-type'),
      'application/rdf+xml; charset=utf-8',
    );
    assert.equal((await ask('format=n3&output=n3&results=n3', 'text/n3')).headers.get('content-type'), 'text/turtle; charset=utf-8');
    assert.equal(
      (await ask('format=rdf%2Bxml&format=application%2Frdf%2Bxml', '*/*')).headers.get('content-type'),
      'application/rdf+xml; charset=utf-8',
    );
    const unknown = await ask('format=thrift', 'application/n-triples');
    assert.equal(unknown.status, 200);
    assert.equal(unknown.headers.get('content-type'), 'application/n-triples; charset=utf-8');
    const rows = await ask('format=xml', '*/*', 'SELECT * WHERE { ?s weave:role ?r } LIMIT 1');
    assert.equal(rows.headers.get('content-type'), 'application/sparql-results+xml; charset=utf-8');
  });
});
