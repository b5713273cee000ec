import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import oxigraph from 'oxigraph';
import { main as exportMain } from '../../src/cli/export.ts';
import { parseQueryArgs } from '../../src/client/query.ts';
import { defaultMode, exportFormats, exportStore } from '../../src/export/export.ts';
import { planExport } from '../../src/export/graphs.ts';
import { type Format, FORMATS } from '../../src/query/formats.ts';
import { NoTripleTermsError, writeGraph } from '../../src/query/graph-results.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { acceptedTypes } from '../../src/server/http/media.ts';
import { REPO, SESSION_A, SESSION_B, startTestServer, type TestServer } from '../server/helpers.ts';

/**
 * src/query/formats.ts is the one table of formats: `weave export`, `weave query --format` and
 * the endpoint's negotiation offer every format it lists under the same name and media type,
 * and a format added to it reaches all three with no other edit.
 */

const WEAVE = join(REPO, 'bin', 'weave');
const run = promisify(execFile);
const SESSION_ID = 'https://repolex.ai/ontology/weave#sessionId';
const SELECT = `SELECT ?id WHERE { ?t <${SESSION_ID}> ?id } ORDER BY ?id`;
const CONSTRUCT = `CONSTRUCT { ?t <${SESSION_ID}> ?id } WHERE { ?t <${SESSION_ID}> ?id }`;

/** The table as clients see it: name, media type, what it carries. */
const TABLE = [
  ['json', 'application/sparql-results+json', 'solutions'],
  ['xml', 'application/sparql-results+xml', 'solutions'],
  ['csv', 'text/csv', 'solutions'],
  ['tsv', 'text/tab-separated-values', 'solutions'],
  ['turtle', 'text/turtle', 'graph'],
  ['ntriples', 'application/n-triples', 'graph'],
  ['nquads', 'application/n-quads', 'dataset'],
  ['trig', 'application/trig', 'dataset'],
  ['jsonld', 'application/ld+json', 'dataset'],
  ['rdfxml', 'application/rdf+xml', 'graph'],
];

/** Oxigraph's N3 is Turtle, and n3 writes N3: a syntax neither the code nor the table knew. */
const NOTATION3: Format = {
  name: 'notation3',
  label: 'N3',
  mediaType: 'text/n3',
  extensions: ['n3'],
  names: ['notation-3'],
  accepts: ['text/rdf+n3'],
  reads: [],
  carries: 'graph',
  tripleTerms: { '1.1': '1.1', star: '1.1' },
  xml: false,
  n3: 'N3',
};

/** The weave:sessionId statements of an RDF document, as `graph id` (the default graph as `-`). */
function sessionIds(text: string, mediaType: string): string[] {
  const store = new oxigraph.Store();
  store.load(text, { format: mediaType, base_iri: 'http://example.org/' });
  return store
    .match(null, oxigraph.namedNode(SESSION_ID), null, null)
    .map((q) => `${q.graph.termType === 'DefaultGraph' ? '-' : q.graph.value} ${q.object.value}`)
    .sort();
}

/** An export run in this process, as text. */
async function exported(dir: string, name: string, mode = defaultMode(exportFormats().find((f) => f.name === name)!)): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write: (chunk, _e, done) => {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  await exportStore(await planExport(dir), name, mode, sink);
  return Buffer.concat(chunks).toString('utf8');
}

