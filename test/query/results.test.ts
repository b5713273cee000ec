import assert from 'node:assert/strict';
import { test } from 'node:test';
import oxigraph from 'oxigraph';
import { NoTripleTermsError, NotXmlGraphError, writeGraph } from '../../src/query/graph-results.ts';
import { NotXmlError, writeSolutions } from '../../src/query/solutions.ts';
import type { JsonResults } from '../../src/query/table.ts';
import { HttpError } from '../../src/server/errors.ts';
import type { QueryJob } from '../../src/server/messages.ts';
import { runQueryJob } from '../../src/server/workers/operations/query.ts';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const CLAIM = `<urn:claim> <${RDF}reifies> <<( <urn:turn> <urn:exhibits> "human/authored" )>> <urn:g> .\n`;
/** A quoted terminal line: ESC, which XML 1.0 cannot carry, beside markup characters and a CR. */
const TERMINAL = '<urn:turn> <urn:text> "\\u001B[31mred\\u001B[0m <b> & \\r\\n" <urn:g> .\n';

function store(nquads: string): oxigraph.Store {
  const s = new oxigraph.Store();
  s.load(nquads, { format: 'application/n-quads' });
  return s;
}

function job(query: string, accept: string[], tripleTerms: QueryJob['tripleTerms'] = '1.2', graphResult = false): QueryJob {
  return {
    op: 'query',
    query,
    graphResult,
    defaultGraphs: [],
    namedGraphs: [],
    accept,
    baseIri: 'http://x/',
    tripleTerms,
    maxResultBytes: 1e6,
  };
}

const text = (r: { body?: Uint8Array }) => new TextDecoder().decode(r.body);

test('SELECT with triple terms: RDF 1.2 JSON and XML, RDF-star TSV, RDF 1.1 literals in every format', () => {
  const s = store(CLAIM);
  const q = 'SELECT ?c ?t WHERE { ?c rdf:reifies ?t }';
  const xml = text(runQueryJob(s, job(q, ['application/sparql-results+xml'])));
  assert.match(
    xml,
    /<binding name="t"><triple><subject><uri>urn:turn<\/uri><\/subject><predicate><uri>urn:exhibits<\/uri><\/predicate><object><literal>human\/authored<\/literal><\/object><\/triple><\/binding>/,
  );
  assert.equal(
    text(runQueryJob(s, job(q, ['text/tab-separated-values'], 'star'))),
    '?c\t?t\n<urn:claim>\t<< <urn:turn> <urn:exhibits> "human/authored" >>\n',
  );
  const literal = '<<( <urn:turn> <urn:exhibits> "human/authored" )>>';
  for (const tripleTerms of ['1.1', 'literal'] as const) {
    const json = JSON.parse(text(runQueryJob(s, job(q, ['application/sparql-results+json'], tripleTerms)))) as JsonResults;
    assert.deepEqual(json.results!.bindings[0].t, { type: 'literal', value: literal });
    assert.match(
      text(runQueryJob(s, job(q, ['application/sparql-results+xml'], tripleTerms))),
      /<binding name="t"><literal>&lt;&lt;\( &lt;urn:turn&gt; &lt;urn:exhibits&gt; "human\/authored" \)&gt;&gt;<\/literal><\/binding>/,
    );
  }
});

test('CSV writes a triple term as the SPARQL 1.2 CSV draft does: <<( s p o )>> of the values, a literal object in quotes', () => {
  // The draft's own example (its "Carol" row), beside a claim: quotes inside the literal, and a comma.
  const CAROL = `<urn:claim2> <${RDF}reifies> <<( <http://example/carol> <http://example/says> "Hello world, my name is \\"Alice\\"." )>> <urn:g> .\n`;
  const s = store(CLAIM + CAROL);
  const q = 'SELECT ?c ?t WHERE { ?c rdf:reifies ?t } ORDER BY ?c';
  assert.equal(
    text(runQueryJob(s, job(q, ['text/csv']))),
    'c,t\r\n' +
      'urn:claim,"<<( urn:turn urn:exhibits ""human/authored"" )>>"\r\n' +
      'urn:claim2,"<<( http://example/carol http://example/says ""Hello world, my name is """"Alice""""."" )>>"\r\n',
  );
  assert.equal(
    text(runQueryJob(s, job(q, ['text/csv'], 'star'))).split('\r\n')[1],
    'urn:claim,"<< urn:turn urn:exhibits ""human/authored"" >>"',
  );
  // TSV is N-Triples, as Oxigraph writes it.
  assert.equal(
    text(runQueryJob(s, job(q, ['text/tab-separated-values']))).split('\n')[1],
    '<urn:claim>\t<<( <urn:turn> <urn:exhibits> "human/authored" )>>',
  );
});

