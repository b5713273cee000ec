import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import oxigraph from 'oxigraph';
import { Writable } from 'node:stream';
import { progressBar, STAR_WARNING } from '../../src/cli/export.ts';
import { type ExportFormat, exportStore, withoutGraph } from '../../src/export/export.ts';
import { planExport } from '../../src/export/graphs.ts';
import type { RdfMode } from '../../src/rdf/rdf-mode.ts';
import { NOT_XML_CHAR } from '../../src/rdf/xml.ts';
import { FIXTURES, ingestFresh, removeDir } from '../helpers.ts';

const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));
const execute = promisify(execFile);
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const MEDIA: Record<string, string> = {
  trig: 'application/trig',
  nquads: 'application/n-quads',
  turtle: 'text/turtle',
  ntriples: 'application/n-triples',
  jsonld: 'application/ld+json',
  rdfxml: 'application/rdf+xml',
};

async function weave(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/**
 * Every quad of a store as N-Quads lines, sorted: two stores hold the same data when these are
 * equal. Blank node labels are not kept by any syntax, so they are left out (the ontology's
 * few blank nodes are then compared by what is said of them).
 */
function canonical(store: oxigraph.Store, flatten = false): string[] {
  const lines = new Set<string>();
  for (const q of store.match())
    lines.add((flatten ? oxigraph.triple(q.subject, q.predicate, q.object).toString() : q.toString()).replace(/_:[A-Za-z0-9]+/g, '_:'));
  return [...lines].sort();
}

/** An export run in this process, as text. */
async function exported(dir: string, format: ExportFormat, mode: RdfMode, filter: Parameters<typeof planExport>[1] = {}): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write: (chunk, _e, done) => {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  await exportStore(await planExport(dir, filter), format, mode, sink);
  return Buffer.concat(chunks).toString('utf8');
}

function load(text: string, format: string): oxigraph.Store {
  const store = new oxigraph.Store();
  store.load(text, { format: MEDIA[format], base_iri: 'http://example.org/' });
  return store;
}

describe('weave export streams the graph files', () => {
  let dir: string;
  let store: oxigraph.Store;
  /** rdf:reifies statements in the store: each becomes four in RDF 1.1. */
  let reifies: number;
  const text: Record<string, string> = {};

  before(async () => {
    ({ dir, store } = await ingestFresh([FIXTURES]));
    reifies = store.match(null, oxigraph.namedNode(`${RDF}reifies`), null, null).length;
    assert.ok(reifies > 100, `only ${reifies} reifiers in the fixtures`);
    for (const [format, mode] of [
      ['trig', '1.2'],
      ['turtle', '1.2'],
      ['ntriples', '1.2'],
      ['nquads', '1.1'],
      ['trig', '1.1'],
      ['jsonld', '1.1'],
      ['nquads', 'star'],
    ] as const)
      text[`${format} ${mode}`] = await exported(dir, format, mode);
    // The command itself, once: written aside and renamed, and no progress bar when stderr is not a terminal.
    const out = join(dir, 'export.nq');
    const r = await weave(['export', '--store', dir, '--format', 'nquads', '-o', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    text['nquads 1.2'] = await readFile(out, 'utf8');
  });
  after(() => removeDir(dir));

  test('TriG and N-Quads hold exactly the store that `weave query` opens: graphs, ontology and alignment included', () => {
    const expected = canonical(store);
    assert.deepEqual(canonical(load(text['trig 1.2'], 'trig')), expected);
    assert.deepEqual(canonical(load(text['nquads 1.2'], 'nquads')), expected);
    // Turtle declares the prefixes once, and writes prefixed names.
    assert.match(text['trig 1.2'], /^@prefix weave: <https:\/\/repolex\.ai\/ontology\/weave#>\.$/m);
    assert.match(text['trig 1.2'], /\ba weave:Event, weave:Turn, weave:UserTurn;$/m);
  });

  test('N-Quads states each quad once: as many lines as the store holds quads', () => {
    // A listing of plugin skills (fixtures/records 3333…, line 7) once stated "docs" twice in one graph.
    const lines = text['nquads 1.2'].split('\n').filter(Boolean);
    assert.deepEqual([new Set(lines).size, lines.length], [store.size, store.size]);
  });

  test('Turtle and N-Triples merge the graphs into one', () => {
    const expected = canonical(store, true);
    assert.deepEqual(canonical(load(text['turtle 1.2'], 'turtle')), expected);
    assert.deepEqual(canonical(load(text['ntriples 1.2'], 'ntriples')), expected);
  });

  test('--rdf 1.1: no triple term left, each reifier now four statements, nothing else changed', () => {
    for (const key of ['nquads 1.1', 'trig 1.1', 'jsonld 1.1']) {
      const loaded = load(text[key], key.split(' ')[0]);
      assert.equal(loaded.size, store.size + 3 * reifies, key);
      assert.equal(loaded.match().filter((q) => q.object.termType === 'Quad').length, 0, key);
    }
    const loaded = load(text['nquads 1.1'], 'nquads');
    const statements = loaded.query(
      `SELECT ?r ?s ?p ?o ?g WHERE { GRAPH ?g { ?r a <${RDF}Statement>; <${RDF}subject> ?s; <${RDF}predicate> ?p; <${RDF}object> ?o } }`,
    ) as Map<string, oxigraph.Term>[];
    const seen = new Set(
      statements.map((b) =>
        oxigraph
          .quad(
            b.get('r') as oxigraph.NamedNode,
            oxigraph.namedNode(`${RDF}reifies`),
            oxigraph.triple(b.get('s') as oxigraph.NamedNode, b.get('p') as oxigraph.NamedNode, b.get('o') as oxigraph.NamedNode),
            b.get('g') as oxigraph.NamedNode,
          )
          .toString(),
      ),
    );
    const originals = store.match(null, oxigraph.namedNode(`${RDF}reifies`), null, null).map((q) => q.toString());
    assert.deepEqual([...seen].sort(), originals.sort());
  });

  test('JSON-LD is the same dataset as the RDF 1.1 N-Quads, claims included', () => {
    assert.deepEqual(canonical(load(text['jsonld 1.1'], 'jsonld')), canonical(load(text['nquads 1.1'], 'nquads')));
    // Expanded JSON-LD: one graph object per run of a graph's quads, named by the graph.
    const graphs = (JSON.parse(text['jsonld 1.1']) as { '@id': string; '@graph'?: unknown[] }[])
      .filter((o) => o['@graph'])
      .map((o) => o['@id']);
    assert.deepEqual(new Set(graphs), new Set(store.match().map((q) => q.graph.value)));
  });

  test('--rdf star writes << s p o >> where RDF 1.2 writes <<( s p o )>>, and nothing else differs', () => {
    const star = text['nquads star'].split('\n');
    const plain = text['nquads 1.2'].split('\n');
    assert.equal(star.length, plain.length);
    const changed = star.filter((line, i) => line !== plain[i]);
    assert.equal(changed.length, reifies);
    assert.ok(
      changed.every(
        (line) =>
          / <http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#reifies> << <[^>]+> <[^>]+> .+ >> <[^>]+> \.$/.test(line) &&
          !line.includes('<<('),
      ),
    );
  });

  test('--rdf star says on stderr what an RDF 1.2 reader makes of it: one more statement for each rdf:reifies', async () => {
    const target = join(dir, 'star.trig');
    // --lean: the store's statements alone, which a self-contained TriG adds to.
    const r = await weave(['export', '--store', dir, '--format', 'trig', '--rdf', 'star', '--lean', '-o', target]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, STAR_WARNING);
    // Oxigraph reads `R rdf:reifies << s p o >>` as `R rdf:reifies _:b . _:b rdf:reifies <<( s p o )>>`, without an error.
    const read = load(await readFile(target, 'utf8'), 'trig');
    assert.equal(read.size, store.size + reifies);
    assert.equal(read.match(null, oxigraph.namedNode(`${RDF}reifies`), null, null).length, 2 * reifies);
  });

  test('RDF/XML is refused, with the count, when text holds characters XML 1.0 cannot carry; nothing is written', async () => {
    // The statements that hold one, counted from the store itself.
    const held = store.match().filter((q) => [q.subject, q.object].some((t) => t.termType !== 'Quad' && NOT_XML_CHAR.test(t.value)));
    const holding = held.length;
    assert.ok(holding > 0, 'the fixtures quote terminal output with ESC');
    // The graphs they are in, by name, in the order the export reads them (its graphs' names, sorted).
    const graphs = [...new Set(held.map((q) => q.graph.value))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const where = graphs.length === 1 ? `<${graphs[0]}>` : `${graphs.length} graphs \\(the first <${graphs[0]}>\\)`;
    // Which characters, also from the store: each named once, in code point order.
    const found = new Set<number>();
    for (const q of store.match())
      for (const t of [q.subject, q.object])
        if (t.termType !== 'Quad')
          for (const c of t.value.match(new RegExp(NOT_XML_CHAR.source, `g${NOT_XML_CHAR.flags}`)) ?? []) found.add(c.codePointAt(0)!);
    const named = [...found]
      .sort((x, y) => x - y)
      .map((c) => `U\\+${c.toString(16).toUpperCase().padStart(4, '0')}`)
      .join(', ');
    const target = join(dir, 'all.rdf');
    const r = await weave(['export', '--store', dir, '--format', 'rdfxml', '-o', target]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        // It named the first by its graph file and line (graphs/<sha>.nq line 839), which --graph and --session do not take.
        `cannot carry ${named}: ${holding} statements? in ${where} holds? one\\. Nothing was written\\. Export as TriG`,
      ),
    );
    assert.equal(existsSync(target), false);
    assert.equal(existsSync(`${target}.tmp`), false);
  });

  test('RDF/XML of the alignment graph alone is written: the session graphs it reads for their turns are not exported, nor checked', async () => {
    // The alignment names each turn by owl:sameAs, IRIs only: no character XML cannot carry.
    const alignment = 'urn:soul:local:Weave/alignment/ravel';
    const target = join(dir, 'alignment.rdf');
    const r = await weave(['export', '--store', dir, '--format', 'rdfxml', '--graph', alignment, '-o', target]);
    assert.deepEqual([r.code, r.stderr], [0, '']);
    const inStore = new oxigraph.Store(store.match(null, null, null, oxigraph.namedNode(alignment)));
    assert.deepEqual(canonical(load(await readFile(target, 'utf8'), 'rdfxml'), true), canonical(inStore, true));
  });

  test('RDF/XML is one well-formed document holding the same triples as N-Triples (here for one session)', async () => {
    const session = '10000000-0000-4000-8000-000000000001';
    const xml = await exported(dir, 'rdfxml', '1.1', { sessions: [session] });
    const nt = await exported(dir, 'ntriples', '1.1', { sessions: [session] });
    assert.equal(xml.match(/<rdf:RDF\b/g)?.length, 1);
    assert.ok(xml.trimEnd().endsWith('</rdf:RDF>'));
    const expected = canonical(load(nt, 'ntriples'));
    assert.ok(expected.length > 500);
    assert.deepEqual(canonical(load(xml, 'rdfxml')), expected);
  });

  test('--graph and --session filters; unknown ones are errors; the alignment graph on its own still names every turn', async () => {
    const session = '10000000-0000-4000-8000-000000000001';
    const graph = `urn:soul:local:Weave/graph/${session}`;
    const one = await exported(dir, 'nquads', '1.2', { graphs: [graph] });
    assert.deepEqual(
      canonical(load(one, 'nquads')),
      canonical(store).filter((l) => l.endsWith(`<${graph}>`)),
    );
    const own = await exported(dir, 'nquads', '1.2', { sessions: [session] });
    const graphs = new Set(
      load(own, 'nquads')
        .match()
        .map((q) => q.graph.value),
    );
    assert.deepEqual(
      [...graphs].sort(),
      [
        graph,
        ...['agent/correction', 'emojikey/harvest', 'human/authored', 'secret/exposure', 'tool/error'].map((r) => `${graph}/reader/${r}`),
      ]
        .filter((g) => store.match(null, null, null, oxigraph.namedNode(g)).length)
        .sort(),
    );
    const alignment = 'urn:soul:local:Weave/alignment/ravel';
    const aligned = await exported(dir, 'nquads', '1.2', { graphs: [alignment] });
    assert.deepEqual(
      canonical(load(aligned, 'nquads')),
      canonical(store).filter((l) => l.endsWith(`<${alignment}>`)),
    );
    const missing = await weave(['export', '--store', dir, '--graph', 'urn:nowhere']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no graph <urn:nowhere> in the store/);
    const mode = await weave(['export', '--store', dir, '--format', 'jsonld', '--rdf', '1.2']);
    assert.equal(mode.code, 2);
    assert.match(mode.stderr, /JSON-LD cannot carry triple terms: export it with --rdf 1\.1/);
  });

  /** Found exporting to a folder not made yet: Node's ENOENT named the file written aside (`x.trig.26930.tmp`). */
  test('-o that cannot be written is named as the user gave it, with why; nothing is left behind', async () => {
    const missing = join(dir, 'not-made', 'x.nq');
    assert.deepEqual(await weave(['export', '--store', dir, '--session', '10000000', '-o', missing]), {
      code: 1,
      stdout: '',
      stderr: `weave export: cannot write ${missing}: its folder does not exist\n`,
    });
    const folder = join(dir, 'a-folder');
    await mkdir(folder);
    assert.deepEqual(await weave(['export', '--store', dir, '--session', '10000000', '-o', folder]), {
      code: 1,
      stdout: '',
      stderr: `weave export: cannot write ${folder}: it is a folder\n`,
    });
    assert.deepEqual(
      (await readdir(dir)).filter((name) => name.endsWith('.tmp')),
      [],
    );
  });

  /**
   * Found following the README: `weave conversation 6d590f7e` found the session by the prefix, and
   * `weave export --session 6d590f7e` then said "no session 6d590f7e in the store".
   */
  test('--session takes a unique prefix of a session id, as weave conversation does; one naming several is refused', async () => {
    const session = '10000000-0000-4000-8000-000000000001';
    assert.equal(
      await exported(dir, 'nquads', '1.2', { sessions: ['10000000'] }),
      await exported(dir, 'nquads', '1.2', { sessions: [session] }),
    );
    const several = await weave(['export', '--store', dir, '--session', '1']);
    assert.equal(several.code, 1);
    assert.equal(
      several.stderr,
      'weave export: "1" names 3 sessions (10000000-0000-4000-8000-000000000001, 11111111-1111-4111-8111-111111111111, 1d1d1d1d-0000-4000-8000-000000000001); give more of the id\n',
    );
  });
});

test('N-Triples drop the graph only where it ends a line', () => {
  const g = '<urn:g>';
  const lines = Buffer.from(`<urn:s> <urn:p> "ends with <urn:g> ." ${g} .\n<urn:s> <urn:p> <urn:o> ${g} .\n`);
  assert.equal(withoutGraph(lines, g).toString(), '<urn:s> <urn:p> "ends with <urn:g> ." .\n<urn:s> <urn:p> <urn:o> .\n');
});

test('the progress bar writes only to a terminal', () => {
  const written: string[] = [];
  const stream = (isTTY: boolean) => ({ isTTY, write: (s: string) => written.push(s) }) as unknown as NodeJS.WriteStream;
  const quiet = progressBar(1000, 3, stream(false));
  quiet.update?.({ bytesDone: 500, graphsDone: 1 });
  quiet.done();
  assert.deepEqual(written, []);
  const bar = progressBar(1000, 3, stream(true));
  bar.update?.({ bytesDone: 500, graphsDone: 1 });
  bar.done();
  assert.match(written[0], /^\r\[#{12}\.{12}\] 1\/3 graphs · 0\.0\/0\.0 MB · /);
  assert.equal(written.at(-1), '\r\x1b[K');
});