describe('the table of formats', () => {
  let server: TestServer;
  /** The two sessions' ids, in the default graph (a merged or one-graph answer). */
  const merged = [`- ${SESSION_A}`, `- ${SESSION_B}`];

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test('lists each format once, by name and media type', () => {
    assert.deepEqual(
      FORMATS.map((f) => [f.name, f.mediaType, f.carries]),
      TABLE,
    );
    const keys = FORMATS.flatMap((f) => [f.name, f.mediaType]);
    assert.equal(new Set(keys).size, 20);
  });

  test('the endpoint answers in every format, by each of its names and media types', async () => {
    for (const format of FORMATS) {
      const query = format.carries === 'solutions' ? SELECT : CONSTRUCT;
      const asks: [string, RequestInit][] = [
        ...[format.name, ...format.names].map((name): [string, RequestInit] => [`&format=${encodeURIComponent(name)}`, {}]),
        ...[format.mediaType, ...format.accepts].map((type): [string, RequestInit] => ['', { headers: { accept: type } }]),
      ];
      for (const [param, init] of asks) {
        const res = await fetch(`${server.base}/sparql?query=${encodeURIComponent(query)}${param}`, init);
        const body = await res.text();
        assert.equal(res.status, 200, `${format.name} ${param}: ${body}`);
        assert.equal(
          res.headers.get('content-type'),
          `${format.mediaType}; charset=utf-8`,
          `${format.name} ${param} ${JSON.stringify(init)}`,
        );
        if (format.carries === 'solutions') assert.ok(body.indexOf(SESSION_A) < body.indexOf(SESSION_B) && body.includes(SESSION_A), body);
        else assert.deepEqual(sessionIds(body, format.mediaType), merged, format.name);
      }
    }
  });

  test('weave query --format writes every format, by its name', async () => {
    // Asked of the server running for the store, as a user's command is (test/client/resident.test.ts
    // has the same bytes from a command opening the store itself): a store opened once, not twelve times.
    const asking = { ...process.env, WEAVE_NO_DAEMON: '' };
    for (const format of FORMATS) {
      const query = format.carries === 'solutions' ? SELECT : CONSTRUCT;
      const args = ['query', '--store', server.storeDir, '--format', format.name, query];
      const { stdout } = await run(WEAVE, args, { encoding: 'utf8', env: asking });
      if (format.carries === 'solutions')
        assert.ok(stdout.indexOf(SESSION_A) < stdout.indexOf(SESSION_B) && stdout.includes(SESSION_A), stdout);
      else assert.deepEqual(sessionIds(stdout, format.mediaType), merged, format.name);
    }
  });

  test('weave export writes every graph syntax, named graphs in the dataset syntaxes', async () => {
    const graphs = FORMATS.filter((f) => f.carries !== 'solutions');
    assert.deepEqual(
      exportFormats().map((f) => f.name),
      graphs.map((f) => f.name),
    );
    const inGraphs = [`${sessionGraphIri('local', SESSION_A)} ${SESSION_A}`, `${sessionGraphIri('local', SESSION_B)} ${SESSION_B}`];
    for (const format of graphs)
      assert.deepEqual(
        sessionIds(await exported(server.storeDir, format.name), format.mediaType),
        format.carries === 'dataset' ? inGraphs : merged,
        format.name,
      );
  });

  describe('a format added to the table', () => {
    before(() => {
      FORMATS.push(NOTATION3);
    });
    after(() => {
      FORMATS.splice(FORMATS.indexOf(NOTATION3), 1);
    });

    test('is negotiated by the endpoint, by name and by media type', () => {
      for (const name of ['notation3', 'notation-3']) assert.deepEqual(acceptedTypes('graph', '*/*', name), ['text/n3']);
      assert.deepEqual(acceptedTypes('graph', 'text/n3'), ['text/n3']);
      assert.deepEqual(acceptedTypes('graph', 'text/rdf+n3;q=0.9, application/trig;q=0.5'), ['text/n3', 'application/trig']);
      // Offered last, after the formats before it in the table; never for solutions.
      assert.equal(acceptedTypes('graph', undefined).at(-1), 'text/n3');
      assert.deepEqual(acceptedTypes('solutions', 'text/n3', 'notation3'), []);
    });

    test('is a --format of weave query, and its answers are written in it with the fallback the table gives', async () => {
      const request = await parseQueryArgs([CONSTRUCT, '--format', 'notation3', '--store', server.storeDir]);
      assert.equal(request?.mediaType, 'text/n3');
      await assert.rejects(parseQueryArgs([SELECT, '--format', 'notation3']), {
        message:
          '--format notation3 is for graphs (CONSTRUCT, DESCRIBE); a SELECT or ASK answers with solutions: use table, json, xml, csv, tsv',
      });
      // One claim: RDF-star falls back to RDF 1.1 reification, four statements; RDF 1.2 is refused.
      const claim = '<urn:r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <urn:a> <urn:p> <urn:b> )>> .\n';
      const star = new oxigraph.Store();
      star.load(writeGraph(claim, 'text/n3', 'star'), { format: 'text/n3' });
      assert.equal(star.size, 4);
      assert.throws(() => writeGraph(claim, 'text/n3', '1.2'), NoTripleTermsError);
    });

    test('is written by weave export, with n3 as its writer', async () => {
      await assert.rejects(exportMain(['--store', server.storeDir, '--format', 'n3']), {
        message: 'unknown --format "n3" (one of turtle, ntriples, nquads, trig, jsonld, rdfxml, notation3)',
      });
      const text = await exported(server.storeDir, 'notation3');
      assert.match(text, /^@prefix weave: <https:\/\/repolex\.ai\/ontology\/weave#>\.$/m);
      assert.deepEqual(sessionIds(text, 'text/n3'), merged);
      // The same statements as N-Triples, triple terms as RDF 1.1 reification (its default mode).
      const statements = (t: string, type: string) => {
        const store = new oxigraph.Store();
        store.load(t, { format: type, base_iri: 'http://example.org/' });
        return store.size;
      };
      assert.equal(statements(text, 'text/n3'), statements(await exported(server.storeDir, 'ntriples', '1.1'), 'application/n-triples'));
    });
  });
});
