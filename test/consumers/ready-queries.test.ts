import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import oxigraph from 'oxigraph';
import { planExport } from '../../src/export/graphs.ts';
import { runQuery } from '../../src/query/run.ts';
import type { JsonResults } from '../../src/query/table.ts';
import { ONTOLOGY_GRAPH, sparqlPrefixes } from '../../src/rdf/vocab.ts';
import { detect } from '../../src/readers/detect.ts';
import { DEFAULTS } from '../../src/server/config.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
import { CARD } from '../card/card.ts';
import { type CorpusStore, corpusStore, releaseCorpusStore } from '../corpus-store.ts';
import { FIXTURES, HAS_CORPUS, ingestFresh, REPO, removeDir, tempDir } from '../helpers.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';
import { command, findJena, java, type Jena, jenaAsk, missing, python, startVirtuoso, type Virtuoso } from './tools.ts';

/**
 * Every ready query (queries/*.rq) and every count of the card (test/card/card.ts), asked of
 * Weave's exports in rdflib 6.1, Jena 4.5 and Virtuoso 7.2, answers as Weave answers on its store:
 * - a one-session Turtle export as `weave export --format turtle --rdf 1.1 --session ID` writes it
 *   (self-contained), against Weave's answers over that session's graphs and the ontology;
 * - the whole store in `--rdf 1.1`, as N-Quads (lean, for Jena and Virtuoso) and TriG
 *   (self-contained, for rdflib, whose N-Quads reader turns a `\\n` escape into a newline);
 * - the same for the corpus, where ../shared/corpus is there, Weave's answers there asked of a
 *   `weave serve` over it as a client asks the endpoint (each triple of the union read once from
 *   its first graph, src/store/restated.ts), within the server's default timeout.
 * Values are compared as strings, numbers rounded to 6 decimal places (engines print a decimal's
 * digits their own way), blank nodes as one label (each engine names its own).
 */

const RDFLIB = missing('/usr/bin/python3', '/usr/lib/python3/dist-packages/rdflib');
const VIRTUOSO = missing('virtuoso-t', 'isql-vt');
// fixtures/readers' prompts session: 17 records, claims by the readers.
const SESSION = 'b0b0b0b0-b0b0-4b0b-8b0b-b0b0b0b0b0b0';
/** The graph each engine loads a Turtle file (which has none) into. */
const TURTLE_GRAPH = 'urn:weave-test:one-session';

interface Query {
  name: string;
  text: string;
  /** The query orders its rows: compared in order, else as a set of rows. */
  ordered: boolean;
  /**
   * Its `GROUP_CONCAT(DISTINCT …)` columns and their separators: SPARQL leaves the order of a
   * concatenation to the engine, so these are compared as sets of items.
   */
  sets: Record<string, string>;
}

