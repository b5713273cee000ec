import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { EXPECTED_TURNS, SESSION_A, SESSION_B, startTestServer, TURN, type TestServer } from './helpers.ts';

/**
 * The SPARQL 1.1 Protocol endpoint over a real socket, on the two server fixtures (6 turns:
 * 5e55e55e-0000-4000-8000-000000000001 user, 5e55e55e-0000-4000-8000-000000000002 assistant, 5e55e55e-0000-4000-8000-000000000003 user, 5e55e55e-0000-4000-8000-000000000004 assistant in session 3333…; 7e55e55e-0000-4000-8000-000000000001 user,
 * 7e55e55e-0000-4000-8000-000000000002 assistant in session 4444…). Each result format is parsed back; each status named.
 */

const TURNS = 'SELECT ?t ?role WHERE { ?t a weave:Turn ; a/weave:turnRole ?role } ORDER BY ?t';
const ROLES = 'CONSTRUCT { ?t weave:role ?role } WHERE { ?t a weave:Turn ; a/weave:turnRole ?role }';
const GRAPH = (session: string) => `urn:soul:local:Weave/graph/${session}`;
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const NO_STACK = /\n\s+at \S+ \(|node_modules|\.ts:\d+/;

let server: TestServer;
const logs: string[] = [];

before(async () => {
  server = await startTestServer({
    maxResultBytes: 100_000,
    bodyLimitBytes: 1_000_000,
    verbose: true,
    log: (l) => logs.push(l),
    corsOrigins: ['http://allowed.example'],
  });
});
after(async () => server.stop());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.base}${path}`, { headers });
const postQuery = (query: string, accept: string, extra = '') =>
  fetch(`${server.base}/sparql${extra}`, { method: 'POST', headers: { 'content-type': 'application/sparql-query', accept }, body: query });

const WEAVE = 'https://repolex.ai/ontology/weave#';
/** The role triples ROLES constructs, written out from the fixtures' turns. */
const EXPECTED_ROLE_TRIPLES = EXPECTED_TURNS.map(([turn, role]) => `<${turn}> <${WEAVE}role> "${role}" .`).sort();

/** What this file reads of a term, from either parser (both give RDF/JS terms). */
interface Term {
  termType: string;
  value: string;
  language?: string;
  datatype?: { value: string };
}

/** A term in N-Triples syntax. */
function nt(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Literal': {
      const text = `"${term.value.replace(/[\\"\n\r]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r' })[c]!)}"`;
      if (term.language) return `${text}@${term.language}`;
      return !term.datatype || term.datatype.value === `${XSD}string` ? text : `${text}^^<${term.datatype.value}>`;
    }
    default:
      throw new Error(`unexpected ${term.termType} in a round trip`);
  }
}

/** Quads as canonical N-Quads lines, sorted: two documents hold the same quads when these are equal. */
function canonical(quads: { subject: Term; predicate: Term; object: Term; graph: Term }[]): string[] {
  return quads
    .map((q) =>
      [nt(q.subject), nt(q.predicate), nt(q.object), ...(q.graph.termType === 'DefaultGraph' ? [] : [nt(q.graph)]), '.'].join(' '),
    )
    .sort();
}

const viaN3 = (format: string) => (text: string) => canonical(new Parser({ format }).parse(text));
const viaOxigraph = (format: string) => (text: string) => canonical(oxigraph_parse(text, format));

