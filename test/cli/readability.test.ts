import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { loadingBar, progressBar, readersBar, verifyBar } from '../../src/cli/progress.ts';
import { fixturesNote } from '../../src/cli/sources.ts';
import { ingest } from '../../src/ingest.ts';
import { fitTable } from '../../src/query/fit.ts';
import { explainSyntaxError } from '../../src/query/errors.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

/** What a new user meets on the command line: errors in words, tables that fit, progress that shows. */

const WEAVE = join(REPO, 'bin', 'weave');
const exec = promisify(execFile);

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(WEAVE, args, { encoding: 'utf8', env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const PREDECLARED = 'weave, rdf, rdfs, xsd, owl, prov, oa, skos, dcterms';

describe('SPARQL syntax errors name what was expected, in words', () => {
  // Oxigraph's own messages, as it gives them for these queries (positions after 9 prefix lines).
  const cases: [string, string, string][] = [
    [
      'SELEC ?s WHERE { ?s ?p ?o }',
      'error at 10:10: expected CONSTRUCT',
      'error at line 1, column 1: found "SELEC" where a query begins with SELECT, CONSTRUCT, DESCRIBE or ASK',
    ],
    [
      'SELECT ?s WHERE { ?s ?p ?o } LIMT 5',
      'error at 10:36: expected one of HAVING, OFFSET, OPTIONAL, VALUES',
      'error at line 1, column 30: found "LIMT"; after the WHERE clause come GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET or VALUES, or the end of the query',
    ],
    [
      'SELECT ?s\nWHERE { ?s ?p ?o',
      'error at 11:17: expected one of ",", ".", ";", "{", "}", [_]',
      'error at line 2, column 17: the query ends before the "{" at line 2, column 7 is closed with "}"',
    ],
    [
      'SELECT * WHERE { ?s ?p }',
      'error at 10:25: expected one of LATERAL, SERVICE',
      'error at line 1, column 25: the triple pattern "?s ?p" has no object',
    ],
    [
      'SELECT ?s WHERE { ?s ?p "abc }',
      'error at 10:31: expected one of "\\"", "\\\\", [_]',
      'error at line 1, column 31: the string opened at line 1, column 25 is not closed',
    ],
    [
      'SELECT (COUNT(*) ?n) WHERE { ?s ?p ?o }',
      'error at 10:23: expected DISTINCT',
      'error at line 1, column 18: found ?n after an expression; name it with AS, as in (COUNT(*) AS ?n)',
    ],
    [
      'SELECT ?s WHERE { ?s ?p ?o } ORDER ?s',
      'error at 10:38: expected BY',
      'error at line 1, column 38: found "?s": GROUP and ORDER are followed by BY',
    ],
    [
      'INSERT DATA { <urn:x:a> <urn:x:b> <urn:x:c> }',
      'error at 10:10: expected CONSTRUCT',
      'error at line 1, column 1: found "INSERT", which begins a SPARQL Update, where a query begins with SELECT, CONSTRUCT, DESCRIBE or ASK; only weave serve --allow-update takes updates, sent as update=',
    ],
    [
      'DESCRIBE',
      'error at 10:9: expected one of "$", "*"',
      'error at line 1, column 9: the query ends after DESCRIBE; name an IRI, a variable or *',
    ],
    // A "#" inside an IRI begins no comment: the prologue and the IRI are read whole.
    [
      'PREFIX weave: <https://repolex.ai/ontology/weave#>\nSELECT ?t WHERE { ?t a weave:Turn } ORDER ?t',
      'error at 11:45: expected BY',
      'error at line 2, column 45: found "?t": GROUP and ORDER are followed by BY',
    ],
    [
      'SELECT ?t WHERE { ?a <http://www.w3.org/ns/prov#generatedAtTime> ?t } LIMT 3',
      'error at 10:77: expected one of HAVING, OFFSET, OPTIONAL, VALUES',
      'error at line 1, column 71: found "LIMT"; after the WHERE clause come GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET or VALUES, or the end of the query',
    ],
    // A rule Oxigraph checks as it parses, named in a sentence among the tokens it expected.
    [
      'SELECT ?t WHERE { ?a ?b ?t } GROUP BY ?a',
      "error at 10:41: expected one of \"$\", \"(\", \":\", \"<\", \"?\", IF, TZ, The SELECT contains a variable that is unbound, ['0' ..= '9' | '\\u{00B7}' | '\\u{0300}'..='\\u{036F}' | '\\u{203F}'..='\\u{2040}'], ['A' ..= 'Z' | 'a' ..= 'z' | '\\u{00C0}'..='\\u{00D6}' | '\\u{00D8}'..='\\u{00F6}'\n| '\\u{00F8}'..='\\u{02FF}' | '\\u{0370}'..='\\u{037D}' | '\\u{037F}'..='\\u{1FFF}'\n| '\\u{200C}'..='\\u{200D}' | '\\u{2070}'..='\\u{218F}' | '\\u{2C00}'..='\\u{2FEF}'\n| '\\u{3001}'..='\\u{D7FF}' | '\\u{F900}'..='\\u{FDCF}' | '\\u{FDF0}'..='\\u{FFFD}'], ['_'], [_]",
      'error at line 1, column 41: the SELECT contains a variable that is unbound; a query that groups (GROUP BY, or an aggregate such as COUNT) selects only its group keys and aggregates, such as (SAMPLE(?x) AS ?any)',
    ],
    [
      'SELECT * WHERE { ?a ?b ?t } GROUP BY ?t',
      "error at 10:40: expected one of \"$\", \"(\", \":\", \"<\", \"?\", IF, SELECT * is not authorized with GROUP BY, TZ, ['0' ..= '9' | '\\u{00B7}' | '\\u{0300}'..='\\u{036F}' | '\\u{203F}'..='\\u{2040}'], ['A' ..= 'Z' | 'a' ..= 'z' | '\\u{00C0}'..='\\u{00D6}' | '\\u{00D8}'..='\\u{00F6}'\n| '\\u{00F8}'..='\\u{02FF}' | '\\u{0370}'..='\\u{037D}' | '\\u{037F}'..='\\u{1FFF}'\n| '\\u{200C}'..='\\u{200D}' | '\\u{2070}'..='\\u{218F}' | '\\u{2C00}'..='\\u{2FEF}'\n| '\\u{3001}'..='\\u{D7FF}' | '\\u{F900}'..='\\u{FDCF}' | '\\u{FDF0}'..='\\u{FFFD}'], ['_'], [_]",
      'error at line 1, column 40: SELECT * is not authorized with GROUP BY; name the group keys and aggregates instead of *',
    ],
    // An operator with nothing on one side: Oxigraph stops past it, at a LIMIT or the query's end.
    [
      'SELECT * { ?x ?p ?o FILTER(?x > ) } LIMIT 1',
      'error at 10:44: expected one of LANGMATCHES, [_]',
      'error at line 1, column 31: ">" has nothing on its right; an expression is needed there (a variable, a value, or a function call such as STR(?x))',
    ],
    [
      'SELECT * { ?x ?p ?o FILTER(?x != ) } ORDER BY ?x',
      'error at 10:48: expected ENCODE_FOR_URI',
      'error at line 1, column 31: "!=" has nothing on its right; an expression is needed there (a variable, a value, or a function call such as STR(?x))',
    ],
    [
      'SELECT * { ?x ?p ?o FILTER( >= 2) }',
      'error at 10:36: expected one of LANGDIR, MINUTES, PREDICATE, REPLACE, SECONDS, STRBEFORE, STRENDS, STRLANG, STRSTARTS, STRUUID, SUBJECT, [_], hasLang, isBLANK, isLITERAL, isNUMERIC',
      'error at line 1, column 29: ">=" has nothing on its left; an expression is needed there (a variable, a value, or a function call such as STR(?x))',
    ],
    // An IRI's "=" and a count's "*" are no operators.
    [
      'SELECT (COUNT( * ) AS ?n) { ?x <urn:x:a?b=c> ?o FILTER(?x <) }',
      'error at 10:63: expected one of ABS, AVG, COALESCE, CONTAINS, DATATYPE, DAY, IRI, MAX, MD5, MIN, NOT, NOW, STR, STRAFTER, SUM, TIMEZONE, URI, [_], isTriple, sameTerm',
      'error at line 1, column 59: "<" has nothing on its right; an expression is needed there (a variable, a value, or a function call such as STR(?x))',
    ],
  ];
  for (const [query, oxigraph, words] of cases)
    test(query.replace(/\n/g, ' '), () => assert.equal(explainSyntaxError(query, oxigraph, 9), words));

  test('an unknown prefix lists the predeclared ones, on one line, from the real parser (CLI)', async () => {
    const { code, stderr } = await run(['query', 'SELECT ?s WHERE { ?s foo:bar ?o }', '--store', join(REPO, 'nowhere')]);
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `weave query: error at line 1, column 29: unknown prefix "foo:" in foo:bar; the predeclared prefixes are ${PREDECLARED} (declare another with PREFIX name: <IRI>)\n`,
    );
    assert.doesNotMatch(stderr, /\\u\{/);
  });
});

describe('the command line on a store of the fixtures', () => {
  let dir: string;
  before(async () => {
    dir = await tempDir();
    await ingest([join(FIXTURES, 'spine')], { storeDir: dir, soul: 'local' });
  });
  after(() => removeDir(dir));

  test('--format that does not fit the query form is an error, naming the formats that do', async () => {
    const csv = await run(['query', 'CONSTRUCT WHERE { ?s ?p ?o } LIMIT 1', '--format', 'csv', '--store', dir]);
    assert.equal(csv.code, 2);
    assert.equal(
      csv.stderr,
      'weave query: --format csv is for SELECT and ASK results; a CONSTRUCT or DESCRIBE answers with a graph: use turtle, ntriples, nquads, trig, jsonld, rdfxml\n',
    );
    const turtle = await run(['query', 'SELECT * WHERE { ?s ?p ?o } LIMIT 1', '--format', 'turtle', '--store', dir]);
    assert.equal(turtle.code, 2);
    assert.match(
      turtle.stderr,
      /^weave query: --format turtle is for graphs \(CONSTRUCT, DESCRIBE\); a SELECT or ASK answers with solutions: use table, json, xml, csv, tsv\n$/,
    );
  });

  test('a query table fits the terminal (COLUMNS), and --wide prints every cell whole', async () => {
    const query = 'SELECT ?event ?text WHERE { ?event weave:hasContentBlock/weave:text ?text } ORDER BY ?event LIMIT 5';
    const narrow = await run(['query', query, '--store', dir], { COLUMNS: '60' });
    const lines = narrow.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2 + 5 + 1);
    assert.ok(
      lines.every((l) => l.length <= 60),
      lines.find((l) => l.length > 60),
    );
    assert.ok(lines.some((l) => l.includes('…')));
    assert.equal(lines[lines.length - 1], '(5 rows; cut to fit 60 columns; --wide shows all)');
    const wide = await run(['query', query, '--wide', '--store', dir], { COLUMNS: '60' });
    assert.ok(wide.stdout.split('\n').some((l) => l.length > 60));
    assert.ok(!wide.stdout.includes('…'));
    assert.match(wide.stdout, /\(5 rows\)\n$/);
  });

  /**
   * Found following the README at 80 columns: a lone column of turn IRIs (71 characters) was cut
   * at 60 with room to spare, and the table said nothing of it: every cell was first cut at 60
   * characters, which the terminal's fit never saw.
   */
  /** Found running a query file with a typo: the error gave a line and column, but not of which file. */
  test('a syntax error in a query file names the file, whether the server or this process reads it', async () => {
    const file = join(dir, 'unclosed.rq');
    await writeFile(file, 'SELECT ?s\nWHERE { ?s ?p ?o\n');
    // The file ends with a line break: the query ends at the start of line 3.
    const said = `weave query: ${file}: error at line 3, column 1: the query ends before the "{" at line 2, column 7 is closed with "}"\n`;
    for (const env of [{}, { WEAVE_NO_DAEMON: '1' }]) {
      const { code, stderr } = await run(['query', '-f', file, '--store', dir], env);
      assert.equal(code, 1);
      assert.equal(stderr, said);
    }
    // A query given as an argument has no file to name.
    const inline = await run(['query', 'SELECT ?s\nWHERE { ?s ?p ?o', '--store', dir]);
    assert.equal(
      inline.stderr,
      'weave query: error at line 2, column 17: the query ends before the "{" at line 2, column 7 is closed with "}"\n',
    );
  });

  test('a query table cuts no cell the terminal has room for, and a pipe says where it cut', async () => {
    const query = 'SELECT ?turn WHERE { ?turn a weave:Turn } ORDER BY ?turn LIMIT 2';
    const turn = '<urn:soul:local:Weave/Turn/11111111-1111-4111-8111-111111111111/a-000';
    const onTerminal = await run(['query', query, '--store', dir], { COLUMNS: '80' });
    assert.equal(onTerminal.stdout, `?turn\n${'-'.repeat(71)}\n${turn}1>\n${turn}2>\n(2 rows)\n`);
    const toPipe = await run(['query', query, '--store', dir], { COLUMNS: '' });
    const cutAt60 = `${turn.slice(0, 59)}…`;
    assert.equal(
      toPipe.stdout,
      `?turn\n${'-'.repeat(60)}\n${cutAt60}\n${cutAt60}\n(2 rows; cells cut at 60 characters; --wide shows all)\n`,
    );
  });

  test('weave ingest says what it read, detected and derived within 80 columns', async () => {
    const fresh = await tempDir('weave-ingest-80-');
    try {
      const { code, stdout } = await run(['ingest', join(FIXTURES, 'server'), '--store', fresh], { COLUMNS: '80', WEAVE_NO_DAEMON: '1' });
      assert.equal(code, 0);
      const lines = stdout.trimEnd().split('\n');
      assert.ok(
        lines.every((l) => l.length <= 80),
        lines.find((l) => l.length > 80),
      );
      // 414 quads: 407 before the card's statements came back, 6 turns' weave:role and 1 result's toolUseId.
      assert.match(lines[0], /^ingested: 2 sessions read \(0 unchanged\) · 2 files · 6 records · 414 quads ·$/);
      assert.ok(lines.some((l) => l.startsWith('derived: search/documents 2 (new) · usage/rows 2 (new) ·')));
    } finally {
      await removeDir(fresh);
    }
  });

  test('weave glossary fits 100 columns', async () => {
    const { stdout } = await run(['glossary'], { COLUMNS: '100' });
    assert.ok(stdout.split('\n').every((l) => l.length <= 100));
    // Its tables are some 300 columns wide: each term a block, its runtime name under it.
    assert.match(stdout, /\nllm\.call\n {4}runtime {2}message\.id\n/);
  });

  test('a weave: term the ontology lacks is named on stderr', async () => {
    const { stderr, stdout } = await run(['query', 'SELECT ?s WHERE { ?s weave:tolName ?o }', '--store', dir]);
    assert.equal(stderr, 'weave query: weave:tolName is not a term of the ontology (ontology/weave.ttl); nothing will match it\n');
    assert.match(stdout, /\(0 rows\)/);
  });
});

describe('sources and stores that are not there say what to do, in one line', () => {
  let dir: string;
  before(async () => {
    dir = await tempDir();
  });
  after(() => removeDir(dir));

  test('a file that is not a transcript, an empty folder, a path that does not exist', async () => {
    const notes = join(dir, 'notes.txt');
    await writeFile(notes, 'hello\n');
    const empty = join(dir, 'empty');
    await mkdir(empty);
    const store = join(dir, 'store');
    const what = 'name a projects root (~/.claude/projects), a project folder or one .jsonl';
    const file = await run(['ingest', notes, '--store', store]);
    assert.deepEqual([file.code, file.stderr], [1, `weave ingest: ${notes} is not a folder or a .jsonl transcript; ${what} transcript\n`]);
    const none = await run(['ingest', empty, '--store', store]);
    assert.deepEqual(
      [none.code, none.stderr],
      [1, `weave ingest: no Claude Code transcripts (.jsonl files) under ${empty}; ${what} file\n`],
    );
    const gone = await run(['ingest', join(dir, 'gone'), '--store', store]);
    assert.deepEqual([gone.code, gone.stderr], [1, `weave ingest: ${join(dir, 'gone')}: no such file or folder; ${what} transcript\n`]);
  });

  test('every command on a missing store fails with the same one line, writing nothing', async () => {
    const store = join(dir, 'never-ingested');
    const expected = `no store in ${store}: run "weave ingest" first, or name a store with --store DIR\n`;
    const commands = [
      ['query', 'SELECT * WHERE { ?s ?p ?o }'],
      ['usage'],
      // export once wrote the ontology alone and ended 0, as if the store had been exported.
      ['export'],
      ['search', 'anything'],
      ['conversation', 'abc'],
      ['verify'],
      ['validate'],
      ['detect'],
      ['status'],
    ];
    for (const [name, ...args] of commands) {
      // A temp folder of its own: no fixtures' store (store/fixtures.ts) of another run is named.
      const r = await run([name, ...args, '--store', store], { TMPDIR: dir });
      assert.deepEqual([name, r.code, r.stdout, r.stderr], [name, 1, '', `weave ${name}: ${expected}`]);
    }
  });
});

describe('progress and the fixtures demo', () => {
  /** A terminal that records what is written to it. */
  const terminal = () => {
    const written: string[] = [];
    return { written, stream: { isTTY: true, columns: 100, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream };
  };

  test('the readers phase has its own progress line, ending when the last session is read', () => {
    const t = terminal();
    const bar = readersBar(t.stream);
    bar.update(0, 4);
    bar.update(4, 4);
    bar.done();
    assert.deepEqual(t.written, [
      '\rrunning readers [........................] 0/4 sessions\x1b[K',
      '\rrunning readers [########################] 4/4 sessions\x1b[K',
      '\r\x1b[K',
    ]);
    const i = terminal();
    progressBar(i.stream).update({ sessionsDone: 2, sessionsTotal: 2, files: 3, records: 1200, bytes: 0 });
    assert.match(i.written[0], /^\rreading transcripts \[#{24}\] 2\/2 sessions · 3 files · 1,200 records · /);
    // weave serve opening a store: quads loaded of the manifest's.
    const o = terminal();
    loadingBar(o.stream).update(500, 1000);
    assert.deepEqual(o.written, ['\ropening the store [############............] 500/1,000 quads\x1b[K']);
    // weave verify: files checked of those to check.
    const v = terminal();
    verifyBar(v.stream).update(3, 56);
    assert.deepEqual(v.written, ['\rverifying [#.......................] 3/56 files\x1b[K']);
    // Off a terminal (a pipe, a log file), nothing.
    const pipe = { isTTY: false, write: () => assert.fail('wrote to a pipe') } as unknown as NodeJS.WriteStream;
    readersBar(pipe).update(1, 2);
  });

  test('the fixtures demo says up front which lines are broken on purpose', async () => {
    const note = await fixturesNote('no transcripts at /home/new/.claude/projects');
    assert.match(
      note,
      /^no transcripts at \/home\/new\/\.claude\/projects: using the bundled fixtures in \S+fixtures\/; 8 of their lines are broken on purpose, to show how Weave keeps them: /,
    );
    // Six in hardening/malformed (lines 2 to 7 do not parse), then the two of the spine demo, one entry per file and kind.
    assert.ok(
      note.endsWith(
        'hardening/malformed/-home-ada-broken/ba0ba0ba-0000-4000-8000-000000000001.jsonl lines 2, 3, 4, 5, 6, 7 (malformed JSON); ' +
          'spine/-home-ada-weave-demo/22222222-2222-4222-8222-222222222222.jsonl line 5 (malformed JSON); ' +
          'spine/-home-ada-weave-demo/22222222-2222-4222-8222-222222222222.jsonl line 8 (an unfinished last line)',
      ),
    );
    const dir = await tempDir();
    try {
      const { stderr } = await run(['ingest', join(FIXTURES, 'spine'), '--no-detect', '--store', dir]);
      assert.deepEqual(
        stderr
          .trimEnd()
          .split('\n')
          .map((l) => l.endsWith('(broken on purpose in the fixtures)')),
        [true, true],
      );
    } finally {
      await removeDir(dir);
    }
  });
});

test('fitTable drops the droppable columns first, then cuts the widest text; numbers stay whole', () => {
  const columns = [
    { head: 'Name', shrink: true },
    { head: 'Extra', drop: 1 },
    { head: 'N', align: 'right' as const },
  ];
  const rows = [['a rather long name indeed', 'something', '1,234']];
  assert.deepEqual(fitTable(columns, rows, 60), [
    `${'Name'.padEnd(25)}  ${'Extra'.padEnd(9)}      N`,
    '-------------------------  ---------  -----',
    'a rather long name indeed  something  1,234',
  ]);
  // And says so, in the width it has.
  assert.deepEqual(fitTable(columns, rows, 20), [
    'Name               N',
    '-------------  -----',
    'a rather lon…  1,234',
    '(1 column hidden to',
    ' fit 20 columns;',
    ' --wide shows all)',
  ]);
});

/**
 * Found in `weave usage --by person` at 80 columns: the models column (115 characters) was left out
 * last, after Who and the token columns, so the table was 59 columns wide with Total Tokens hidden.
 */
test('fitTable gives back the narrow columns it left out before a wide one whose leaving made room', () => {
  const columns = [
    { head: 'Name' },
    { head: 'Who', drop: 0 },
    { head: 'Models', shrink: true, drop: 2 },
    { head: 'Total', align: 'right' as const, drop: 1 },
    { head: 'N', align: 'right' as const },
  ];
  const rows = [['local', 'me', 'a'.repeat(50), '12,345', '7']];
  assert.deepEqual(fitTable(columns, rows, 30), [
    'Name   Who   Total  N',
    '-----  ---  ------  -',
    'local  me   12,345  7',
    '(1 column hidden to fit 30',
    ' columns; --wide shows all)',
  ]);
  // With less room only the most wanted comes back (Total, dropped after Who).
  assert.deepEqual(fitTable(columns, rows, 18), [
    'Name    Total  N',
    '-----  ------  -',
    'local  12,345  7',
    '(2 columns hidden',
    ' to fit 18',
    ' columns; --wide',
    ' shows all)',
  ]);
});

test('the README says how to put weave on PATH, and warns off npx weave', async () => {
  const readme = await readFile(join(REPO, 'README.md'), 'utf8');
  assert.match(readme, /npm link/);
  // A copy: plain `npm install -g .` makes a link to the checkout, as npm link does (tried in a temp --prefix).
  assert.match(readme, /npm install -g --install-links \./);
  for (const line of readme.split('\n').filter((l) => l.includes('npx weave'))) assert.match(line, /not|never|unrelated/i, line);
});