/** A query's text as it is asked, and how its answer is compared. */
function query(name: string, text: string): Query {
  const code = text.replace(/#[^\n]*/g, '');
  const sets = [...code.matchAll(/GROUP_CONCAT\(DISTINCT \?\w+; separator="([^"]*)"\) AS \?(\w+)\)/g)];
  return { name, text, ordered: /ORDER BY[^{}]*$/.test(code), sets: Object.fromEntries(sets.map((m) => [m[2], m[1]])) };
}

const READY: Query[] = readdirSync(join(REPO, 'queries'))
  .filter((f) => f.endsWith('.rq'))
  .sort()
  .map((f) => query(f, readFileSync(join(REPO, 'queries', f), 'utf8')));
const COUNTS: Query[] = CARD.flatMap((c) => [query(`card holds: ${c.statement}`, c.holds), query(`card breaks: ${c.statement}`, c.breaks)]);
const QUERIES = [...READY, ...COUNTS];

/** Pairs an engine cannot run as Weave does, with why: skipped, and reported. */
const CANNOT: Record<string, string> = {
  'rdflib: session-overview.rq':
    'rdflib 6.1 joins no row of an OPTIONAL sub-select with GROUP BY beside FILTER NOT EXISTS or MINUS (0 rows, or each session times every group)',
};

/**
 * Pairs not asked of the corpus, as they take an engine minutes there: each is compared on the
 * fixtures, and on the corpus by the other engines.
 */
const SLOW_ON_CORPUS: Record<string, string> = {
  'rdflib: record-envelope.rq': 'rdflib 6.1 takes 80 s over three corpus sessions (twice that on a loaded machine)',
  'Virtuoso: record-envelope.rq': 'Virtuoso 7.2 takes 13 s over the whole corpus, on a machine the other tests share',
  'Virtuoso: stored-texts.rq': 'Virtuoso 7.2 takes 11 s over the whole corpus, on a machine the other tests share',
  'Virtuoso: record-derived.rq': 'Virtuoso 7.2 takes 10 to 14 s over the whole corpus, on a machine the other tests share',
};

/**
 * A query for an RDF 1.1 export: a triple-term pattern `rdf:reifies <<( s p o )>>` becomes the
 * reification the export writes on the same reifier (src/rdf/rdf-mode.ts), `rdf:subject s ;
 * rdf:predicate p ; rdf:object o`, and `rdf:reifies ?term` its `a rdf:Statement` (the term itself
 * is no node in RDF 1.1; no query here reads it).
 */
export function reified(text: string): string {
  return text
    .replace(/rdf:reifies\s*<<\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)>>/g, 'rdf:subject $1 ; rdf:predicate $2 ; rdf:object $3')
    .replace(/rdf:reifies\s+\?\w+/g, 'a rdf:Statement');
}

/** An answer's cell as SPARQL JSON results give it. */
interface Cell {
  type: string;
  value: string;
  datatype?: string;
}
type Row = Record<string, Cell>;
type Answer = { rows: Row[] } | { error: string };

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const NUMBERS = new Set(['integer', 'decimal', 'double', 'float', 'long', 'int', 'short', 'nonNegativeInteger'].map((t) => XSD + t));

/**
 * A cell as compared: numbers rounded to 6 places, times as instants (rdflib writes Z as +00:00),
 * every blank node alike, a set's items sorted.
 */
function plain(cell: Cell | undefined, separator?: string): string {
  if (!cell) return '';
  if (cell.type === 'bnode') return '_:';
  if (cell.datatype && NUMBERS.has(cell.datatype)) return String(Number(Number(cell.value).toFixed(6)));
  if (cell.datatype === `${XSD}dateTime` && !Number.isNaN(Date.parse(cell.value))) return new Date(cell.value).toISOString();
  return separator === undefined ? cell.value : cell.value.split(separator).sort().join(separator);
}

/** Rows as compared: in the query's order, or sorted when it sets none. */
function compared(rows: Row[], vars: string[], query: Query): string[] {
  const lines = rows.map((r) => JSON.stringify(vars.map((v) => plain(r[v], query.sets[v]))));
  return query.ordered ? lines : lines.sort();
}

type Engine = 'rdflib' | 'Jena' | 'Virtuoso';
const ENGINES: Engine[] = ['rdflib', 'Jena', 'Virtuoso'];

/** How an engine's answer differs from Weave's, or undefined; the corpus's rows are not shown. */
function differs(dataset: Dataset, i: number, answer: Answer): string | undefined {
  if ('error' in answer) return answer.error;
  const query = QUERIES[i];
  const { vars, rows } = dataset.expected[i];
  const want = compared(rows, vars, query);
  const got = compared(answer.rows, vars, query);
  if (JSON.stringify(want) === JSON.stringify(got)) return undefined;
  // Past Weave's last row when its rows begin the engine's.
  const first = want.some((w, j) => w !== got[j]) ? want.findIndex((w, j) => w !== got[j]) : want.length;
  return (
    `${got.length} rows, Weave ${want.length}; first difference at row ${first}` +
    (dataset.showRows ? `: ${got[first]} where Weave has ${want[first]}` : '')
  );
}

interface Dataset {
  name: string;
  /** The engines that load it. */
  engines: Engine[];
  /** Whether rows may be shown when they differ (the corpus's are real transcripts). */
  showRows: boolean;
  /** Weave's answer to each query, and its variables. */
  expected: { vars: string[]; rows: Row[] }[];
  /** The file each engine loads, and the graph a graphless file goes into. */
  files: { rdflib: [string, string]; quads: string };
  turtleGraph?: string;
  queryFiles: string[];
  /** The graphs the engines hold, cleared from Virtuoso after its turn. */
  graphs: string[];
}

/** Where Weave's answers come from: a store opened here, or a server's endpoint. */
type Weave = OxStore | string;
/** Graphs named as a query's dataset (the SPARQL protocol's default-graph-uri and named-graph-uri). */
type Graphs = { default_graph?: string[]; named_graphs?: string[] };

/** Weave's answer to one query; an endpoint's failure (a 504 past its timeout) fails the test, naming the query. */
async function weaveAnswer(weave: Weave, name: string, query: string, graphs: Graphs = {}): Promise<JsonResults> {
  if (typeof weave !== 'string') return JSON.parse(runQuery(weave, query, { ...graphs, results_format: 'json' }, oxigraph) as string);
  const body = new URLSearchParams({ query });
  for (const g of graphs.default_graph ?? []) body.append('default-graph-uri', g);
  for (const g of graphs.named_graphs ?? []) body.append('named-graph-uri', g);
  const res = await fetch(weave, { method: 'POST', body, headers: { accept: 'application/sparql-results+json' } });
  const text = await res.text();
  assert.equal(res.status, 200, `${name}, asked of weave serve: ${text.slice(0, 200)}`);
  return JSON.parse(text) as JsonResults;
}

/**
 * Weave's answers to the queries some engine asks of a dataset: a query none asks (each pair in
 * SLOW_ON_CORPUS) is not answered either, and gets no rows. Over the whole corpus those are
 * record-envelope, stored-texts and record-derived, 20 s of Weave's time and 100 MB of JSON that
 * nothing compared.
 */
async function weaveAnswers(weave: Weave, asked: (q: Query) => boolean, graphs: Graphs = {}): Promise<Dataset['expected']> {
  const answers: Dataset['expected'] = [];
  for (const q of QUERIES) {
    if (!asked(q)) {
      answers.push({ vars: [], rows: [] });
      continue;
    }
    const json = await weaveAnswer(weave, q.name, q.text, graphs);
    answers.push({ vars: json.head.vars!, rows: json.results!.bindings as Row[] });
  }
  return answers;
}

/** The named graphs Weave holds. */
async function graphsOf(weave: Weave): Promise<string[]> {
  const json = await weaveAnswer(weave, 'the graphs', 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }');
  return json.results!.bindings.map((b) => String(b.g.value));
}

async function weaveExport(store: string, file: string, args: string[]): Promise<void> {
  await command(join(REPO, 'bin', 'weave'), ['export', ...args, '--store', store, '-o', file], { timeout: 600_000 });
}

describe('every ready query and the card, asked of --rdf 1.1 exports in rdflib, Jena and Virtuoso, answer as Weave', () => {
  let work: string;
  /** A query file that asks for nothing, in place of a pair not asked (SLOW_ON_CORPUS). */
  let nothing: string;
  const stores: string[] = [];
  let corpus: CorpusStore | undefined;
  let server: TestServer | undefined;
  const datasets: Dataset[] = [];
  /** Timings of the before hook, said by the first test. */
  const diagnostics: string[] = [];

  /** Writes each query as an engine is given it: the usual prefixes, triple terms as RDF 1.1 reification. */
  async function queryFiles(folder: string): Promise<string[]> {
    await mkdir(folder, { recursive: true });
    return Promise.all(
      QUERIES.map(async (q, i) => {
        const file = join(folder, `q${i}.rq`);
        await writeFile(file, sparqlPrefixes() + reified(q.text));
        return file;
      }),
    );
  }

  before(async () => {
    work = await tempDir('weave-ready-');
    nothing = join(work, 'nothing.rq');
    await writeFile(nothing, 'SELECT * WHERE { } LIMIT 0\n');
    const { dir } = await ingestFresh(['server', 'spine', 'readers'].map((f) => join(FIXTURES, f)));
    stores.push(dir);
    await detect({ storeDir: dir });
    const { store } = await openStore(dir);
    datasets.push(await sessions('fixtures', dir, store, [SESSION], 'turtle'), await wholeStore('fixtures', dir, store, ENGINES));
    if (HAS_CORPUS) {
      let started = Date.now();
      corpus = await corpusStore();
      diagnostics.push(`the corpus's store (one for the run) ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      started = Date.now();
      // A server of its own on a copy (it writes its run file in the store), one copy of the
      // store in memory, the timeout and result limit a user's server has.
      const copy = join(work, 'corpus-store');
      await cp(corpus.dir, copy, { recursive: true, filter: (from) => !/\/(archive|search)$/.test(from) });
      server = await startTestServer(
        { storeDir: copy, workers: 1, timeoutMs: DEFAULTS.timeoutSeconds * 1000, maxResultBytes: DEFAULTS.maxResultMb * 1e6 },
        null,
      );
      const endpoint = `${server.base}/sparql`;
      // The whole corpus takes rdflib 7 minutes to parse (a TriG of 780k lines) and Jena 7 to load
      // and answer (with a JVM per query): they get three sessions, Virtuoso the whole of it.
      datasets.push(
        await wholeStore('corpus', corpus.dir, endpoint, ['Virtuoso']),
        await sessions('corpus', corpus.dir, endpoint, await corpusSessions(endpoint), 'trig'),
      );
      await server.stop();
      server = undefined;
      diagnostics.push(`the corpus exported and answered by Weave in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  });

  /** A store exported whole in --rdf 1.1: N-Quads (lean) for Jena and Virtuoso, TriG (self-contained) for rdflib. */
  async function wholeStore(name: string, dir: string, weave: Weave, engines: Engine[]): Promise<Dataset> {
    const at = (file: string) => join(work, name, file);
    await mkdir(join(work, name), { recursive: true });
    await weaveExport(dir, at('x.nq'), ['--format', 'nquads', '--rdf', '1.1']);
    if (engines.includes('rdflib')) await weaveExport(dir, at('x.trig'), ['--format', 'trig', '--rdf', '1.1']);
    return {
      name: `${name}, whole store`,
      engines,
      showRows: name !== 'corpus',
      expected: await weaveAnswers(weave, askedBy(name, engines)),
      files: { rdflib: [at('x.trig'), 'trig'], quads: at('x.nq') },
      queryFiles: await queryFiles(at('q')),
      graphs: await graphsOf(weave),
    };
  }

  /**
   * Some sessions exported as `weave export --format F --rdf 1.1 --session ID…` writes them
   * (self-contained), against Weave's answers over their graphs and the ontology. A Turtle file
   * has no graphs: each engine loads it into TURTLE_GRAPH, where Weave names the session's.
   */
  async function sessions(name: string, dir: string, weave: Weave, ids: string[], format: 'turtle' | 'trig'): Promise<Dataset> {
    const at = (file: string) => join(work, name, file);
    await mkdir(join(work, name), { recursive: true });
    const file = at(`sessions.${format === 'turtle' ? 'ttl' : 'trig'}`);
    await weaveExport(dir, file, ['--format', format, '--rdf', '1.1', ...ids.flatMap((id) => ['--session', id])]);
    const own = [...new Set((await planExport(dir, { sessions: ids })).sources.flatMap((s) => s.graph ?? []))];
    const engines: Engine[] = format === 'turtle' ? ENGINES : ['rdflib', 'Jena'];
    const expected = await weaveAnswers(weave, askedBy(name, engines), { default_graph: [...own, ONTOLOGY_GRAPH], named_graphs: own });
    const turtleGraph = format === 'turtle' ? TURTLE_GRAPH : undefined;
    if (turtleGraph)
      for (const answer of expected)
        for (const row of answer.rows) for (const cell of Object.values(row)) if (own.includes(cell.value)) cell.value = turtleGraph;
    return {
      name: `${name}, ${ids.length === 1 ? 'one session' : `${ids.length} sessions`}, ${format === 'turtle' ? 'Turtle' : 'TriG'}`,
      engines,
      showRows: name !== 'corpus',
      expected,
      files: { rdflib: [file, format], quads: file },
      turtleGraph,
      queryFiles: await queryFiles(at('q')),
      graphs: turtleGraph ? [turtleGraph] : own,
    };
  }

  after(async () => {
    await server?.stop();
    for (const dir of stores) await removeDir(dir);
    await releaseCorpusStore(corpus);
    await removeDir(work);
  });

  /** Whether `pair` is one not asked of `dataset` (SLOW_ON_CORPUS). */
  function slow(dataset: Pick<Dataset, 'name'>, pair: string): boolean {
    return dataset.name.startsWith('corpus') && pair in SLOW_ON_CORPUS;
  }

  /** Whether some engine asks a query of the dataset named `name` (one of the corpus's, or the fixtures'). */
  function askedBy(name: string, engines: Engine[]): (q: Query) => boolean {
    return (q) => engines.some((engine) => !slow({ name }, `${engine}: ${q.name}`));
  }

  /** What differs from Weave's answers, one line a query; a pair in CANNOT is said, not failed. */
  function compare(t: TestContext, dataset: Dataset, engine: string, answers: Answer[]): string[] {
    const failures: string[] = [];
    for (const [i, query] of QUERIES.entries()) {
      const pair = `${engine}: ${query.name}`;
      if (slow(dataset, pair)) {
        t.diagnostic(`${pair} on ${dataset.name}: not asked: ${SLOW_ON_CORPUS[pair]}`);
        continue;
      }
      const difference = differs(dataset, i, answers[i]);
      if (CANNOT[pair])
        t.diagnostic(
          `${pair} on ${dataset.name}: ${difference ? `not compared: ${CANNOT[pair]}` : 'answers as Weave now (CANNOT lists it)'}`,
        );
      else if (difference) failures.push(`${pair} on ${dataset.name}: ${difference}`);
    }
    return failures;
  }

  test('rdflib 6.1 (python3-rdflib)', { skip: RDFLIB }, async (t) => {
    for (const line of diagnostics) t.diagnostic(line);
    const failures: string[] = [];
    for (const dataset of datasets.filter((d) => d.engines.includes('rdflib'))) {
      const [file, format] = dataset.files.rdflib;
      const started = Date.now();
      const out = JSON.parse(
        // rdflib takes about a minute over three corpus sessions alone; a loaded machine doubles it.
        await python(
          join(REPO, 'test', 'consumers', 'rdflib-ready.py'),
          [
            file,
            format,
            dataset.turtleGraph ?? '-',
            ...dataset.queryFiles.map((q, i) => (slow(dataset, `rdflib: ${QUERIES[i].name}`) ? nothing : q)),
          ],
          600_000,
        ),
      ) as {
        seconds: number;
        answers: (({ rows: Record<string, [string, string, string | null]>[] } | { error: string }) & { seconds: number })[];
      };
      t.diagnostic(
        `${dataset.name}: loaded in ${out.seconds.toFixed(0)} s, answered in ${((Date.now() - started) / 1000 - out.seconds).toFixed(0)} s`,
      );
      const answers = out.answers.map(
        (a): Answer =>
          'error' in a
            ? a
            : {
                rows: a.rows.map((r) =>
                  Object.fromEntries(
                    Object.entries(r).map(([v, [type, value, datatype]]) => [v, { type, value, datatype: datatype ?? undefined }]),
                  ),
                ),
              },
      );
      failures.push(...compare(t, dataset, 'rdflib', answers));
      slowest(
        t,
        dataset,
        out.answers.map((a) => a.seconds),
      );
    }
    assert.deepEqual(failures, []);
  });

  test('Apache Jena 4.5 (TDB2, its default graph the union of the graphs)', async (t) => {
    const jena = await findJena();
    if (typeof jena === 'string') return t.skip(jena);
    const failures: string[] = [];
    // Start-up is most of a JVM's time here: the client compiler and the serial collector halve it.
    const options = process.env.JAVA_TOOL_OPTIONS;
    process.env.JAVA_TOOL_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto';
    try {
      for (const [d, dataset] of datasets.filter((d) => d.engines.includes('Jena')).entries()) {
        const loc = join(work, `tdb${d}`);
        const graph = dataset.turtleGraph ? [`--graph=${dataset.turtleGraph}`] : [];
        const started = Date.now();
        await java(jena, 'tdb2.tdbloader', ['--loc', loc, ...graph, dataset.files.quads]);
        const loaded = Date.now();
        failures.push(...compare(t, dataset, 'Jena', await jenaAnswers(jena, loc, dataset)));
        t.diagnostic(
          `${dataset.name}: loaded in ${((loaded - started) / 1000).toFixed(0)} s, answered in ${((Date.now() - loaded) / 1000).toFixed(0)} s`,
        );
      }
    } finally {
      if (options === undefined) delete process.env.JAVA_TOOL_OPTIONS;
      else process.env.JAVA_TOOL_OPTIONS = options;
    }
    assert.deepEqual(failures, []);
  });

  test('Virtuoso 7.2 (virtuoso-opensource), one server for every export', { skip: VIRTUOSO }, async (t) => {
    const virtuoso = await startVirtuoso(work);
    const failures: string[] = [];
    try {
      const loaded = datasets.filter((d) => d.engines.includes('Virtuoso'));
      for (const [d, dataset] of loaded.entries()) {
        const started = Date.now();
        const file = dataset.files.quads;
        if (dataset.turtleGraph) await virtuoso.sql(`DB.DBA.TTLP(file_to_string_output('${file}'), '', '${dataset.turtleGraph}', 0);`);
        else await virtuoso.sql(`ld_dir('${dirname(file)}', '${basename(file)}', 'urn:weave-test:default'); rdf_loader_run();`);
        const answering = Date.now();
        const answers: Answer[] = [];
        const seconds: number[] = [];
        for (const [i, q] of dataset.queryFiles.entries()) {
          const asked = Date.now();
          if (slow(dataset, `Virtuoso: ${QUERIES[i].name}`)) answers.push({ rows: [] });
          else answers.push(await virtuosoAnswer(virtuoso, readFileSync(q, 'utf8')));
          seconds.push((Date.now() - asked) / 1000);
        }
        slowest(t, dataset, seconds);
        // Virtuoso 7.2 keeps an xsd:boolean as the integer 0 or 1.
        const asVirtuoso = {
          ...dataset,
          expected: dataset.expected.map(({ vars, rows }) => ({
            vars,
            rows: rows.map((r) =>
              Object.fromEntries(
                Object.entries(r).map(([v, c]) => [
                  v,
                  c.datatype === `${XSD}boolean` ? { ...c, value: c.value === 'true' ? '1' : '0', datatype: `${XSD}integer` } : c,
                ]),
              ),
            ),
          })),
        };
        failures.push(...compare(t, asVirtuoso, 'Virtuoso', answers));
        t.diagnostic(
          `${dataset.name}: loaded in ${((answering - started) / 1000).toFixed(0)} s, answered in ${((Date.now() - answering) / 1000).toFixed(0)} s`,
        );
        if (d < loaded.length - 1)
          await virtuoso.sql(`${dataset.graphs.map((g) => `SPARQL CLEAR GRAPH <${g}>;`).join(' ')} DELETE FROM DB.DBA.LOAD_LIST;`);
      }
    } finally {
      await virtuoso.stop();
    }
    assert.deepEqual(failures, []);
  });
});

/** The queries an engine took over 5 s to answer, said: where the test's time goes. */
function slowest(t: TestContext, dataset: Dataset, seconds: number[]): void {
  const slow = QUERIES.flatMap((q, i) => (seconds[i] > 5 ? [`${q.name} ${seconds[i].toFixed(0)} s`] : []));
  if (slow.length) t.diagnostic(`${dataset.name}, over 5 s: ${slow.join(', ')}`);
}

/**
 * Jena's answers over a TDB2 store, each query asked as `tdb2.tdbquery` asks it, all in one JVM
 * (JenaAsk.java, run from its source): the card's counts in one query.
 */
async function jenaAnswers(jena: Jena, loc: string, dataset: Dataset): Promise<Answer[]> {
  // Each count a sub-select of its own, `?n` renamed `?n<i>`: one row of every count.
  const counts = COUNTS.map(
    (q, i) =>
      `{ ${reified(q.text)
        .replace(/^PREFIX[^\n]*\n/gm, '')
        .replace('AS ?n)', `AS ?n${i})`)} }`,
  );
  const card = join(loc, 'card.rq');
  await writeFile(card, `${sparqlPrefixes()}SELECT * WHERE {\n${counts.join('\n')}\n}`);
  const files = [...READY.keys()].map((i) => dataset.queryFiles[i]).concat(card);
  const asked = (await jenaAsk(jena, loc, files)).map((a): Answer => ('error' in a ? a : { rows: a.results.bindings }));
  const all = asked.pop()!;
  for (const i of COUNTS.keys()) asked.push('error' in all ? all : { rows: all.rows.map((r) => ({ n: r[`n${i}`] })) });
  return asked;
}

/**
 * Virtuoso's answer through its SPARQL endpoint, its cells as JSON results give them. Posted, as
 * Weave's external store client posts: Virtuoso 7.2 cuts a GET's query string at about 10 kB, and
 * stored-texts.rq with its prefixes is more than that encoded ("Parentheses are not balanced").
 */
async function virtuosoAnswer(virtuoso: Virtuoso, query: string): Promise<Answer> {
  const res = await fetch(virtuoso.endpoint, {
    method: 'POST',
    headers: { accept: 'application/sparql-results+json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query }).toString(),
  });
  if (!res.ok) return { error: `${res.status}: ${(await res.text()).split('\n').slice(0, 3).join(' ')}` };
  return { rows: ((await res.json()) as { results: { bindings: Row[] } }).results.bindings };
}

/** Three sessions of the corpus with a compaction, the fewest events first: small, and with rows in most ready queries. */
async function corpusSessions(weave: Weave): Promise<string[]> {
  const json = await weaveAnswer(
    weave,
    'three sessions with a compaction',
    `SELECT ?session (COUNT(?e) AS ?events) WHERE {
      { SELECT DISTINCT ?session WHERE { ?c a weave:Compaction ; prov:generated ?b . ?t weave:hasEvent ?b ; weave:sessionId ?session } }
      ?t weave:sessionId ?session ; weave:hasEvent ?e .
    } GROUP BY ?session ORDER BY ?events ?session LIMIT 3`,
  );
  return json.results!.bindings.map((b) => String(b.session.value));
}
