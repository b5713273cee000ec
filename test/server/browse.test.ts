import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DataFactory, Parser } from 'n3';
import { ravelTurnIri, TERM_ALIGNMENT_FILE } from '../../src/align/ravel.ts';
import { returnsGraph } from '../../src/query/run.ts';
import { ONTOLOGY_GRAPH } from '../../src/rdf/vocab.ts';
import { ONTOLOGY_FILE } from '../../src/store/ontology.ts';
import { filesOf, readManifest } from '../../src/store/manifest.ts';
import { REPO, SESSION_A, SESSION_B, startTestServer, TURN, type TestServer } from './helpers.ts';

/** Describe pages, VoID, the example queries and the page itself, over a real socket. */

const WEAVE = 'https://repolex.ai/ontology/weave#';
const VOID = 'http://rdfs.org/ns/void#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDF_TYPE = `${RDF}type`;
let server: TestServer;
let queriesDir: string;

before(async () => {
  queriesDir = await mkdtemp(join(tmpdir(), 'weave-queries-'));
  await writeFile(
    join(queriesDir, 'b-turns.rq'),
    '# Turns per role\n# How many turns each role wrote\nSELECT ?role (COUNT(*) AS ?n) WHERE { ?t a/weave:turnRole ?role } GROUP BY ?role\n',
  );
  await writeFile(join(queriesDir, 'a-plain.rq'), 'ASK {}\n');
  await writeFile(join(queriesDir, 'notes.txt'), 'not a query');
  server = await startTestServer({ queriesDir });
});
after(async () => {
  await server.stop();
  await rm(queriesDir, { recursive: true, force: true });
});

const describeUrl = (iri: string, format = '') =>
  `${server.base}/describe?iri=${encodeURIComponent(iri)}${format ? `&format=${format}` : ''}`;