test('CONSTRUCT with triple terms: RDF 1.1 reification in RDF/XML and JSON-LD, RDF-star in Turtle and N-Triples', () => {
  const s = store(CLAIM);
  const q = 'CONSTRUCT { ?c rdf:reifies ?t } WHERE { ?c rdf:reifies ?t }';
  for (const format of ['application/rdf+xml', 'application/ld+json']) {
    const back = new oxigraph.Store();
    back.load(text(runQueryJob(s, job(q, [format], '1.1', true))), { format, base_iri: 'http://x/' });
    assert.deepEqual(
      back
        .match()
        .map((x) => `${x.predicate.value} ${x.object.value}`)
        .sort(),
      [`${RDF}object human/authored`, `${RDF}predicate urn:exhibits`, `${RDF}subject urn:turn`, `${RDF}type ${RDF}Statement`],
    );
  }
  assert.equal(
    text(runQueryJob(s, job(q, ['application/n-triples'], 'star', true))),
    `<urn:claim> <${RDF}reifies> << <urn:turn> <urn:exhibits> "human/authored" >> .\n`,
  );
  assert.match(
    text(runQueryJob(s, job(q, ['text/turtle'], 'star', true))),
    /^<urn:claim> rdf:reifies << <urn:turn> <urn:exhibits> "human\/authored" >> \.$/m,
  );
  // RDF 1.2 as it is; JSON-LD cannot carry it, so the next format the client accepts is used, else 406.
  assert.equal(runQueryJob(s, job(q, ['application/ld+json', 'application/n-triples'], '1.2', true)).mediaType, 'application/n-triples');
  assert.throws(() => writeGraph(CLAIM, 'application/ld+json'), NoTripleTermsError);
});

test('XML is never ill-formed: text XML 1.0 cannot carry makes the next acceptable format answer, or a 406 that says why', () => {
  const s = store(TERMINAL);
  const select = 'SELECT ?t WHERE { ?s <urn:text> ?t }';
  assert.throws(
    () =>
      writeSolutions(
        JSON.parse(s.query(select, { results_format: 'json', use_default_graph_as_union: true }) as string),
        'application/sparql-results+xml',
      ),
    (e: Error) => e instanceof NotXmlError && /2 characters XML 1\.0 cannot carry \(U\+001B\)/.test(e.message),
  );
  assert.equal(
    runQueryJob(s, job(select, ['application/sparql-results+xml', 'application/sparql-results+json'])).mediaType,
    'application/sparql-results+json',
  );
  assert.throws(
    () => runQueryJob(s, job(select, ['application/sparql-results+xml'])),
    (e: Error) =>
      e instanceof HttpError && e.status === 406 && /cannot be SPARQL XML; accept application\/sparql-results\+json/.test(e.message),
  );
  const construct = 'CONSTRUCT WHERE { ?s <urn:text> ?t }';
  assert.throws(
    () => writeGraph(TERMINAL, 'application/rdf+xml'),
    (e: Error) => e instanceof NotXmlGraphError && /1 statement with characters XML 1\.0 cannot carry/.test(e.message),
  );
  assert.equal(runQueryJob(s, job(construct, ['application/rdf+xml', 'text/turtle'], '1.2', true)).mediaType, 'text/turtle');
  // Markup and CR survive XML: escaped, and CR as a reference (a parser would turn a raw one into LF).
  const plain = store('<urn:turn> <urn:text> "<b> & \\r\\n" <urn:g> .\n');
  assert.match(text(runQueryJob(plain, job(select, ['application/sparql-results+xml']))), /<literal>&lt;b&gt; &amp; &#13;\n<\/literal>/);
});
