import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import oxigraph from 'oxigraph';
import rdf from 'rdf-ext';
import { federationSamples } from '../../bench/federation-samples.ts';
import { FederationError, QueryTimedOut, UnreachableSource } from '../../src/federation/errors.ts';
import { withinTime } from '../../src/federation/query-time.ts';
import { runFederated } from '../../src/federation/engine.ts';
import { storeSource } from '../../src/federation/sources.ts';
import { runQuery } from '../../src/query/run.ts';
import { detect } from '../../src/readers/detect.ts';
import { openStore } from '../../src/store/store.ts';
import type { JsonResults } from '../../src/query/table.ts';
import { FIXTURES, REPO, ingestFresh, removeDir } from '../helpers.ts';
import { GARBLED_RESULTS, startEndpoint, startRawEndpoint, type TestEndpoint } from './endpoint.ts';

const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));
const FEDERATION = join(FIXTURES, 'federation');
const POOL = join(FEDERATION, 'pool.ttl');
/** The Soul endpoint the example queries name; the tests put their own in its place. */
const NAMED_SOUL = 'http://127.0.0.1:7881/sparql';
const TURN = (id: string) => `urn:soul:local:Weave/Turn/${id}`;
/** The six turns of the server fixtures, in IRI order. */
const TURNS = [1, 2, 3, 4]
  .map((n) => TURN(`5e55e55e-0000-4000-8000-00000000000${n}`))
  .concat([1, 2].map((n) => TURN(`7e55e55e-0000-4000-8000-00000000000${n}`)));
const COPIA = 'https://repolex.ai/ontology/kit/copia/';

function rows(result: Awaited<ReturnType<typeof runFederated>>, ...vars: string[]): string[][] {
  assert.equal(result.kind, 'solutions');
  return (result.kind === 'solutions' ? result.results.results!.bindings : []).map((b) => vars.map((v) => b[v]?.value as string));
}