describe('queries and their result formats', () => {
  it('answers GET, form POST and direct POST alike, JSON by default', async () => {
    const viaGet = await get(`/sparql?query=${encodeURIComponent(TURNS)}`);
    const viaForm = await fetch(`${server.base}/sparql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: TURNS }),
    });
    const viaDirect = await fetch(`${server.base}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-query' },
      body: TURNS,
    });
    for (const res of [viaGet, viaForm, viaDirect]) {
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/sparql-results+json; charset=utf-8');
      const json = (await res.json()) as {
        head: { vars: string[] };
        results: { bindings: Record<string, { type: string; value: string }>[] };
      };
      assert.deepEqual(json.head.vars, ['t', 'role']);
      assert.deepEqual(
        json.results.bindings.map((b) => [b.t.value, b.role.value]),
        EXPECTED_TURNS,
      );
      assert.equal(json.results.bindings[0].t.type, 'uri');
    }
  });

  it('takes everything after the first ? as the query string: a GET whose query keeps its ? unencoded, as Jena sends it', async () => {
    // Regression: the query string was cut at its second `?`, so any query with a variable got 400.
    const raw = `/sparql?query=${encodeURIComponent(TURNS).replace(/%3F/gi, '?')}&format=csv`;
    assert.ok(raw.includes('SELECT%20?t%20?role%20WHERE') && !/%3F/i.test(raw), 'the variables travel unencoded');
    const res = await get(raw);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8', 'the parameter after the query is read too');
    assert.deepEqual(
      (await res.text())
        .trim()
        .split(/\r?\n/)
        .map((l) => l.split(',')),
      [['t', 'role'], ...EXPECTED_TURNS],
    );
  });

  it('SPARQL XML', async () => {
    const res = await postQuery(TURNS, 'application/sparql-results+xml');
    assert.equal(res.headers.get('content-type'), 'application/sparql-results+xml; charset=utf-8');
    const xml = await res.text();
    const rows = [...xml.matchAll(/<result>(.*?)<\/result>/g)].map((m) => [
      /<binding name="t"><uri>([^<]*)<\/uri>/.exec(m[1])![1],
      /<binding name="role"><literal>([^<]*)<\/literal>/.exec(m[1])![1],
    ]);
    assert.deepEqual(rows, EXPECTED_TURNS);
  });

  it('CSV and TSV', async () => {
    const csv = await postQuery(TURNS, 'text/csv');
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    const csvLines = (await csv.text()).trim().split(/\r?\n/);
    assert.deepEqual(
      csvLines.map((l) => l.split(',')),
      [['t', 'role'], ...EXPECTED_TURNS],
    );
    const tsv = await postQuery(TURNS, 'text/tab-separated-values');
    assert.equal(tsv.headers.get('content-type'), 'text/tab-separated-values; charset=utf-8');
    const tsvLines = (await tsv.text()).trim().split('\n');
    assert.deepEqual(
      tsvLines.map((l) => l.split('\t')),
      [['?t', '?role'], ...EXPECTED_TURNS.map(([t, r]) => [`<${t}>`, `"${r}"`])],
    );
  });

  it('ASK in JSON and XML', async () => {
    const json = await postQuery(
      `ASK { <${TURN('5e55e55e-0000-4000-8000-000000000002')}> weave:model "claude-opus-4-1" }`,
      'application/sparql-results+json',
    );
    assert.equal(((await json.json()) as { boolean: boolean }).boolean, true);
    const xml = await postQuery(
      `ASK { <${TURN('5e55e55e-0000-4000-8000-000000000001')}> weave:model ?m }`,
      'application/sparql-results+xml',
    );
    assert.match(await xml.text(), /<boolean>false<\/boolean>/);
  });

  it('CONSTRUCT in Turtle, N-Triples, N-Quads, TriG, JSON-LD and RDF/XML, each parsed back to exactly the role triples of the 6 turns', async () => {
    assert.equal(EXPECTED_ROLE_TRIPLES.length, 6);
    for (const [type, parse] of [
      ['text/turtle', viaN3('text/turtle')],
      ['application/n-triples', viaN3('application/n-triples')],
      ['application/n-quads', viaN3('application/n-quads')],
      ['application/trig', viaN3('application/trig')],
      ['application/ld+json', viaOxigraph('application/ld+json')],
      ['application/rdf+xml', viaOxigraph('application/rdf+xml')],
    ] as const) {
      const res = await postQuery(ROLES, type);
      assert.equal(res.status, 200, type);
      assert.equal(res.headers.get('content-type'), `${type}; charset=utf-8`);
      assert.deepEqual(parse(await res.text()), EXPECTED_ROLE_TRIPLES, type);
    }
  });

  it('DESCRIBE returns the resource in Turtle by default', async () => {
    const res = await postQuery(`DESCRIBE <${TURN('5e55e55e-0000-4000-8000-000000000002')}>`, '*/*');
    assert.equal(res.headers.get('content-type'), 'text/turtle; charset=utf-8');
    const quads = new Parser({ format: 'text/turtle' }).parse(await res.text());
    assert.deepEqual(
      quads.filter((q) => q.predicate.value.endsWith('#model')).map((q) => q.object.value),
      ['claude-opus-4-1'],
    );
  });

  it('negotiates by q-value, and the format parameter wins over Accept', async () => {
    const res = await postQuery(TURNS, 'application/sparql-results+json;q=0.4, text/csv;q=0.9, */*;q=0.1');
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    // This server lists a CORS origin, so its answers vary by Origin too.
    assert.equal(res.headers.get('vary'), 'Origin, Accept');
    const viaParam = await postQuery(TURNS, 'text/csv', '?format=tsv');
    assert.equal(viaParam.headers.get('content-type'), 'text/tab-separated-values; charset=utf-8');
  });
});

