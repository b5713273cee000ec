import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sparqlPrefixes } from '../../src/rdf/vocab.ts';
import { REPO, removeDir, tempDir } from '../helpers.ts';
import { SERVER_FIXTURES, startTestServer, type TestServer } from '../server/helpers.ts';
import { findJena, java, missing, python, tsvRows } from './tools.ts';

/**
 * The clients of the Debian era against a live `weave serve`, triple terms included. The server
 * runs with `--rdf 1.1`, its default for clients that cannot add a parameter (SPARQLWrapper and
 * rdflib append `?query=` to the endpoint URL): claims come back as literals in solutions and as
 * RDF 1.1 reification in graphs. Jena 4 reads RDF-star results, so it asks for `rdf=star`.
 */

const CLAIMS = 'SELECT ?claim ?triple WHERE { ?claim a weave:Claim ; rdf:reifies ?triple } ORDER BY ?claim';
const CLAIM_GRAPH = 'CONSTRUCT { ?claim rdf:reifies ?triple } WHERE { ?claim a weave:Claim ; rdf:reifies ?triple }';
/** The server fixtures' two typed prompts, each claimed human/authored by the reader. */
const PROMPTS = ['5e55e55e-0000-4000-8000-000000000001', '7e55e55e-0000-4000-8000-000000000001'];

let server: TestServer;
let expected: string[][];

before(async () => {
  // The readers run after the first ingest, as with weave serve, so the claims are there.
  server = await startTestServer({ rdfMode: '1.1', ingest: { paths: [SERVER_FIXTURES], refreshMs: 0, detect: true } });
  const res = await fetch(`${server.base}/sparql?query=${encodeURIComponent(CLAIMS)}&rdf=1.2`, {
    headers: { accept: 'application/sparql-results+json' },
  });
  const json = (await res.json()) as {
    results: { bindings: { claim: { value: string }; triple: { value: { subject: { value: string } } } }[] };
  };
  expected = json.results.bindings.map((b) => [b.claim.value, b.triple.value.subject.value]);
  assert.deepEqual(expected.map(([, turn]) => turn.split('/').pop()).sort(), PROMPTS);
});
after(() => server?.stop());

/** The claim and the turn its triple is about, from a row whose triple is a literal of its N-Triples text. */
const fromLiteral = (rows: string[][]) => rows.map(([claim, triple]) => [claim, /^<<\( <([^>]+)> /.exec(triple)![1]]);

describe('Python clients (python3-sparqlwrapper 1.8, python3-rdflib 6.1)', {
  skip: missing('/usr/bin/python3', '/usr/lib/python3/dist-packages/SPARQLWrapper'),
}, () => {
  const script = join(REPO, 'test', 'consumers', 'clients.py');
  const ask = async (client: string, query: string) =>
    JSON.parse(await python(script, [`${server.base}/sparql`, client, sparqlPrefixes() + query]));

  test('SPARQLWrapper, its default XML and JSON', async () => {
    assert.deepEqual(fromLiteral(await ask('sparqlwrapper-xml', CLAIMS)), expected);
    assert.deepEqual(fromLiteral(await ask('sparqlwrapper-json', CLAIMS)), expected);
  });

  test('SPARQLWrapper, a CONSTRUCT in RDF/XML: each claim four statements', async () => {
    assert.equal(await ask('sparqlwrapper-rdfxml', CLAIM_GRAPH), 4 * expected.length);
  });

  test("rdflib reads a session graph from the Graph Store in the server's --rdf 1.1: its links reified", async () => {
    const graph = 'urn:soul:local:Weave/graph/44444444-4444-4444-8444-444444444444';
    const answer = JSON.parse(await python(script, [`${server.base}/store`, 'graphstore', graph]));
    // test/server/interop.test.ts: 157 statements, 19 of them `L rdf:reifies <<( s p o )>>`, each now four.
    assert.deepEqual(answer, [157 + 3 * 19, 19]);
  });

  test('rdflib SPARQLStore', async () => {
    assert.deepEqual(fromLiteral(await ask('sparqlstore', CLAIMS)), expected);
  });
});

test('Jena 4.5 rsparql, GET and POST, RDF-star results', async (t) => {
  const jena = await findJena();
  if (typeof jena === 'string') return t.skip(jena);
  const dir = await tempDir();
  try {
    const file = join(dir, 'claims.rq');
    await writeFile(file, sparqlPrefixes() + CLAIMS);
    for (const post of [[], ['--post']]) {
      const { stdout } = await java(jena, 'arq.rsparql', [
        '--service',
        `${server.base}/sparql?rdf=star`,
        '--query',
        file,
        '--results=TSV',
        ...post,
      ]);
      const rows = tsvRows(stdout).map(([claim, triple]) => [claim.slice(1, -1), /^<< <([^>]+)> /.exec(triple)![1]]);
      assert.deepEqual(rows, expected, post.join(' ') || 'GET');
    }
  } finally {
    await removeDir(dir);
  }
});
