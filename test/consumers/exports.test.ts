import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { type ExportFormat, exportStore } from '../../src/export/export.ts';
import { planExport } from '../../src/export/graphs.ts';
import { runQuery } from '../../src/query/run.ts';
import type { JsonResults } from '../../src/query/table.ts';
import { isTripleTerm, parseQuadLine } from '../../src/rdf/nquads.ts';
import type { RdfMode } from '../../src/rdf/rdf-mode.ts';
import { TOOLS } from '../../src/overview/queries.ts';
import { sparqlPrefixes } from '../../src/rdf/vocab.ts';
import { detect } from '../../src/readers/detect.ts';
import { openStore } from '../../src/store/store.ts';
import { FIXTURES, REPO, ingestFresh, removeDir, tempDir } from '../helpers.ts';
import {
  command,
  findJena,
  jenaAsk,
  type JsonAnswer,
  missing,
  python,
  rapperCount,
  riotCounts,
  roqet,
  startVirtuoso,
  tsvRows,
  type Virtuoso,
} from './tools.ts';

/**
 * Weave's exports, in every syntax, loaded by the consumers of the Debian era in `--rdf 1.1`
 * mode: each holds exactly the statements exported, and answers the same questions as Weave.
 * The store is three fixture folders with their readers run (claims, tool errors, an MCP tool
 * whose name holds a space and a `#`), and a prompt written here whose text holds `\n` (a
 * backslash and an n), with no text XML 1.0 cannot carry, so RDF/XML is written too.
 */

const EXPORTS: [ExportFormat, string][] = [
  ['nquads', 'x.nq'],
  ['trig', 'x.trig'],
  ['turtle', 'x.ttl'],
  ['ntriples', 'x.nt'],
  ['jsonld', 'x.jsonld'],
  ['rdfxml', 'x.rdf'],
];
const DATASET = new Set<ExportFormat>(['nquads', 'trig', 'jsonld']);
/** A session of one prompt holding a backslash before an n, twice, as text about code and Windows paths does. */
const ESCAPES = 'e5ca0e5c-0000-4000-8000-000000000001';
const ESCAPES_LINE = `${JSON.stringify({
  parentUuid: null,
  isSidechain: false,
  userType: 'external',
  cwd: '/home/ada/escapes',
  sessionId: ESCAPES,
  version: '2.1.3',
  type: 'user',
  message: { role: 'user', content: 'Split the lines on \\n, not on the n of C:\\new' },
  uuid: 'e5ca0e5c-0000-4000-8000-000000000002',
  timestamp: '2025-11-04T09:00:00.000Z',
  promptId: 'p-e',
})}\n`;
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** Questions every consumer is asked, with the columns compared (a rate's digits differ between engines). */
const QUESTIONS: { name: string; text: string; columns: number }[] = [
  {
    name: 'turns per session',
    text: 'SELECT ?session (COUNT(DISTINCT ?turn) AS ?turns) WHERE { ?t a weave:ClaudeCodeTranscript ; weave:sessionId ?session ; weave:hasEvent ?turn . ?turn a weave:Turn } GROUP BY ?session ORDER BY ?session',
    columns: 2,
  },
  {
    // One row per call first: rdflib 6.1 cannot count a variable some rows leave unbound.
    name: 'tool error rates',
    text: `SELECT ?tool (COUNT(?use) AS ?calls) (SUM(?failed) AS ?errors) WHERE {
      { SELECT ?use ?tool (MAX(IF(BOUND(?annotation), 1, 0)) AS ?failed) WHERE {
          ?use a weave:ToolUseBlock ; weave:toolName ?tool .
          OPTIONAL { ?annotation weave:eventType "tool/error" ; prov:used ?use }
        } GROUP BY ?use ?tool }
    } GROUP BY ?tool ORDER BY DESC(?errors) DESC(?calls) ?tool`,
    columns: 3,
  },
  {
    // The prompt this test writes (above): rdflib's N-Quads reader takes its backslash-n for a line break.
    // Asked without a backslash in the query, since rdflib's SPARQL parser reads an escaped one the same way.
    name: 'texts holding a backslash before an n',
    text: 'SELECT ?p (COUNT(DISTINCT ?text) AS ?texts) WHERE { ?s ?p ?text FILTER(isLiteral(?text) && CONTAINS(ENCODE_FOR_URI(STR(?text)), "%5Cn")) } GROUP BY ?p ORDER BY ?p',
    columns: 2,
  },
  {
    name: 'claims per detector',
    text: 'SELECT ?detector (COUNT(DISTINCT ?claim) AS ?claims) WHERE { ?claim a weave:Claim ; weave:detector ?detector } GROUP BY ?detector ORDER BY ?detector',
    columns: 2,
  },
];

/**
 * Ready queries asked as they are written of Jena and Virtuoso (test/consumers/ready-queries.test.ts
 * asks rdflib too): each rate, the last column, equal as a number on every engine.
 */
const READY: { name: string; text: string }[] = [
  { name: 'queries/tool-error-rates.rq', text: readFileSync(join(REPO, 'queries', 'tool-error-rates.rq'), 'utf8') },
  { name: "/overview's tool calls", text: TOOLS },
];
/** Rows with their last column, a rate, as a number: engines write 0.5 as 0.5, 0.500 or 5.0E-1. */
const rated = (rows: string[][]) => rows.map((r) => [...r.slice(0, -1), Number(r.at(-1))]);

/** A cell as a plain value: TSV writes IRIs in brackets and strings in quotes, with their datatype. */
function value(cell: string): string {
  const literal = /^"((?:[^"\\]|\\.)*)"(?:\^\^<[^>]*>|@[\w-]+)?$/.exec(cell);
  if (literal) return literal[1].replace(/\\(.)/g, '$1');
  return /^<(.*)>$/.exec(cell)?.[1] ?? cell;
}
const project = (rows: string[][], columns: number) => rows.map((r) => r.slice(0, columns).map(value));
/** A JSON answer's rows as plain values, in its variables' order; an error fails the test, naming it. */
function jsonRows(answer: JsonAnswer | { error: string }): string[][] {
  if ('error' in answer) throw new Error(`Jena: ${answer.error}`);
  return answer.results.bindings.map((b) => answer.head.vars.map((v) => b[v]?.value ?? ''));
}