describe('the dataset a query sees', () => {
  const count = async (query: string, extra = '') =>
    Number(
      ((await (await postQuery(query, 'application/json', extra)).json()) as { results: { bindings: { n: { value: string } }[] } }).results
        .bindings[0].n.value,
    );

  it('is the union of all graphs unless the request names graphs', async () => {
    assert.equal(await count('SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }'), 6);
    assert.equal(
      await count('SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }', `?default-graph-uri=${encodeURIComponent(GRAPH(SESSION_A))}`),
      4,
    );
    assert.equal(
      await count(
        'SELECT (COUNT(?t) AS ?n) WHERE { GRAPH ?g { ?t a weave:Turn } }',
        `?named-graph-uri=${encodeURIComponent(GRAPH(SESSION_B))}`,
      ),
      2,
    );
  });

  it('honours FROM in the query text', async () => {
    assert.equal(await count(`SELECT (COUNT(?t) AS ?n) FROM <${GRAPH(SESSION_B)}> WHERE { ?t a weave:Turn }`), 2);
  });

  it('sees the ontology graph', async () => {
    assert.equal(await count('SELECT (COUNT(*) AS ?n) WHERE { weave:Turn a owl:Class }'), 1);
  });
});

describe('RDF 1.2 triple terms', () => {
  const TRIPLE = 'SELECT ?t WHERE { BIND(<<( <urn:a> <urn:b> "c" )>> AS ?t) }';

  it('are standard in SPARQL JSON, and N-Triples text literals when the client asks for that', async () => {
    const standard = (await (await postQuery(TRIPLE, 'application/json')).json()) as { results: { bindings: { t: { type: string } }[] } };
    assert.equal(standard.results.bindings[0].t.type, 'triple');
    const flat = (await (await postQuery(TRIPLE, 'application/json', '?triple-terms=literal')).json()) as {
      results: { bindings: { t: unknown }[] };
    };
    assert.deepEqual(flat.results.bindings[0].t, { type: 'literal', value: '<<( <urn:a> <urn:b> "c" )>>' });
  });

  it('in graphs: Turtle carries them; JSON-LD cannot, so the next acceptable format is used, or 406', async () => {
    const q = 'CONSTRUCT { <urn:x> <urn:y> <<( <urn:a> <urn:b> "c" )>> } WHERE {}';
    assert.match(await (await postQuery(q, 'text/turtle')).text(), /<<\( <urn:a> <urn:b> "c" \)>>/);
    const fallback = await postQuery(q, 'application/ld+json, application/n-triples;q=0.5');
    assert.equal(fallback.headers.get('content-type'), 'application/n-triples; charset=utf-8');
    const refused = await postQuery(q, 'application/ld+json');
    assert.equal(refused.status, 406);
    assert.match(await refused.text(), /triple terms/);
    const flat = await postQuery(q, 'text/turtle', '?triple-terms=literal');
    const quads = new Parser({ format: 'text/turtle' }).parse(await flat.text());
    assert.deepEqual(
      quads.map((x) => [x.object.termType, x.object.value]),
      [['Literal', '<<( <urn:a> <urn:b> "c" )>>']],
    );
  });
});