describe('describe pages', () => {
  it('show a Turn in HTML: its blocks in order, the tool call with its input and where its result is, links onward', async () => {
    const res = await fetch(describeUrl(TURN('5e55e55e-0000-4000-8000-000000000002')), { headers: { accept: 'text/html' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await res.text();
    assert.match(html, /<h1>Turn\/5e55e55e-0000-4000-8000-000000000002<\/h1>/);
    assert.match(html, /<span class="label">role<\/span> assistant/);
    assert.match(html, /<span class="label">model<\/span> claude-opus-4-1/);
    const blocks = [...html.matchAll(/<article class="block" id="b-(\d+)">/g)].map((m) => m[1]);
    assert.deepEqual(blocks, ['0', '1']);
    assert.match(html, /id="b-0">.*?<div class="text"><span>I&#39;ll list it\.<\/span><\/div>/s);
    assert.match(html, /id="b-1">.*?tool <strong>Bash<\/strong>.*?&quot;command&quot;: &quot;ls&quot;/s);
    assert.match(html, /result in <a href="\/describe\?iri=urn%3Asoul%3Alocal%3AWeave%2FTurn%2F5e55e55e-0000-4000-8000-000000000003"/);
    // The previous turn, and the turn that replies, are links.
    assert.match(
      html,
      /weave:parentEvent<\/a><\/th><td><a href="\/describe\?iri=urn%3Asoul%3Alocal%3AWeave%2FTurn%2F5e55e55e-0000-4000-8000-000000000001"/,
    );
    assert.match(html, /<h2>Linked from<\/h2>.*Turn\/5e55e55e-0000-4000-8000-000000000003<\/a><\/td><th><a [^>]*>weave:parentEvent/s);
    assert.match(html, new RegExp(`In graphs.*graph/${SESSION_A}`, 's'));
  });

  it('show a tool result answering its call, and escape what the record says', async () => {
    const result = await (await fetch(describeUrl(TURN('5e55e55e-0000-4000-8000-000000000003')))).text();
    assert.match(
      result,
      /answers the tool call <a href="\/describe\?iri=urn%3Asoul%3Alocal%3AWeave%2FContentBlock%2F5e55e55e-0000-4000-8000-000000000002%2F1"/,
    );
    assert.match(result, /<pre>README\.md\nsrc<\/pre>/);
    const hello = await (await fetch(describeUrl(TURN('7e55e55e-0000-4000-8000-000000000001')))).text();
    assert.match(hello, /Say hello &lt;b&gt;now&lt;\/b&gt; &amp; &quot;quickly&quot;/);
    assert.doesNotMatch(hello, /<b>now<\/b>/);
  });

  it('give Turtle or JSON-LD by Accept or format=, and 400 for a non-IRI', async () => {
    const turtle = await fetch(describeUrl(TURN('5e55e55e-0000-4000-8000-000000000002')), { headers: { accept: 'text/turtle' } });
    assert.equal(turtle.headers.get('content-type'), 'text/turtle; charset=utf-8');
    const quads = new Parser({ format: 'text/turtle' }).parse(await turtle.text());
    assert.deepEqual(
      quads
        .filter((q) => q.subject.value === TURN('5e55e55e-0000-4000-8000-000000000002') && q.predicate.value === `${WEAVE}model`)
        .map((q) => q.object.value),
      ['claude-opus-4-1'],
    );
    assert.deepEqual(
      quads.filter((q) => q.predicate.value === `${WEAVE}toolName`).map((q) => [q.subject.value, q.object.value]),
      [[`urn:soul:local:Weave/ContentBlock/5e55e55e-0000-4000-8000-000000000002/1`, 'Bash']],
    );
    assert.ok(
      quads.some((q) => q.subject.value === TURN('5e55e55e-0000-4000-8000-000000000003') && q.predicate.value === `${WEAVE}parentEvent`),
      'incoming links are included',
    );
    const jsonld = await fetch(describeUrl(TURN('5e55e55e-0000-4000-8000-000000000002')), { headers: { accept: 'application/ld+json' } });
    assert.equal(jsonld.headers.get('content-type'), 'application/ld+json; charset=utf-8');
    const doc = JSON.stringify(await jsonld.json());
    assert.match(doc, /claude-opus-4-1/);
    assert.equal(
      (await fetch(describeUrl(TURN('5e55e55e-0000-4000-8000-000000000002'), 'ntriples'))).headers.get('content-type'),
      'application/n-triples; charset=utf-8',
    );
    assert.equal((await fetch(`${server.base}/describe?iri=not%20an%20iri`)).status, 400);
  });

  it("name an ontology term's class union by its members, in HTML and in Turtle, and show its other blank nodes", async () => {
    // ontology/parts/spine.ttl: weave:cwd rdfs:domain [ owl:unionOf ( weave:Transcript weave:Event ) ].
    const html = await (await fetch(describeUrl(`${WEAVE}cwd`), { headers: { accept: 'text/html' } })).text();
    const domain = /rdfs:domain<\/a><\/th><td>(.*?)<\/td><\/tr>/.exec(html)?.[1] ?? '';
    assert.deepEqual(
      [...domain.matchAll(/<a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1]),
      ['weave:Event', 'weave:Transcript'],
    );
    assert.match(domain, /^<span class="union"><a [^>]*>weave:Event<\/a> or <a [^>]*>weave:Transcript<\/a><\/span>$/);
    const turtle = await (await fetch(describeUrl(`${WEAVE}cwd`), { headers: { accept: 'text/turtle' } })).text();
    const quads = new Parser({ format: 'text/turtle' }).parse(turtle);
    const objects = (s: string, p: string) =>
      quads.filter((q) => q.subject.value === s && q.predicate.value === p).map((q) => q.object.value);
    const [union] = objects(`${WEAVE}cwd`, 'http://www.w3.org/2000/01/rdf-schema#domain');
    const members: string[] = [];
    for (
      let [list] = objects(union, 'http://www.w3.org/2002/07/owl#unionOf');
      list && list !== `${RDF}nil`;
      [list] = objects(list, `${RDF}rest`)
    )
      members.push(...objects(list, `${RDF}first`));
    assert.deepEqual(members, [`${WEAVE}Transcript`, `${WEAVE}Event`]);
    // Another blank node (what Claude Code calls an llm.call, ontology/parts/model.ttl) by its statements.
    const llm = await (await fetch(describeUrl(`${WEAVE}LlmCall`), { headers: { accept: 'text/html' } })).text();
    const mapping = /weave:nativeTerm<\/a><\/th><td>(<table class="statements nested">.*?<\/table>)<\/td><\/tr>/s.exec(llm)?.[1] ?? '';
    assert.deepEqual(
      [...mapping.matchAll(/<tr><th><a [^>]*>([^<]*)<\/a><\/th><td>(?:<a [^>]*>|<span>)?([^<]*)/g)].map((m) => [m[1], m[2]]),
      [
        ['rdf:type', 'weave:DialectMapping'],
        ['weave:dialect', 'claude-code/1'],
        ['weave:dialectNote', 'its fragments need not be adjacent; usage is the last fragment&#39;s in line order, never a sum'],
        ['weave:readByDialect', 'true'],
        ['weave:runtimeName', 'message.id'],
        ['weave:runtimeWhere', 'assistant records sharing one'],
      ],
    );
  });
});

describe('VoID', () => {
  it('counts triples, graphs, sessions, classes and properties', async () => {
    const res = await fetch(`${server.base}/void`, { headers: { accept: 'text/turtle' } });
    assert.equal(res.status, 200);
    const quads = new Parser({ format: 'text/turtle' }).parse(await res.text());
    const dataset = `${server.base}/void#dataset`;
    const value = (p: string) =>
      quads.filter((q) => q.subject.value === dataset && q.predicate.value === `${VOID}${p}`).map((q) => q.object.value);
    assert.deepEqual(value('documents'), ['2'], 'two sessions');
    assert.deepEqual(value('sparqlEndpoint'), [`${server.base}/sparql`]);
    const total = (await (
      await fetch(`${server.base}/sparql?query=${encodeURIComponent('SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }')}`)
    ).json()) as { results: { bindings: { n: { value: string } }[] } };
    assert.deepEqual(value('triples'), [total.results.bindings[0].n.value]);
    const subsets = value('subset');
    for (const s of [SESSION_A, SESSION_B]) assert.ok(subsets.includes(`urn:soul:local:Weave/graph/${s}`));
    assert.ok(subsets.includes('https://repolex.ai/ontology/weave'));
    const partition = (cls: string) => {
      const node = quads.find((q) => q.predicate.value === `${VOID}class` && q.object.value === cls)?.subject;
      return quads.find((q) => node && q.subject.equals(node) && q.predicate.value === `${VOID}entities`)?.object.value;
    };
    // By hand from the fixtures: 6 turns, 3 of them the assistant's, one tool call.
    assert.equal(partition(`${WEAVE}Turn`), '6');
    assert.equal(partition(`${WEAVE}AssistantTurn`), '3');
    assert.equal(partition(`${WEAVE}ToolUseBlock`), '1');
    // Every class and property, against the store's own files read by another parser.
    const expected = await storeFigures(server.storeDir);
    assert.deepEqual(value('classes'), [String(expected.classes.size)]);
    assert.deepEqual(value('properties'), [String(expected.properties.size)]);
    const partitions = quads.filter((q) => q.predicate.value === `${VOID}class`).map((q) => [q.object.value, partition(q.object.value)]);
    assert.deepEqual(partitions.sort(), [...expected.classes].map(([c, subjects]) => [c, String(subjects.size)]).sort());
    const properties = quads.filter((q) => q.predicate.value === `${VOID}property`).map((q) => q.object.value);
    assert.deepEqual(properties.sort(), [...expected.properties].sort());
  });
});

/**
 * The classes (with the resources of each) and the properties in the union of the store's graphs,
 * worked out with N3.js from the files the server loaded: each graph file the manifest lists, and
 * the ontology.
 */
async function storeFigures(storeDir: string): Promise<{ classes: Map<string, Set<string>>; properties: Set<string> }> {
  const manifest = await readManifest(storeDir);
  assert.ok(manifest, `a manifest in ${storeDir}`);
  // A session graph is kept in parts (its spine and the part derived from it): each file of each graph, as much of it as named.
  const files = Object.values(manifest.graphs).flatMap((g) => filesOf(g));
  const documents = await Promise.all(
    files.map(async (f) =>
      new Parser({ format: 'application/n-quads' }).parse((await readFile(join(storeDir, f.file))).subarray(0, f.bytes).toString('utf8')),
    ),
  );
  documents.push(new Parser({ format: 'text/turtle', baseIRI: ONTOLOGY_GRAPH }).parse(await readFile(ONTOLOGY_FILE, 'utf8')));
  // The alignment with ravel: its term axioms, and owl:sameAs for each turn (src/align/ravel.ts).
  documents.push(new Parser({ format: 'text/turtle' }).parse(await readFile(TERM_ALIGNMENT_FILE, 'utf8')));
  const turns = documents.flat().filter((q) => q.predicate.value === RDF_TYPE && q.object.value === `${WEAVE}Turn`);
  documents.push(
    turns.map((q) =>
      DataFactory.quad(
        q.subject,
        DataFactory.namedNode('http://www.w3.org/2002/07/owl#sameAs'),
        DataFactory.namedNode(ravelTurnIri(q.subject.value)!),
      ),
    ),
  );
  const classes = new Map<string, Set<string>>();
  const properties = new Set<string>();
  for (const q of documents.flat()) {
    properties.add(q.predicate.value);
    if (q.predicate.value !== RDF_TYPE || q.object.termType !== 'NamedNode') continue;
    if (!classes.has(q.object.value)) classes.set(q.object.value, new Set());
    classes.get(q.object.value)!.add(`${q.subject.termType} ${q.subject.value}`);
  }
  return { classes, properties };
}

describe('the page', () => {
  it('serves YASGUI from the npm package with a same-origin-only policy', async () => {
    const res = await fetch(`${server.base}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self';.*connect-src 'self'/);
    const html = await res.text();
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, 'the page loads nothing from another host');
    const config = JSON.parse(/<script type="application\/json" id="weave-config">(.*?)<\/script>/s.exec(html)![1]);
    assert.equal(config.endpoint, '/sparql');
    assert.equal(config.tripleTermsParam, 'triple-terms');
    for (const [path, type] of [
      ['/assets/yasgui.min.js', 'text/javascript; charset=utf-8'],
      ['/assets/yasgui.min.css', 'text/css; charset=utf-8'],
      ['/assets/page.js', 'text/javascript; charset=utf-8'],
      ['/assets/weave.css', 'text/css; charset=utf-8'],
    ]) {
      const asset = await fetch(`${server.base}${path}`);
      assert.equal(asset.status, 200, path);
      assert.equal(asset.headers.get('content-type'), type);
    }
    assert.equal((await fetch(`${server.base}/assets/../../package.json`)).status, 404);
  });

  it('lists the .rq files of the queries folder as examples, read at request time', async () => {
    const first = (await (await fetch(`${server.base}/examples`)).json()) as { name: string; title: string; description: string }[];
    assert.deepEqual(
      first.map((e) => [e.name, e.title, e.description]),
      [
        ['a-plain', 'a plain', ''],
        ['b-turns', 'b turns', 'Turns per role How many turns each role wrote'],
      ],
    );
    await writeFile(join(queriesDir, 'c-new.rq'), '# Added later\nASK {}\n');
    const second = (await (await fetch(`${server.base}/examples`)).json()) as { name: string }[];
    assert.deepEqual(
      second.map((e) => e.name),
      ['a-plain', 'b-turns', 'c-new'],
    );
  });
});

describe('the queries of queries/', () => {
  it('each runs on the endpoint', async () => {
    // A missing or empty folder fails here rather than passing with nothing run.
    const dir = join(REPO, 'queries');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.rq'));
    assert.ok(files.length > 0, `no .rq files in ${dir}`);
    for (const file of files) {
      const query = await readFile(join(dir, file), 'utf8');
      const res = await fetch(`${server.base}/sparql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/sparql-query',
          accept: returnsGraph(query) ? 'text/turtle' : 'application/sparql-results+json',
        },
        body: query,
      });
      assert.equal(res.status, 200, `${file}: ${res.status} ${res.status === 200 ? '' : await res.text()}`);
    }
  });
});
