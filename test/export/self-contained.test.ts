import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import oxigraph from 'oxigraph';
import { alignmentGraphIri } from '../../src/align/ravel.ts';
import { type ExportFormat, exportStore } from '../../src/export/export.ts';
import { planExport } from '../../src/export/graphs.ts';
import { envelopeValues, termStatements } from '../../src/export/self-contained.ts';
import { parseQuadLine, type QuadText } from '../../src/rdf/nquads.ts';
import type { RdfMode } from '../../src/rdf/rdf-mode.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { termText } from '../../src/rdf/terms.ts';
import { ONTOLOGY_GRAPH, sparqlPrefixes, WEAVE_NS } from '../../src/rdf/vocab.ts';
import { FIXTURES, REPO, ingestFresh, removeDir, select } from '../helpers.ts';

/**
 * A self-contained export (src/export/self-contained.ts) states each record's envelope values,
 * the ontology's statements of its terms and its turns' alignment with ravel. The session is
 * fixtures/readers' prompts session b0b0…: 17 records, every one a user or assistant turn with a
 * uuid (so ravel names each), all in /home/ada/weave-readers on branch main as an external user;
 * version 2.1.119 but for lines 15 and 17 (2.0.76), not a sidechain but for line 14; no slug,
 * entrypoint or agentId.
 */

const SESSION = 'b0b0b0b0-b0b0-4b0b-8b0b-b0b0b0b0b0b0';
const GRAPH = sessionGraphIri('local', SESSION);
const W = (name: string) => `<${WEAVE_NS}${name}>`;
const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));
const execute = promisify(execFile);
const ENVELOPE_QUERY = readFile(join(REPO, 'queries', 'record-envelope.rq'), 'utf8');

/** The envelope a plain query reads off a graph, with no GRAPH, MINUS or weave:lacks: as another tool asks it. */
const PLAIN_ENVELOPE = `SELECT ?event ?property ?value WHERE {
  VALUES ?property { weave:cwd weave:gitBranch weave:cliVersion weave:userType weave:sessionNickname weave:entrypoint
                     weave:recordSessionId weave:recordAgentId weave:isSidechain }
  ?transcript weave:sessionId "${SESSION}" ; weave:hasEvent ?event . ?event ?property ?value }`;

const rowKey = (r: Record<string, string>) => `${r.event} ${r.property} ${r.value}`;

async function exported(dir: string, format: ExportFormat, mode: RdfMode, selfContained: boolean): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write: (chunk, _e, done) => {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  await exportStore(await planExport(dir, { sessions: [SESSION] }), format, mode, sink, undefined, { selfContained });
  return Buffer.concat(chunks).toString('utf8');
}

function quadsOf(nquads: string): QuadText[] {
  return nquads
    .split('\n')
    .map((l) => parseQuadLine(l))
    .filter((q) => q !== undefined);
}