describe('errors: the right status, a one-line message, never a stack trace', () => {
  it('400 names line and column in the text the client sent', async () => {
    const res = await postQuery('SELECT ?s\nWHERE { ?s ?p ?o', 'application/json');
    assert.equal(res.status, 400);
    const body = await res.text();
    assert.match(body, /^400 Bad Request: error at line 2, column 17: /);
    assert.doesNotMatch(body, NO_STACK);
  });

  it('406 when no acceptable format exists', async () => {
    const res = await postQuery(TURNS, 'image/png');
    assert.equal(res.status, 406);
    assert.match(
      await res.text(),
      /can be sent as application\/sparql-results\+json, application\/sparql-results\+xml, text\/csv, text\/tab-separated-values/,
    );
    assert.equal((await postQuery(ROLES, 'text/csv')).status, 406);
  });

  it('415 for a body type the endpoint does not read, 405 for other methods', async () => {
    const res = await fetch(`${server.base}/sparql`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'ASK {}' });
    assert.equal(res.status, 415);
    const put = await fetch(`${server.base}/sparql`, { method: 'PUT', body: 'x' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST');
  });

  it('413 over the body limit', async () => {
    const res = await postQuery(`ASK {} # ${'x'.repeat(1_100_000)}`, 'application/json');
    assert.equal(res.status, 413);
    assert.match(await res.text(), /over the limit of 1\.0 MB/);
  });

  it('507 for a result over the result limit', async () => {
    const res = await postQuery('SELECT * WHERE { ?s ?p ?o }', 'application/json');
    assert.equal(res.status, 507);
    assert.match(await res.text(), /over the limit of 0\.1 MB; narrow the query or add LIMIT/);
  });

  it('403 for updates when writes are off, and for a Host that is not loopback', async () => {
    const res = await fetch(`${server.base}/sparql`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-update' },
      body: 'CLEAR ALL',
    });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /--allow-update/);
    assert.equal(
      (await fetch(`${server.base}/store?default`, { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: '' })).status,
      403,
    );
    // A DNS-rebinding page reaches 127.0.0.1 under its own name.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${server.base}/healthz`);
      request({ host: url.hostname, port: url.port, path: '/sparql?query=ASK%7B%7D', headers: { host: 'evil.example' } }, (r) => {
        r.resume();
        resolve(r.statusCode!);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(status, 403);
    // Two Host headers: Node reads the first, a proxy may read the last; neither is taken.
    const { connect } = await import('node:net');
    const url = new URL(server.base);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(`GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (d) => {
        text += d;
      });
      socket.on('end', () => resolve(text.split('\r\n')[0]));
      socket.on('error', reject);
    });
    assert.equal(head, 'HTTP/1.1 400 Bad Request');
  });

  it('404 for unknown paths and absent graphs', async () => {
    assert.equal((await get('/nothing-here')).status, 404);
    assert.equal((await get(`/store?graph=${encodeURIComponent('urn:no:such:graph')}`)).status, 404);
  });

  it('303 to the page for a browser on the bare endpoint', async () => {
    const res = await fetch(`${server.base}/sparql`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      redirect: 'manual',
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/');
  });
});

describe('service description, Graph Store reads, operations', () => {
  it('a bare GET on the endpoint is a Service Description naming this endpoint and its graphs', async () => {
    const res = await get('/sparql', { accept: 'text/turtle' });
    assert.equal(res.headers.get('content-type'), 'text/turtle; charset=utf-8');
    const quads = new Parser({ format: 'text/turtle' }).parse(await res.text());
    const sd = 'http://www.w3.org/ns/sparql-service-description#';
    assert.deepEqual(
      quads.filter((q) => q.predicate.value === `${sd}endpoint`).map((q) => q.object.value),
      [`${server.base}/sparql`],
    );
    const names = quads.filter((q) => q.predicate.value === `${sd}name`).map((q) => q.object.value);
    assert.ok(names.includes(GRAPH(SESSION_A)) && names.includes(GRAPH(SESSION_B)) && names.includes('https://repolex.ai/ontology/weave'));
    assert.equal(quads.filter((q) => q.object.value === `${sd}SPARQL11Update`).length, 0);
  });

  it('Graph Store reads: a session graph by ?graph=, the default graph by ?default', async () => {
    const res = await get(`/store?graph=${encodeURIComponent(GRAPH(SESSION_B))}`, { accept: 'application/n-triples' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/n-triples; charset=utf-8');
    const quads = new Parser({ format: 'application/n-triples' }).parse(await res.text());
    assert.deepEqual(
      quads
        .filter((q) => q.predicate.value.endsWith('#hasContentBlock'))
        .map((q) => q.subject.value)
        .sort(),
      [TURN('7e55e55e-0000-4000-8000-000000000001'), TURN('7e55e55e-0000-4000-8000-000000000002')],
    );
    const def = await get('/store?default');
    assert.equal(def.status, 200);
    assert.equal(await def.text(), '');
    const head = await fetch(`${server.base}/store?graph=${encodeURIComponent(GRAPH(SESSION_B))}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/turtle; charset=utf-8');
  });

  it('healthz, status and metrics', async () => {
    // The server runs in this process: its pid is ours.
    assert.deepEqual(await (await get('/healthz')).json(), { status: 'ok', pid: process.pid, store: 'ready', ingest: 'ready' });
    const status = (await (await get('/status')).json()) as {
      ingest: { state: string; progress: { sessionsDone: number; sessionsTotal: number; records: number } };
    };
    assert.equal(status.ingest.state, 'ready');
    assert.deepEqual(
      [status.ingest.progress.sessionsDone, status.ingest.progress.sessionsTotal, status.ingest.progress.records],
      [2, 2, 6],
    );
    // At rest: a second copy opened while a query held the first too long (a loaded machine's
    // queries can) is retired once idle 2 s; the metrics are read once it is.
    let metrics = await (await get('/metrics')).text();
    for (let waited = 0; !/^weave_store_copies 1$/m.test(metrics) && waited < 10_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      metrics = await (await get('/metrics')).text();
    }
    assert.match(metrics, /^weave_sparql_operations_total\{op="query",status="200"\} \d+$/m);
    assert.match(metrics, /^weave_sparql_operation_duration_seconds_count\{op="query"\} \d+$/m);
    assert.match(metrics, /^weave_store_quads [1-9]\d*$/m);
    // One copy of the store at rest, whatever --workers allows (2 here).
    assert.match(metrics, /^weave_workers\{state="ready"\} 1$/m);
    assert.match(metrics, /^weave_workers\{state="configured"\} 2$/m);
    assert.match(metrics, /^weave_store_copies 1$/m);
  });

  it('CORS: an allowed origin may read, others get no grant', async () => {
    const allowed = await get('/healthz', { origin: 'http://allowed.example' });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://allowed.example');
    const other = await get('/healthz', { origin: 'http://other.example' });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(`${server.base}/sparql`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://allowed.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD, POST');
  });

  it('logs carry no query text or data', async () => {
    const marker = 'MARKER-7f3a-do-not-log';
    await postQuery(`SELECT * WHERE { ?s ?p "${marker}" }`, 'application/json');
    await postQuery(`SELECT * WHERE { ?s ?p "${marker}"`, 'application/json');
    assert.ok(
      logs.some((l) => /^POST \/sparql 400 /.test(l)),
      'request lines are logged',
    );
    assert.ok(
      logs.every((l) => !l.includes(marker) && !l.includes('Two entries')),
      'no query text or record content',
    );
  });
});

function oxigraph_parse(text: string, format: string): oxigraph.Quad[] {
  const store = new oxigraph.Store();
  store.load(text, { format, base_iri: 'http://example.org/' });
  return store.match(null, null, null, null);
}