describe('one federated query over the store, a Pool file and a Soul endpoint', () => {
  let dir: string;
  let store: oxigraph.Store;
  let soul: TestEndpoint;
  const example = async (name: string) => (await readFile(join(FEDERATION, name), 'utf8')).replaceAll(NAMED_SOUL, soul.url);
  const federation = () => ({ sources: [POOL], allow: [soul.url] });

  before(async () => {
    ({ dir } = await ingestFresh([join(FIXTURES, 'server')]));
    await detect({ storeDir: dir });
    ({ store } = await openStore(dir));
    soul = await startEndpoint(join(FEDERATION, 'soul.trig'), 'application/trig');
  });
  after(async () => {
    await soul.close();
    await removeDir(dir);
  });

  test('an empty answer over several sources names the variables it projects, as Oxigraph does', async () => {
    // Comunica named none for an empty join over the store and a file: the head was bare, a TSV had no header.
    const none = '?turn a weave:Turn ; owl:sameAs ?anchor . ?moment prov:wasDerivedFrom ?anchor ; <urn:weave-test:none> ?x';
    for (const [query, vars] of [
      [`SELECT ?turn ?moment WHERE { ${none} }`, ['turn', 'moment']],
      [`SELECT DISTINCT ?moment ?turn WHERE { ${none} } ORDER BY ?turn LIMIT 5 OFFSET 1`, ['moment', 'turn']],
    ] as const) {
      const result = await runFederated(store, query, { sources: [POOL], allow: [] });
      assert.deepEqual(result, { kind: 'solutions', results: { head: { vars }, results: { bindings: [] } } });
      assert.deepEqual((JSON.parse(runQuery(store, query, { results_format: 'json' }) as string) as JsonResults).head.vars, vars);
    }
  });

  test('the samples are what bench/federation-samples.ts writes from this store: every turn they name is in it', async () => {
    const { pool, soul: memories } = federationSamples(store);
    assert.equal(pool, await readFile(POOL, 'utf8'));
    assert.equal(memories, await readFile(join(FEDERATION, 'soul.trig'), 'utf8'));
    const named = [...`${pool}${memories}`.matchAll(/<https:\/\/repolex\.ai\/ravel\/Turn\/([^>]+)>/g)].map((m) => m[1]);
    const held = named.filter((id) => store.match(oxigraph.namedNode(TURN(id)), null, null, null).length);
    assert.deepEqual([...new Set(held)].sort(), [
      '5e55e55e-0000-4000-8000-000000000001',
      '5e55e55e-0000-4000-8000-000000000004',
      '7e55e55e-0000-4000-8000-000000000001',
      '7e55e55e-0000-4000-8000-000000000002',
    ]);
    assert.equal(held.length, named.length);
  });

  test('joins a Weave turn, a Pool moment and a Soul memory by IRI', async (t) => {
    const started = performance.now();
    const result = await runFederated(store, await example('turn-moment-memory.rq'), federation());
    t.diagnostic(`turn-moment-memory.rq: ${Math.round(performance.now() - started)} ms (Comunica loaded in this run)`);
    // By hand: pool.ttl's m-0001 is derived from ravel's 5e55e55e-0000-4000-8000-000000000004, the last answer of session 3333…,
    // and soul.trig's memory of that session (m + the first 16 hex of its id's SHA-1) rests on its first prompt and that answer.
    assert.deepEqual(rows(result, 'turn', 'moment', 'caption', 'memory', 'text'), [
      [
        TURN('5e55e55e-0000-4000-8000-000000000004'),
        'https://repolex.ai/pool/Moment/m-0001',
        'Two entries: README.md and src.',
        'https://repolex.ai/ravel/Memory/m5e947117f3a0b596',
        'Asked: What is in this folder? Answered: Two entries: README.md and src.',
      ],
    ]);
  });

  test('joins them by the xsd:dateTime time anchor', async (t) => {
    const started = performance.now();
    const result = await runFederated(store, await example('moments-by-time.rq'), federation());
    t.diagnostic(`moments-by-time.rq: ${Math.round(performance.now() - started)} ms`);
    // The user turns are 5e55e55e-0000-4000-8000-000000000001 (09:00:00), 5e55e55e-0000-4000-8000-000000000003 (09:00:03) and 7e55e55e-0000-4000-8000-000000000001 (Nov 3, 10:00:00). m-0001 was rendered at
    // 09:00:07, within ten seconds of the first two; m-0002 shared at 10:00:00.5; the level-1 windows are the hours 09–10 and 10–11.
    assert.deepEqual(rows(result, 'turn', 'moment', 'summary'), [
      [TURN('5e55e55e-0000-4000-8000-000000000001'), 'https://repolex.ai/pool/Moment/m-0001', 'https://repolex.ai/ravel/Memory/w1-489465'],
      [TURN('5e55e55e-0000-4000-8000-000000000003'), 'https://repolex.ai/pool/Moment/m-0001', 'https://repolex.ai/ravel/Memory/w1-489465'],
      [TURN('7e55e55e-0000-4000-8000-000000000001'), 'https://repolex.ai/pool/Moment/m-0002', 'https://repolex.ai/ravel/Memory/w1-489490'],
    ]);
  });

  test('triple-term patterns match claims in every named graph, as Oxigraph answers them', async () => {
    const query = 'SELECT ?claim ?turn WHERE { ?claim rdf:reifies <<( ?turn weave:exhibits "human/authored" )>> } ORDER BY ?claim';
    const local = JSON.parse(runQuery(store, query, { results_format: 'json' }) as string) as JsonResults;
    const expected = local.results!.bindings.map((b) => [b.claim.value, b.turn.value]);
    assert.equal(expected.length, 2, 'the human/authored reader claims the two typed prompts');
    assert.deepEqual(rows(await runFederated(store, query, federation()), 'claim', 'turn'), expected);
  });

  test('a triple term bound by the SERVICE joins the store on it (the store counted the pattern in SPARQL without <<( )>>, and the worker died)', async () => {
    const notes = join(dir, 'notes.nt');
    await writeFile(
      notes,
      `<urn:note:1> <urn:note:about> <<( <${TURN('7e55e55e-0000-4000-8000-000000000001')}> <https://repolex.ai/ontology/weave#exhibits> "human/authored" )>> .\n`,
    );
    const other = await startEndpoint(notes, 'application/n-triples');
    try {
      const query = `SELECT ?note ?claim WHERE { SERVICE <${other.url}> { ?note <urn:note:about> ?said } ?claim rdf:reifies ?said }`;
      assert.deepEqual(rows(await runFederated(store, query, { sources: [], allow: [other.url] }), 'note', 'claim'), [
        ['urn:note:1', 'urn:soul:local:Weave/Claim/fe4ab8f3878a428047e704b8e3623852'],
      ]);
    } finally {
      await other.close();
    }
  });

  test('an IRI no IRI can be, bound by the SERVICE, matches nothing in the store (it threw inside Comunica, unhandled, and the query never ended)', {
    timeout: 30_000,
  }, async () => {
    const garbled = await startRawEndpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      res.end(GARBLED_RESULTS);
    });
    try {
      const federation = { sources: [], allow: [garbled.url] };
      const joined = `SELECT ?s ?x WHERE { SERVICE <${garbled.url}> { ?s <urn:p> ?o } ?s ?p ?x }`;
      assert.deepEqual(rows(await runFederated(store, joined, federation), 's', 'x'), []);
      const optional = `SELECT ?s ?x WHERE { SERVICE <${garbled.url}> { ?s <urn:p> ?o } OPTIONAL { ?s ?p ?x } }`;
      assert.deepEqual(rows(await runFederated(store, optional, federation), 's', 'x'), [['not an iri', undefined]]);
    } finally {
      garbled.close();
    }
  });

  test('an endpoint that cuts its answer off is named as unreachable, with why (fetch said only "terminated", or nothing handled it)', async () => {
    const cut = await startRawEndpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      res.write('{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"urn:a"}},');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    try {
      await assert.rejects(
        runFederated(store, `SELECT * WHERE { SERVICE <${cut.url}> { ?s ?p ?o } }`, { sources: [], allow: [cut.url] }),
        (e: Error) => {
          assert.ok(e instanceof UnreachableSource);
          assert.equal(e.message, `the answer from ${cut.url} was cut off: terminated`);
          return true;
        },
      );
    } finally {
      cut.close();
    }
  });

  test('an endpoint whose results stop short, the response ending cleanly, is refused, not taken as all there are', async () => {
    // Both held one whole solution (urn:a) when they stopped: Comunica answered it alone, 200.
    const answers = [
      ['application/sparql-results+json', '{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"urn:a"}},{"s":{"ty'],
      [
        'application/sparql-results+xml',
        '<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="s"/></head><results><result><binding name="s"><uri>urn:a</uri></binding></result><res',
      ],
    ];
    for (const [type, text] of answers) {
      const short = await startRawEndpoint((res) => {
        res.writeHead(200, { 'content-type': type });
        res.end(text);
      });
      try {
        const query = `SELECT * WHERE { SERVICE <${short.url}> { ?s ?p ?o } }`;
        await assert.rejects(runFederated(store, query, { sources: [], allow: [short.url] }), (e: Error) => {
          assert.ok(e instanceof UnreachableSource);
          assert.equal(e.message, `the answer from ${short.url} ended before its results were whole`);
          return true;
        });
      } finally {
        short.close();
      }
    }
  });

  test('SERVICE SILENT over an endpoint that fails in any way is one solution with no bindings, alone, joined, in OPTIONAL and in UNION; without SILENT each fails naming the endpoint (502 at the server)', {
    timeout: 60_000,
  }, async () => {
    // Each answer held one whole solution (urn:a) when it failed. Under SILENT the one cut off was
    // answered with it, as if it were all (Comunica keeps what a source gave before its error), and
    // the ones that stopped short failed with 502 all the same.
    const head = '{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"urn:a"}},';
    const cut = await startRawEndpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      res.write(head);
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const shortJson = await startRawEndpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      res.end(`${head}{"s":{"ty`);
    });
    const shortXml = await startRawEndpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+xml' });
      res.end(
        '<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="s"/></head><results><result><binding name="s"><uri>urn:a</uri></binding></result><res',
      );
    });
    const closed = await startRawEndpoint(() => {});
    closed.close();
    // Comunica's errors for these ("Invalid SPARQL endpoint response …", "Unknown SPARQL results
    // content type: text/html") were no UnreachableSource: a 400 at the server.
    const down = await startRawEndpoint((res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    const portal = await startRawEndpoint((res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Sign in to continue</body></html>');
    });
    const failing: [string, string][] = [
      [cut.url, `the answer from ${cut.url} was cut off: terminated`],
      [shortJson.url, `the answer from ${shortJson.url} ended before its results were whole`],
      [shortXml.url, `the answer from ${shortXml.url} ended before its results were whole`],
      [closed.url, `could not reach ${closed.url}: connect ECONNREFUSED ${new URL(closed.url).host}`],
      [down.url, `${down.url} answered HTTP 503 Service Unavailable`],
      [portal.url, `${portal.url} answered text/html, not SPARQL results`],
    ];
    const federation = { sources: [], allow: failing.map(([url]) => url) };
    // The store's six turns, each with nothing from the failed SERVICE.
    const alone = TURNS.map((turn) => [turn, undefined]);
    try {
      for (const [url, message] of failing) {
        const service = `SERVICE SILENT <${url}> { ?s ?p ?o }`;
        assert.deepEqual(rows(await runFederated(store, `SELECT ?s WHERE { ${service} }`, federation), 's'), [[undefined]], url);
        const joined = `SELECT ?turn ?s WHERE { ?turn a weave:Turn . ${service} } ORDER BY ?turn`;
        assert.deepEqual(rows(await runFederated(store, joined, federation), 'turn', 's'), alone, url);
        const first = `SELECT ?turn ?s WHERE { ${service} ?turn a weave:Turn } ORDER BY ?turn`;
        assert.deepEqual(rows(await runFederated(store, first, federation), 'turn', 's'), alone, url);
        const optional = `SELECT ?turn ?s WHERE { ?turn a weave:Turn OPTIONAL { ${service} } } ORDER BY ?turn`;
        assert.deepEqual(rows(await runFederated(store, optional, federation), 'turn', 's'), alone, url);
        const union = `SELECT ?turn ?s WHERE { { ?turn a weave:Turn } UNION { ${service} } } ORDER BY ?turn`;
        assert.deepEqual(rows(await runFederated(store, union, federation), 'turn', 's'), [[undefined, undefined], ...alone], url);
        const loud = `SELECT ?s WHERE { SERVICE <${url}> { ?s ?p ?o } }`;
        await assert.rejects(runFederated(store, loud, federation), (e: Error) => {
          assert.ok(e instanceof UnreachableSource, url);
          assert.equal(e.message, message);
          return true;
        });
      }
    } finally {
      cut.close();
      shortJson.close();
      shortXml.close();
      down.close();
      portal.close();
    }
  });

  test('what stands around SERVICE SILENT over a failing endpoint is evaluated over its one empty solution (COUNT, ASK, CONSTRUCT, BIND, FILTER); over a working one it answers as without SILENT', {
    timeout: 60_000,
  }, async () => {
    const down = await startRawEndpoint((res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    const federation = { sources: [], allow: [down.url, soul.url] };
    const ask = async (query: string) => {
      const result = await runFederated(store, query, federation);
      assert.equal(result.kind, 'solutions');
      return result.kind === 'solutions' ? result.results : undefined;
    };
    const memories = (url: string) => `SERVICE SILENT <${url}> { ?s a <https://repolex.ai/ontology/ravel/Memory> }`;
    try {
      // Failing: the SERVICE is one solution with no bindings, and everything around it sees that.
      const failed = memories(down.url);
      assert.deepEqual(rows(await runFederated(store, `SELECT (COUNT(*) AS ?n) WHERE { ${failed} }`, federation), 'n'), [['1']]);
      assert.deepEqual(rows(await runFederated(store, `SELECT (COUNT(?s) AS ?n) WHERE { ${failed} }`, federation), 'n'), [['0']]);
      assert.equal((await ask(`ASK { ${failed} }`))?.boolean, true);
      const built = await runFederated(store, `CONSTRUCT { ?s a <urn:x> } WHERE { ${failed} }`, federation);
      assert.deepEqual(built.kind === 'quads' ? built.quads.length : built.kind, 0);
      assert.deepEqual(rows(await runFederated(store, `SELECT ?s ?y WHERE { ${failed} BIND(1 AS ?y) }`, federation), 's', 'y'), [
        [undefined, '1'],
      ]);
      assert.deepEqual(rows(await runFederated(store, `SELECT ?s WHERE { ${failed} FILTER(BOUND(?s)) }`, federation), 's'), []);
      const turns = `SELECT ?t ?s WHERE { ?t a weave:Turn ${failed} FILTER(BOUND(?s)) }`;
      assert.deepEqual(rows(await runFederated(store, turns, federation), 't', 's'), []);
      // Working: the four memories of fixtures/federation/soul.trig, with SILENT as without.
      for (const silent of ['SILENT ', '']) {
        const service = `SERVICE ${silent}<${soul.url}> { ?s a <https://repolex.ai/ontology/ravel/Memory> }`;
        assert.deepEqual(rows(await runFederated(store, `SELECT (COUNT(*) AS ?n) WHERE { ${service} }`, federation), 'n'), [['4']]);
        assert.equal((await ask(`ASK { ${service} FILTER(BOUND(?s)) }`))?.boolean, true);
        const level0 = `SELECT ?s WHERE { ${service.replace(' }', ' ; <https://repolex.ai/ontology/ravel/memoryLevel> 0 }')} BIND(1 AS ?y) FILTER(BOUND(?s)) }`;
        assert.equal(rows(await runFederated(store, level0, federation), 's').length, 2, silent);
      }
    } finally {
      down.close();
    }
  });

  test('weave query --service-allow: SERVICE SILENT over results that stop short answers without them; without SILENT it fails in one line', async () => {
    const short = await startRawEndpoint((res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      res.end('{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"urn:a"}},{"s":{"ty');
    });
    const run = (service: string) =>
      promisify(execFile)(
        WEAVE,
        [
          'query',
          `SELECT ?turn ?s WHERE { ?turn a weave:Turn OPTIONAL { ${service} <${short.url}> { ?s ?p ?o } } } ORDER BY ?turn`,
          '--service-allow',
          short.url,
          '--store',
          dir,
          '--format',
          'tsv',
        ],
        { cwd: REPO },
      ).then(
        ({ stdout, stderr }) => [0, stdout, stderr],
        (e: { code: number; stdout: string; stderr: string }) => [e.code, e.stdout, e.stderr],
      );
    try {
      assert.deepEqual(await run('SERVICE SILENT'), [0, `?turn\t?s\n${TURNS.map((turn) => `<${turn}>\t\n`).join('')}`, '']);
      assert.deepEqual(await run('SERVICE'), [1, '', `weave query: the answer from ${short.url} ended before its results were whole\n`]);
    } finally {
      short.close();
    }
  });

  test("an endpoint that takes the connection and never answers is cut within the query's time (a quarter of it before its end): SERVICE SILENT answers without it, SERVICE fails naming it and the timeout", {
    timeout: 60_000,
  }, async () => {
    const silent = await startRawEndpoint(() => {});
    const federation = (timeoutMs: number) => ({ sources: [], allow: [silent.url], time: { timeoutMs, since: Date.now() } });
    try {
      // Comunica loaded (a second or more on a busy machine, which a first query's time would count).
      await runFederated(store, 'ASK { ?s ?p ?o }', { sources: [POOL], allow: [] });
      // 3 s: the endpoint is cut at 2.25 s, and the store's six turns are the answer, each with nothing from it.
      let started = performance.now();
      const optional = `SELECT ?turn ?s WHERE { ?turn a weave:Turn OPTIONAL { SERVICE SILENT <${silent.url}> { ?s ?p ?o } } } ORDER BY ?turn`;
      assert.deepEqual(
        rows(await runFederated(store, optional, federation(3000)), 'turn', 's'),
        TURNS.map((turn) => [turn, undefined]),
      );
      let took = performance.now() - started;
      assert.ok(took >= 2150 && took < 3000, `${took} ms`);
      started = performance.now();
      const count = `SELECT (COUNT(*) AS ?n) WHERE { SERVICE SILENT <${silent.url}> { ?s ?p ?o } }`;
      assert.deepEqual(rows(await runFederated(store, count, federation(3000)), 'n'), [['1']]);
      assert.ok(performance.now() - started < 3000);
      started = performance.now();
      await assert.rejects(
        runFederated(store, `SELECT ?s WHERE { SERVICE <${silent.url}> { ?s ?p ?o } }`, federation(3000)),
        (e: Error) => {
          assert.ok(e instanceof UnreachableSource);
          assert.equal(e.message, `${silent.url} did not answer within the query's timeout of 3 s (--timeout)`);
          return true;
        },
      );
      took = performance.now() - started;
      assert.ok(took >= 2150 && took < 3000, `${took} ms`);
    } finally {
      silent.close();
    }
  });

  test('a federated query still running at the end of its time fails with QueryTimedOut naming the time and the option', async () => {
    const started = performance.now();
    await assert.rejects(withinTime({ timeoutMs: 1500, since: Date.now() }, new Promise(() => {})), (e: Error) => {
      assert.ok(e instanceof QueryTimedOut);
      assert.equal(e.message, 'the query ran longer than the timeout of 1.5 s (--timeout) and was stopped');
      return true;
    });
    const took = performance.now() - started;
    assert.ok(took >= 1450 && took < 2500, `${took} ms`);
  });

  test('weave query --timeout: SERVICE SILENT over an endpoint that never answers gives the answer without it in time; SERVICE fails in one line naming the time and the option', {
    timeout: 60_000,
  }, async () => {
    const silent = await startRawEndpoint(() => {});
    const run = (service: string, ...options: string[]) =>
      promisify(execFile)(
        WEAVE,
        [
          'query',
          `SELECT ?turn ?s WHERE { ?turn a weave:Turn OPTIONAL { ${service} <${silent.url}> { ?s ?p ?o } } } ORDER BY ?turn`,
          '--service-allow',
          silent.url,
          '--store',
          dir,
          '--format',
          'tsv',
          ...options,
        ],
        { cwd: REPO },
      ).then(
        ({ stdout, stderr }) => [0, stdout, stderr],
        (e: { code: number; stdout: string; stderr: string }) => [e.code, e.stdout, e.stderr],
      );
    try {
      assert.deepEqual(await run('SERVICE SILENT', '--timeout', '4'), [
        0,
        `?turn\t?s\n${TURNS.map((turn) => `<${turn}>\t\n`).join('')}`,
        '',
      ]);
      assert.deepEqual(await run('SERVICE', '--timeout', '4'), [
        1,
        '',
        `weave query: ${silent.url} did not answer within the query's timeout of 4 s (--timeout)\n`,
      ]);
      assert.deepEqual(await run('SERVICE', '--timeout', 'soon'), [
        2,
        '',
        'weave query: --timeout must be a positive number of seconds, not "soon"\n',
      ]);
    } finally {
      silent.close();
    }
  });

  test('a SERVICE endpoint not at /sparql that refuses a GET without a query (oxigraph serve\'s /query) is asked the query: Comunica fetched the IRI first to tell what it is, and failed (400 "Could not retrieve"), or under SILENT matched nothing', async () => {
    const oxigraphServer = await startEndpoint(join(FEDERATION, 'soul.trig'), 'application/trig', { asOxigraphServer: true });
    try {
      const federation = { sources: [], allow: [oxigraphServer.url] };
      // soul.trig: each session's memory rests on its first prompt and its last answer (3333…: turns 1 and 4, 4444…: 1 and 2).
      const expected = [
        [TURNS[0], 'https://repolex.ai/ravel/Memory/m5e947117f3a0b596'],
        [TURNS[3], 'https://repolex.ai/ravel/Memory/m5e947117f3a0b596'],
        [TURNS[4], 'https://repolex.ai/ravel/Memory/ma787db49647d080d'],
        [TURNS[5], 'https://repolex.ai/ravel/Memory/ma787db49647d080d'],
      ];
      for (const service of ['SERVICE', 'SERVICE SILENT']) {
        const query = `SELECT ?turn ?memory WHERE { ?turn owl:sameAs ?a . ${service} <${oxigraphServer.url}> { ?memory <https://repolex.ai/ontology/ravel/fromTurn> ?a } } ORDER BY ?turn`;
        assert.deepEqual(rows(await runFederated(store, query, federation), 'turn', 'memory'), expected, service);
      }
    } finally {
      await oxigraphServer.close();
    }
  });

  test('a document source whose server answers with an HTTP error is named as unreachable with its status (Comunica\'s "Could not retrieve URL (HTTP status 503):" was a 400 at the server)', async () => {
    const down = await startRawEndpoint((res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    const document = down.url.replace(/\/sparql$/, '/pool.ttl');
    try {
      await assert.rejects(
        runFederated(store, 'SELECT * WHERE { ?s ?p ?o } LIMIT 1', { sources: [document], allow: [document] }),
        (e: Error) => {
          assert.ok(e instanceof UnreachableSource);
          assert.equal(e.message, `${document} answered HTTP 503 Service Unavailable`);
          return true;
        },
      );
    } finally {
      down.close();
    }
  });

  test('an endpoint off the allow-list is refused before anything is sent', async () => {
    const before = soul.requests;
    await assert.rejects(runFederated(store, await example('turn-moment-memory.rq'), { sources: [POOL], allow: [] }), (e: Error) => {
      assert.ok(e instanceof FederationError);
      assert.equal(
        e.message,
        `SERVICE <${soul.url}> is not on the allow-list (empty: start the server, or run the query, with --service-allow URL)`,
      );
      return true;
    });
    await assert.rejects(
      runFederated(store, 'SELECT * WHERE { ?s ?p ?o }', { sources: [soul.url], allow: [] }),
      /the source http:\/\/127\.0\.0\.1:\d+\/sparql is not on the allow-list/,
    );
    await assert.rejects(
      runFederated(store, 'SELECT * WHERE { ?e a ?t . SERVICE ?e { ?s ?p ?o } }', federation()),
      /SERVICE with a variable endpoint is refused/,
    );
    assert.equal(soul.requests, before);
  });

  test("the guide's weave query --source --service-allow, run as it is written (with this test's Soul endpoint)", async () => {
    const line = /^weave query --source .*$/m.exec(await readFile(join(REPO, 'docs', 'guide.md'), 'utf8'))![0];
    assert.equal(
      line,
      `weave query --source fixtures/federation/pool.ttl --service-allow ${NAMED_SOUL} -f fixtures/federation/turn-moment-memory.rq`,
    );
    const file = join(dir, 'turn-moment-memory.rq');
    await writeFile(file, await example('turn-moment-memory.rq'));
    const args = line.replace(NAMED_SOUL, soul.url).replace('fixtures/federation/turn-moment-memory.rq', file).split(' ').slice(1);
    const { stdout } = await promisify(execFile)(WEAVE, [...args, '--store', dir, '--format', 'tsv'], { cwd: REPO });
    assert.equal(
      stdout,
      '?turn\t?moment\t?caption\t?memory\t?text\n' +
        `<${TURN('5e55e55e-0000-4000-8000-000000000004')}>\t<https://repolex.ai/pool/Moment/m-0001>\t"Two entries: README.md and src."\t<https://repolex.ai/ravel/Memory/m5e947117f3a0b596>\t"Asked: What is in this folder? Answered: Two entries: README.md and src."\n`,
    );
  });
});

test('weave query refuses an endpoint off the allow-list before it opens the store (here there is none to open)', async () => {
  const endpoint = 'http://127.0.0.1:9/sparql';
  const failed = await promisify(execFile)(
    WEAVE,
    [
      'query',
      `SELECT * WHERE { SERVICE <${endpoint}> { ?s ?p ?o } }`,
      '--service-allow',
      'http://127.0.0.1:8/sparql',
      '--store',
      join(REPO, 'no-such-store'),
    ],
    { cwd: REPO },
  ).then(
    () => undefined,
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  assert.deepEqual(failed && [failed.code, failed.stdout, failed.stderr], [
    1,
    '',
    `weave query: SERVICE <${endpoint}> is not on the allow-list (http://127.0.0.1:8/sparql)\n`,
  ]);
});

test('weave query tells a trap of the store inside a federated join in one line, as a server answers 507, not with a stack trace', async () => {
  // An allowed endpoint binds a triple term nested 1000 deep; joined with the store, Oxigraph's
  // WebAssembly traps parsing it, an error Comunica leaves unhandled: the command died with
  // node's stack trace ("wasm://wasm/…", "RuntimeError: memory access out of bounds", …).
  let nested: unknown = { type: 'uri', value: 'urn:b' };
  for (let i = 0; i < 1000; i++)
    nested = {
      type: 'triple',
      value: { subject: { type: 'uri', value: 'urn:a' }, predicate: { type: 'uri', value: 'urn:p' }, object: nested },
    };
  const deep = await startRawEndpoint((res) => {
    res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
    res.end(JSON.stringify({ head: { vars: ['o'] }, results: { bindings: [{ o: nested }] } }));
  });
  const { dir } = await ingestFresh([join(FIXTURES, 'spine')]);
  try {
    const query = `SELECT ?c WHERE { SERVICE <${deep.url}> { ?x <urn:q> ?o } ?c rdf:reifies ?o }`;
    const failed = await promisify(execFile)(WEAVE, ['query', query, '--service-allow', deep.url, '--store', dir], { cwd: REPO }).then(
      () => undefined,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    assert.deepEqual(failed && [failed.code, failed.stdout, failed.stderr.split('\n').length], [1, '', 2], failed?.stderr);
    assert.match(
      failed!.stderr,
      new RegExp(
        `^weave query: the query "${query.replace(/[?{}<>.*()]/g, '\\$&')}" stopped the store inside WebAssembly \\(memory access out of bounds\\)`,
      ),
    );
  } finally {
    deep.close();
    await removeDir(dir);
  }
});

describe('a federated query over sessions that hold copies of one call', () => {
  // fixtures/model/resumed-session: B goes on from A with copies of A's lines 7 and 8, so one call
  // and one tool use are stated in both graphs (test/model/identity.test.ts works the figures out).
  let dir: string;
  let store: oxigraph.Store;
  before(async () => {
    ({ dir, store } = await ingestFresh([join(FIXTURES, 'model', 'resumed-session')]));
  });
  after(() => removeDir(dir));

  test('counts each call once over the default graph, and once per session inside GRAPH, as Oxigraph answers it', async () => {
    const query = `SELECT ?n ?perSession WHERE { { SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:LlmCall } }
      { SELECT (COUNT(?c) AS ?perSession) WHERE { GRAPH ?g { ?c a weave:LlmCall } } } }`;
    const local = JSON.parse(runQuery(store, query, { results_format: 'json' }) as string) as JsonResults;
    assert.deepEqual(
      local.results!.bindings.map((b) => [b.n.value, b.perSession.value]),
      [['6', '7']],
    );
    // The cardinality Comunica plans with is the merge's too (a graph variable reaches the source as null).
    const type = rdf.namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
    const call = rdf.namedNode('https://repolex.ai/ontology/weave#LlmCall');
    assert.equal(storeSource(store).countQuads(null, type, call, rdf.defaultGraph()), 6);
    assert.equal(storeSource(store).countQuads(null, type, call, null), 7);
    // The Pool file is a second source: its triples are in the default graph, and stay there.
    const federated = await runFederated(store, query, { sources: [POOL], allow: [] });
    assert.deepEqual(rows(federated, 'n', 'perSession'), [['6', '7']]);
    const moments = await runFederated(store, `SELECT (COUNT(?m) AS ?n) WHERE { ?m a <${COPIA}Moment> }`, { sources: [POOL], allow: [] });
    assert.deepEqual(rows(moments, 'n'), [['3']], "pool.ttl's three moments");
  });
});