describe('exports load into rdflib, Jena, raptor2 and Virtuoso with every statement (--rdf 1.1)', () => {
  let dir: string;
  let store: oxigraph.Store;
  const file = (name: string) => join(dir, name);
  /** Statements written to each file, and the distinct ones a store keeps, derived from the export itself. */
  const written: Record<string, number> = {};
  const kept: Record<string, number> = {};
  const questionFiles: string[] = [];
  let expected: string[][][];
  let prompts: string;
  const readyFiles: string[] = [];
  const guide = { text: '', written: 0, kept: 0 };
  const readyExpected: (string | number)[][][] = [];

  before(async () => {
    prompts = await tempDir();
    await mkdir(join(prompts, '-home-ada-escapes'));
    await writeFile(join(prompts, '-home-ada-escapes', `${ESCAPES}.jsonl`), ESCAPES_LINE);
    ({ dir } = await ingestFresh([...['server', 'spine', 'readers'].map((f) => join(FIXTURES, f)), prompts]));
    await detect({ storeDir: dir });
    ({ store } = await openStore(dir));
    for (const [format, name] of EXPORTS) await writeFile(file(name), await exported(dir, format, '1.1'));
    await writeFile(file('x12.nq'), await exported(dir, 'nquads', '1.2'));
    // The guide's TriG, self-contained as weave export writes TriG: its statements as written, and as a store keeps them.
    guide.text = await exported(dir, 'trig', '1.1', {}, true);
    guide.written = new Parser({ format: 'application/trig' }).parse(guide.text).length;
    const guideStore = new oxigraph.Store();
    guideStore.load(guide.text, { format: 'application/trig' });
    guide.kept = guideStore.size;
    const nquads = await readFile(file('x.nq'), 'utf8');
    const quads = new oxigraph.Store();
    quads.load(nquads, { format: 'application/n-quads' });
    const reifies = store.match(null, oxigraph.namedNode(`${RDF}reifies`), null, null).length;
    assert.ok(reifies > 50);
    assert.equal(quads.size, store.size + 3 * reifies, 'RDF 1.1: each reifier four statements');
    const triples = new Set(quads.match().map((q) => oxigraph.triple(q.subject, q.predicate, q.object).toString()));
    const lines = (text: string) => text.split('\n').filter(Boolean).length;
    for (const [format, name] of EXPORTS) {
      kept[name] = DATASET.has(format) ? quads.size : triples.size;
      written[name] = DATASET.has(format) ? lines(nquads) : lines(await readFile(file('x.nt'), 'utf8'));
    }
    expected = [];
    for (const [i, q] of QUESTIONS.entries()) {
      questionFiles.push(file(`q${i}.rq`));
      await writeFile(questionFiles[i], sparqlPrefixes() + q.text);
      const json = JSON.parse(runQuery(store, q.text, { results_format: 'json' }) as string) as JsonResults;
      const vars = json.head.vars!;
      expected.push(json.results!.bindings.map((b) => vars.slice(0, q.columns).map((v) => String(b[v]?.value ?? ''))));
      assert.ok(expected[i].length >= 2, q.name);
    }
    for (const [i, q] of READY.entries()) {
      readyFiles.push(file(`ready${i}.rq`));
      await writeFile(readyFiles[i], sparqlPrefixes() + q.text);
      const json = JSON.parse(runQuery(store, q.text, { results_format: 'json' }) as string) as JsonResults;
      const vars = json.head.vars!;
      readyExpected.push(rated(json.results!.bindings.map((b) => vars.map((v) => String(b[v]?.value ?? '')))));
      // Some tool failed, and some did not: a rate of 0 everywhere (integer division) shows.
      assert.ok(readyExpected[i].some((r) => (r.at(-1) as number) > 0) && readyExpected[i].some((r) => r.at(-1) === 0), q.name);
    }
  });
  after(async () => {
    await removeDir(dir);
    await removeDir(prompts);
  });

  test("the guide's export, rdflib and Jena examples, run as they are written", async (t) => {
    // weave export --format trig --rdf 1.1 -o weave.trig, as the guide's comment says
    const exportLine = /# (weave export [^\n]*-o weave\.trig)/.exec(guideBlock('python', 'rdflib'))![1];
    await command(join(REPO, 'bin', 'weave'), [...exportLine.split(' ').slice(1), '--store', dir], { cwd: dir });
    // The same bytes but for the number n3 gives each parser's blank nodes in a process (_:b0_…, _:b4_…).
    const labelled = (text: string) => text.replace(/_:b\d+_/g, '_:b_');
    assert.equal(labelled(await readFile(file('weave.trig'), 'utf8')), labelled(guide.text));
    if (!missing('/usr/bin/python3', '/usr/lib/python3/dist-packages/rdflib')) {
      // Every statement, and the prompt written above with its backslashes (its text, title and quote are one value).
      const script = `${guideBlock('python', 'rdflib')}
import json
print(json.dumps([sum(len(c) for c in graph.contexts()), sorted({str(o) for o in graph.objects() if "C:\\\\new" in o})]))
`;
      await writeFile(file('guide.py'), script);
      assert.deepEqual(JSON.parse((await command('/usr/bin/python3', [file('guide.py')], { cwd: dir })).stdout), [
        guide.kept,
        ['Split the lines on \\n, not on the n of C:\\new'],
      ]);
    } else t.diagnostic('rdflib is not installed here: its example was not run');
    const jena = await findJena();
    const riot = guideBlock('sh', 'riot --count').trim().split(' ');
    if (typeof jena !== 'string') assert.deepEqual(await riotCounts(jena, riot.slice(2).map(file)), [guide.written]);
    else t.diagnostic(jena);
  });

  test('rdflib 6.1 (python3-rdflib)', { skip: missing('/usr/bin/python3', '/usr/lib/python3/dist-packages/rdflib') }, async () => {
    const script = join(REPO, 'test', 'consumers', 'rdflib-load.py');
    const formats: Record<string, string> = {
      'x.nq': 'nquads',
      'x.trig': 'trig',
      'x.ttl': 'turtle',
      'x.nt': 'nt',
      'x.jsonld': 'json-ld',
      'x.rdf': 'xml',
    };
    const backslashes = QUESTIONS.findIndex((q) => q.name.startsWith('texts holding a backslash'));
    for (const [, name] of EXPORTS) {
      const asked = name === 'x.trig' || name === 'x.nq';
      const out = JSON.parse(await python(script, [file(name), formats[name], ...(asked ? questionFiles : [])])) as {
        statements: number;
        answers: string[][][];
      };
      assert.equal(out.statements, kept[name], name);
      // TriG, as the guide loads it, answers as Weave does.
      if (name === 'x.trig')
        for (const [i, q] of QUESTIONS.entries()) assert.deepEqual(project(out.answers[i], q.columns), expected[i], q.name);
      // rdflib 6.1's N-Quads reader reads an escaped backslash before an n as a backslash and a line break: no text holds one.
      if (name === 'x.nq') assert.deepEqual(out.answers[backslashes], []);
    }
  });

  test('Apache Jena 4.5 riot and sparql (libapache-jena-java)', async (t) => {
    const jena = await findJena();
    if (typeof jena === 'string') return t.skip(jena);
    const names = EXPORTS.map(([, name]) => name).filter((n) => n !== 'x.jsonld');
    assert.deepEqual(
      await riotCounts(jena, names.map(file)),
      names.map((n) => written[n]),
    );
    // Debian ships no jakarta.json provider, so Jena's JSON-LD 1.1 reader (Titanium) cannot run; its 1.0 reader can.
    assert.deepEqual(await riotCounts(jena, [file('x.jsonld')], 'jsonld10'), [written['x.jsonld']]);
    // As `arq.sparql --data x.nt --query FILE` asks each, in one JVM.
    const answers = (await jenaAsk(jena, file('x.nt'), [...questionFiles, ...readyFiles])).map(jsonRows);
    for (const [i, q] of QUESTIONS.entries())
      assert.deepEqual(
        answers[i].map((r) => r.slice(0, q.columns)),
        expected[i],
        q.name,
      );
    for (const [i, q] of READY.entries()) assert.deepEqual(rated(answers[QUESTIONS.length + i]), readyExpected[i], q.name);
  });

  test('raptor2 rapper and rasqal roqet (raptor2-utils, rasqal-utils); raptor2 has no JSON-LD parser', {
    skip: missing('rapper', 'roqet'),
  }, async () => {
    const syntaxes: Record<string, string> = {
      'x.nq': 'nquads',
      'x.trig': 'trig',
      'x.ttl': 'turtle',
      'x.nt': 'ntriples',
      'x.rdf': 'rdfxml',
    };
    for (const [name, syntax] of Object.entries(syntaxes)) assert.equal(await rapperCount(file(name), syntax), written[name], name);
    for (const [i, q] of QUESTIONS.entries())
      assert.deepEqual(project(tsvRows(await roqet(file('x.ttl'), questionFiles[i])), q.columns), expected[i], q.name);
  });

  describe('a one-session Turtle export, self-contained as weave export writes it, answers as Weave does', () => {
    // fixtures/readers' prompts session: 17 records (12 user turns, 5 assistant), its claims in its readers' graph.
    const SESSION = 'b0b0b0b0-b0b0-4b0b-8b0b-b0b0b0b0b0b0';
    const envelope =
      'VALUES ?property { weave:cwd weave:gitBranch weave:cliVersion weave:userType weave:sessionNickname weave:entrypoint weave:recordSessionId weave:recordAgentId weave:isSidechain }';
    /** Asked of the export as another tool asks: plain patterns, no GRAPH, no weave:lacks. */
    const ASKED: { name: string; text: string; rows: number }[] = [
      {
        name: 'envelope',
        text: `SELECT ?event ?property ?value WHERE { ${envelope} ?t weave:sessionId "${SESSION}" ; weave:hasEvent ?event . ?event ?property ?value }`,
        rows: 102,
      },
      { name: 'cwd', text: 'SELECT ?event ?cwd WHERE { ?event a weave:Event ; weave:cwd ?cwd }', rows: 17 },
      {
        name: 'roles',
        text: `SELECT ?turn ?role WHERE { ?t weave:sessionId "${SESSION}" ; weave:hasEvent ?turn . ?turn a/weave:turnRole ?role }`,
        rows: 17,
      },
      {
        name: 'ravel',
        text: `SELECT ?turn ?ravel WHERE { ?t weave:sessionId "${SESSION}" ; weave:hasEvent ?turn . ?turn owl:sameAs ?ravel }`,
        rows: 17,
      },
      // weave:Turn, and weave:Event above it.
      { name: 'superclasses', text: 'SELECT DISTINCT ?class WHERE { weave:AssistantTurn rdfs:subClassOf+ ?class }', rows: 2 },
    ];
    let expected: string[][][];
    const askedFiles: string[] = [];
    const sorted = (rows: string[][]) => rows.map((r) => r.join(' ')).sort();

    before(async () => {
      await writeFile(file('one.ttl'), await exported(dir, 'turtle', '1.1', { sessions: [SESSION] }, true));
      // What Weave answers: record-envelope.rq for the envelope and the working directory, the same query for the rest.
      const weaveRows = (text: string) => {
        const json = JSON.parse(runQuery(store, text, { results_format: 'json' }) as string) as JsonResults;
        return json.results!.bindings.map((b) => json.head.vars!.map((v) => String(b[v]?.value ?? '')));
      };
      const rows = weaveRows(await readFile(join(REPO, 'queries', 'record-envelope.rq'), 'utf8')).filter((r) => r[1] === SESSION);
      expected = [
        rows.map((r) => r.slice(2)),
        rows.filter((r) => r[3].endsWith('#cwd')).map((r) => [r[2], r[4]]),
        ...ASKED.slice(2).map((q) => weaveRows(q.text)),
      ];
      for (const [i, q] of ASKED.entries()) {
        assert.equal(expected[i].length, q.rows, q.name);
        askedFiles.push(file(`one-${i}.rq`));
        await writeFile(askedFiles[i], sparqlPrefixes() + q.text);
      }
      assert.deepEqual(new Set(expected[2].map((r) => r[1])), new Set(['user', 'assistant']));
    });

    test('in rdflib 6.1', { skip: missing('/usr/bin/python3', '/usr/lib/python3/dist-packages/rdflib') }, async () => {
      const out = JSON.parse(
        await python(join(REPO, 'test', 'consumers', 'rdflib-load.py'), [file('one.ttl'), 'turtle', ...askedFiles]),
      ) as {
        answers: string[][][];
      };
      for (const [i, q] of ASKED.entries()) assert.deepEqual(sorted(out.answers[i]), sorted(expected[i]), q.name);
    });

    test('in Apache Jena 4.5 sparql', async (t) => {
      const jena = await findJena();
      if (typeof jena === 'string') return t.skip(jena);
      const answers = (await jenaAsk(jena, file('one.ttl'), askedFiles)).map(jsonRows);
      for (const [i, q] of ASKED.entries()) assert.deepEqual(sorted(answers[i].map((r) => r.slice(0, 3))), sorted(expected[i]), q.name);
    });

    test('in Virtuoso 7.2 (TTLP), a server of its own', { skip: missing('virtuoso-t', 'isql-vt') }, async () => {
      const virtuoso = await startVirtuoso(dir);
      try {
        await virtuoso.sql(`DB.DBA.TTLP(file_to_string_output('${file('one.ttl')}'), '', 'urn:one', 0);`);
        for (const [i, q] of ASKED.entries()) {
          const rows = await virtuoso.select(await readFile(askedFiles[i], 'utf8'));
          // Virtuoso 7.2 keeps an xsd:boolean as the integer 0 or 1.
          const asVirtuoso = expected[i].map((r) => r.map((v) => ({ false: '0', true: '1' })[v] ?? v));
          assert.deepEqual(sorted(rows.map((r) => Object.values(r))), sorted(asVirtuoso), q.name);
        }
      } finally {
        await virtuoso.stop();
      }
    });
  });

  describe('Virtuoso 7.2 (virtuoso-opensource): bulk loader and TTLP', { skip: missing('virtuoso-t', 'isql-vt') }, () => {
    let virtuoso: Virtuoso;
    let graphs: string[];
    before(async () => {
      virtuoso = await startVirtuoso(dir);
      graphs = [...new Set(store.match().map((q) => q.graph.value))];
    });
    after(() => virtuoso?.stop());

    /** Quads in the export's graphs (or in `urn:export` for graph syntaxes), then cleared for the next load. */
    const countAndClear = async (): Promise<number> => {
      const names = [...graphs, 'urn:export'].map((g) => `<${g}>`).join(' ');
      const [row] = await virtuoso.select(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } VALUES ?g { ${names} } }`);
      await virtuoso.sql(`${[...graphs, 'urn:export'].map((g) => `SPARQL CLEAR GRAPH <${g}>;`).join(' ')} DELETE FROM DB.DBA.LOAD_LIST;`);
      return Number(row.n);
    };
    const bulk = async (name: string) => {
      await virtuoso.sql(`ld_dir('${dir}', '${name}', 'urn:export'); rdf_loader_run();`);
      const errors = await virtuoso.sql(`SELECT ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;`);
      return { errors: /0 Rows/.test(errors) ? '' : errors, quads: await countAndClear() };
    };

    test('the bulk loader keeps every statement of N-Quads, TriG, Turtle, N-Triples and RDF/XML (it reads no JSON-LD)', async () => {
      for (const name of ['x.nq', 'x.trig', 'x.ttl', 'x.nt', 'x.rdf'])
        assert.deepEqual(await bulk(name), { errors: '', quads: kept[name] }, name);
    });

    test('TTLP reads Turtle, N-Triples, TriG (flag 256) and N-Quads (flag 512); RDF_LOAD_RDFXML reads RDF/XML', async () => {
      for (const [name, flags] of [
        ['x.ttl', 0],
        ['x.nt', 0],
        ['x.trig', 256],
        ['x.nq', 512],
      ] as const) {
        await virtuoso.sql(`DB.DBA.TTLP(file_to_string_output('${file(name)}'), '', 'urn:export', ${flags});`);
        assert.equal(await countAndClear(), kept[name], name);
      }
      await virtuoso.sql(`DB.DBA.RDF_LOAD_RDFXML(file_to_string_output('${file('x.rdf')}'), '', 'urn:export');`);
      assert.equal(await countAndClear(), kept['x.rdf']);
    });

    test('and answers the same questions', async () => {
      await virtuoso.sql(`ld_dir('${dir}', 'x.nq', 'urn:export'); rdf_loader_run();`);
      try {
        for (const [i, q] of QUESTIONS.entries()) {
          const rows = await virtuoso.select(await readFile(questionFiles[i], 'utf8'));
          assert.deepEqual(
            rows.map((r) => Object.values(r).slice(0, q.columns)),
            expected[i],
            q.name,
          );
        }
        for (const [i, q] of READY.entries()) {
          const rows = await virtuoso.select(await readFile(readyFiles[i], 'utf8'));
          assert.deepEqual(rated(rows.map((r) => Object.values(r))), readyExpected[i], q.name);
        }
      } finally {
        await countAndClear();
      }
    });

    test("the guide's Virtuoso example", async () => {
      const sql = guideBlock('sql', 'ld_dir(').replaceAll('/data', dir);
      for (const statement of sql.split('\n').filter(Boolean)) {
        await virtuoso.sql(statement);
        assert.equal(await countAndClear(), guide.kept, statement);
      }
    });

    test('RDF 1.2 N-Quads: the bulk loader silently drops every statement with a triple term (why Virtuoso needs --rdf 1.1)', async () => {
      const text = await readFile(file('x12.nq'), 'utf8');
      const withTripleTerms = text.split('\n').filter((l) => l && isTripleTerm(parseQuadLine(l)!.o)).length;
      assert.deepEqual(await bulk('x12.nq'), { errors: '', quads: store.size - withTripleTerms });
    });
  });
});

async function exported(
  dir: string,
  format: ExportFormat,
  mode: RdfMode,
  filter: Parameters<typeof planExport>[1] = {},
  selfContained = false,
): Promise<string> {
  const chunks: Buffer[] = [];
  await exportStore(
    await planExport(dir, filter),
    format,
    mode,
    new Writable({
      write: (c, _e, done) => {
        chunks.push(Buffer.from(c));
        done();
      },
    }),
    undefined,
    { selfContained },
  );
  return Buffer.concat(chunks).toString('utf8');
}

/** The fenced block in `lang` of docs/guide.md that holds `marker`: its examples are what these tests run. */
function guideBlock(lang: string, marker: string): string {
  const blocks = [...guideText.matchAll(new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
  const block = blocks.find((b) => b.includes(marker));
  assert.ok(block, `docs/guide.md has a ${lang} block with ${marker}`);
  return block;
}
const guideText = readFileSync(join(REPO, 'docs', 'guide.md'), 'utf8');