describe('a self-contained export answers as Weave does', () => {
  let dir: string;
  let store: oxigraph.Store;
  /** The session graph's lines, as the store's files hold them. */
  let graphQuads: QuadText[];
  /** record-envelope.rq's rows for the session, in Weave. */
  let weaveRows: Set<string>;

  before(async () => {
    ({ dir, store } = await ingestFresh([join(FIXTURES, 'readers')]));
    graphQuads = [];
    for (const source of (await planExport(dir, { graphs: [GRAPH] })).sources)
      if (source.kind === 'nquads') graphQuads.push(...quadsOf((await readFile(source.path)).subarray(0, source.bytes).toString('utf8')));
    weaveRows = new Set(
      select(store, await ENVELOPE_QUERY)
        .filter((r) => r.session === SESSION)
        .map(rowKey),
    );
  });
  after(() => removeDir(dir));

  test('envelopeValues adds each record the transcript values it neither states nor lacks, and they are record-envelope.rq rows', () => {
    const added = envelopeValues(graphQuads);
    const byProperty: Record<string, Record<string, number>> = {};
    for (const q of added) {
      const name = q.p.slice(WEAVE_NS.length + 1, -1);
      byProperty[name] ??= {};
      byProperty[name][termText(q.o)] = (byProperty[name][termText(q.o)] ?? 0) + 1;
      assert.equal(q.g, `<${GRAPH}>`);
    }
    assert.deepEqual(byProperty, {
      cwd: { '/home/ada/weave-readers': 17 },
      gitBranch: { main: 17 },
      userType: { external: 17 },
      recordSessionId: { [SESSION]: 17 },
      cliVersion: { '2.1.119': 15 },
      isSidechain: { false: 16 },
    });
    assert.equal(added.length, 99);
    // The graph with them answers the plain query with exactly record-envelope.rq's rows: 6 properties × 17 records.
    const loaded = new oxigraph.Store();
    loaded.load([...graphQuads, ...added].map((q) => `${q.s} ${q.p} ${q.o} .\n`).join(''), { format: 'application/n-triples' });
    const plain = new Set(select(loaded, sparqlPrefixes() + PLAIN_ENVELOPE).map(rowKey));
    assert.equal(weaveRows.size, 102);
    assert.deepEqual(plain, weaveRows);
    // Without them the plain query misses all but the records' own values: 2.0.76 twice and one sidechain.
    const lean = new oxigraph.Store();
    lean.load(graphQuads.map((q) => `${q.s} ${q.p} ${q.o} .\n`).join(''), { format: 'application/n-triples' });
    assert.equal(select(lean, sparqlPrefixes() + PLAIN_ENVELOPE).length, 3);
  });

  test('the export streams each graph, then its envelope values and turn alignment; at the end the terms it names, described', async () => {
    const lean = (await exported(dir, 'nquads', '1.2', false)).split('\n').filter(Boolean);
    const full = (await exported(dir, 'nquads', '1.2', true)).split('\n').filter(Boolean);
    // The store's lines, every one, in their order; then what is added.
    assert.deepEqual(
      full.filter((l) => lean.includes(l)),
      lean,
    );
    const added = full.filter((l) => !lean.includes(l)).map((l) => parseQuadLine(l)!);
    const inGraph = (g: string) => added.filter((q) => q.g === `<${g}>`).map((q) => `${q.s} ${q.p} ${q.o} .`);
    assert.deepEqual(new Set(inGraph(GRAPH)), new Set(envelopeValues(graphQuads).map((q) => `${q.s} ${q.p} ${q.o} .`)));
    assert.equal(inGraph(GRAPH).length, 99);

    const alignment = alignmentGraphIri('local');
    const uuids = Array.from({ length: 17 }, (_, i) => `b0000000-0000-4000-8000-0000000000${String(i + 1).padStart(2, '0')}`);
    const OWL = 'http://www.w3.org/2002/07/owl#';
    const RAVEL = 'https://repolex.ai/ontology/ravel/';
    assert.deepEqual(inGraph(alignment), [
      ...uuids.map((u) => `<urn:soul:local:Weave/Turn/${u}> <${OWL}sameAs> <https://repolex.ai/ravel/Turn/${u}> .`),
      // ravel.ttl's axioms of the terms the session names: turns, their role, time, id and parent (no claims here).
      `${W('Turn')} <${OWL}equivalentClass> <${RAVEL}Turn> .`,
      `${W('role')} <${OWL}equivalentProperty> <${RAVEL}role> .`,
      `<${RAVEL}timestamp> <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> ${W('timestamp')} .`,
      `<${RAVEL}turnId> <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> ${W('eventId')} .`,
      `<${RAVEL}parentTurn> <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> ${W('parentEvent')} .`,
    ]);

    const ontology = inGraph(ONTOLOGY_GRAPH);
    assert.equal(added.length, 99 + 22 + ontology.length);
    for (const axiom of [
      `${W('AssistantTurn')} ${W('turnRole')} "assistant" .`,
      `${W('UserTurn')} ${W('turnRole')} "user" .`,
      `${W('turnRole')} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${OWL}AnnotationProperty> .`,
      `${W('AssistantTurn')} <http://www.w3.org/2000/01/rdf-schema#subClassOf> ${W('Turn')} .`,
      `${W('cwd')} <http://www.w3.org/2000/01/rdf-schema#label> "working directory" .`,
    ])
      assert.ok(ontology.includes(axiom), axiom);
    // Every weave: term the export names is described; a term it does not name (no claims here) is not.
    const named = new Set(full.flatMap((l) => l.match(/<https:\/\/repolex\.ai\/ontology\/weave#\w+>/g) ?? []));
    const described = new Set(ontology.map((l) => l.split(' ')[0]));
    assert.deepEqual(
      [...named].filter((t) => !described.has(t)),
      [],
    );
    assert.ok(!named.has(W('Claim')));
  });

  test('weave export: self-contained by default for turtle, trig and jsonld, --lean not; --self-contained for the others', async () => {
    // N3's parser prefixes blank node labels with a count of the parsers a process has made: `_:b0_…` in the command's.
    const unprefixed = (text: string) => text.replace(/_:b\d+_/g, '_:');
    const run = async (...args: string[]) =>
      unprefixed((await execute(WEAVE, ['export', '--store', dir, '--session', SESSION, ...args], { maxBuffer: 1 << 26 })).stdout);
    assert.equal(await run(), unprefixed(await exported(dir, 'trig', '1.2', true)));
    assert.equal(await run('--format', 'turtle'), unprefixed(await exported(dir, 'turtle', '1.2', true)));
    assert.equal(await run('--format', 'turtle', '--lean'), await exported(dir, 'turtle', '1.2', false));
    assert.equal(await run('--format', 'nquads'), await exported(dir, 'nquads', '1.2', false));
    assert.equal(await run('--format', 'nquads', '--self-contained'), await exported(dir, 'nquads', '1.2', true));
    await assert.rejects(run('--lean', '--self-contained'), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.equal(e.stderr, 'weave export: --lean and --self-contained exclude each other\n');
      return true;
    });
  });

  test('envelopeValues: a record that lacks a property gets none, and only transcripts with a session id lend values', () => {
    const t = '<urn:t>';
    const g = '<urn:g>';
    const q = (s: string, p: string, o: string): QuadText => ({ s, p, o, g });
    const added = envelopeValues([
      q(t, W('sessionId'), '"s"'),
      q(t, W('cwd'), '"/a"'),
      q(t, W('gitBranch'), '"main"'),
      q(t, W('hasEvent'), '<urn:e1>'),
      q(t, W('hasEvent'), '<urn:e2>'),
      q(t, W('hasEvent'), '<urn:e3>'),
      q('<urn:e2>', W('cwd'), '"/b"'),
      q('<urn:e3>', W('lacks'), W('gitBranch')),
      // No session id: its records are not a transcript's.
      q('<urn:x>', W('cwd'), '"/x"'),
      q('<urn:x>', W('hasEvent'), '<urn:e4>'),
    ]);
    assert.deepEqual(
      added.map((a) => `${a.s} ${a.p.slice(WEAVE_NS.length + 1, -1)} ${a.o}`),
      ['<urn:e1> cwd "/a"', '<urn:e1> gitBranch "main"', '<urn:e2> gitBranch "main"', '<urn:e3> cwd "/a"'],
    );
  });

  test("termStatements: a term's statements, its blank nodes', and those of every weave: term they name, in the ontology's order", () => {
    const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
    const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
    const lines = [
      `${W('A')} <${RDFS}subClassOf> ${W('B')} .`,
      `${W('B')} <${RDFS}label> "b" .`,
      `${W('C')} <${RDFS}label> "c" .`,
      `${W('p')} <${RDFS}domain> _:u .`,
      `_:u <http://www.w3.org/2002/07/owl#unionOf> _:l1 .`,
      `_:l1 <${RDF_NS}first> ${W('A')} .`,
      `_:l1 <${RDF_NS}rest> _:l2 .`,
      `_:l2 <${RDF_NS}first> ${W('D')} .`,
      `_:l2 <${RDF_NS}rest> <${RDF_NS}nil> .`,
      `${W('D')} <${RDFS}label> "d" .`,
    ];
    const ontology = quadsOf(lines.join('\n'));
    const described = (terms: string[]) => termStatements(ontology, terms).map((q) => `${q.s} ${q.p} ${q.o} .`);
    assert.deepEqual(described([W('A')]), lines.slice(0, 2));
    // The domain's union names A and D, and A's superclass B: all but C.
    assert.deepEqual(described([W('p')]), [...lines.slice(0, 2), ...lines.slice(3)]);
    assert.deepEqual(described([W('C'), W('nowhere')]), [lines[2]]);
  });
});

describe('a whole-store self-contained export: the envelope of a session kept in parts', () => {
  let dir: string;
  let store: oxigraph.Store;
  before(async () => {
    ({ dir, store } = await ingestFresh([join(FIXTURES, 'spine')]));
  });
  after(() => removeDir(dir));

  test("a record in the derived part gets its transcript's values too, though the alignment lines come between the parts", async () => {
    // fixtures/spine 1111…'s last line (17, ai-title) is read into the graph's derived part; it lacks every envelope property but its session id.
    const plan = await planExport(dir);
    assert.ok(plan.alignmentGraph);
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write: (chunk, _e, done) => {
        chunks.push(Buffer.from(chunk));
        done();
      },
    });
    await exportStore(plan, 'nquads', '1.2', sink, undefined, { selfContained: true });
    const loaded = new oxigraph.Store();
    loaded.load(Buffer.concat(chunks).toString('utf8'), { format: 'application/n-quads' });
    const plain = `SELECT ?session ?event ?property ?value WHERE {
      VALUES ?property { weave:cwd weave:gitBranch weave:cliVersion weave:userType weave:sessionNickname weave:entrypoint
                         weave:recordSessionId weave:recordAgentId weave:isSidechain }
      GRAPH ?g { ?transcript weave:sessionId ?session ; weave:hasEvent ?event . ?event ?property ?value } }`;
    const rows = select(loaded, sparqlPrefixes() + plain);
    const key = (r: Record<string, string>) => `${r.session} ${r.event} ${r.property} ${r.value}`;
    assert.deepEqual(new Set(rows.map(key)), new Set(select(store, await ENVELOPE_QUERY).map(key)));
    const L17 = 'urn:soul:local:Weave/Event/11111111-1111-4111-8111-111111111111/L17';
    assert.deepEqual(
      rows.filter((r) => r.event === L17).map((r) => [r.property.slice(WEAVE_NS.length), r.value]),
      [['recordSessionId', '11111111-1111-4111-8111-111111111111']],
    );
    // Per session and property: 1111… has 22 records (16 in the main file, 4 and 2 in its sub-agents'), 3 of
    // them metadata with a session id only; 2222… has 6, on a branch given as "" (so none).
    const counts: Record<string, number> = {};
    for (const r of rows) {
      const k = `${r.session.slice(0, 4)} ${r.property.slice(WEAVE_NS.length)}`;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    assert.deepEqual(counts, {
      '1111 cwd': 19,
      '1111 gitBranch': 19,
      '1111 cliVersion': 19,
      '1111 userType': 19,
      '1111 sessionNickname': 19,
      '1111 entrypoint': 19,
      '1111 recordSessionId': 22,
      '1111 recordAgentId': 6,
      '1111 isSidechain': 19,
      '2222 cwd': 6,
      '2222 cliVersion': 6,
      '2222 userType': 6,
      '2222 recordSessionId': 6,
      '2222 recordAgentId': 2,
      '2222 isSidechain': 6,
    });
  });
});

test('the envelope properties are one list: the defaults state only those, and record-envelope.rq names each in all three places', async () => {
  const { ENVELOPE_PROPERTIES, TranscriptDefaults } = await import('../../src/emit/defaults.ts');
  const query = (await readFile(join(REPO, 'queries', 'record-envelope.rq'), 'utf8'))
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n');
  const local = [...ENVELOPE_PROPERTIES].map((p) => `weave:${termText(p).slice(WEAVE_NS.length)}`);
  assert.equal(local.length, 9);
  for (const name of local) assert.equal(query.split(new RegExp(`${name}\\b`)).length - 1, 3, name);
  const { weave } = await import('../../src/rdf/vocab.ts');
  const defaults = new TranscriptDefaults(weave.Transcript);
  assert.throws(() => defaults.state(weave.Turn, weave.sessionId, undefined, []), /not an envelope property/);
});
