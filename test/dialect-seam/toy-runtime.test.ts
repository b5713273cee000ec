import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Parser } from 'n3';
import { glossaryCommand } from '../../src/cli/glossary.ts';
import { DIALECTS } from '../../src/dialect/index.ts';
import { ingest, type IngestReport } from '../../src/ingest.ts';
import { renderModelOntology } from '../../src/model/ontology.ts';
import { detect, type DetectReport } from '../../src/readers/detect.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
import { removeDir, select, tempDir } from '../helpers.ts';
import { select as selectOverHttp, SERVER_FIXTURES, startTestServer, type TestServer } from '../server/helpers.ts';
import { dialect as toy } from './toy-runtime/index.ts';

/**
 * The dialect seam, proved the way a mock adapter proves one: Toy Runtime (./toy-runtime/) is a
 * second dialect that lives in this folder only, and goes through ingest, the model, the
 * readers, `weave glossary` and the server with no edit anywhere else. Its fixture is one session,
 * desk/toy-0001.toylog, and every figure below is counted by hand from its eleven lines:
 *
 *   1  #toylog 1                                   a comment
 *   2  q1 -  ask    Please list the files in /srv/data.
 *   3  a1 q1 say    r1 Let me look.
 *   4  a2 a1 call   r1 c1 ls {"path":"/srv/data"}
 *   5  t1 a2 result c1 error ls: /srv/data: permission denied
 *   6  a3 t1 say    r2 I cannot read /srv/data.
 *   7  q2 a3 ask    No, list /srv instead.
 *   8  a4 q2 call   r3 c2 ls {"path":"/srv"}
 *   9  t2 a4 result c2 ok data
 *  10  a5 t2 say    r4 /srv holds one folder: data.
 *  11  this line is not a toy record                malformed
 *
 * Nine records, four of them the user's (q1, t1, q2, t2). Each ask opens a run and a talk (q1,
 * q2); a reply id is one llm.call (r1 has two fragments, a1 and a2); c1 and c2 are tool calls,
 * c1 failed. Readers: q1 and q2 are typed by a person (human/authored), q2 opens with "No," after
 * an answer that asks nothing (agent/correction), t1 is a failed tool result (tool/error).
 */

const TOY = fileURLToPath(new URL('./toy-runtime/fixtures/', import.meta.url));
const LOG = join(TOY, 'desk', 'toy-0001.toylog');
const WITH_TOY = [...DIALECTS, toy];
const INSTANCES = 'urn:soul:local:Weave/';
const WEAVE = 'https://repolex.ai/ontology/weave#';

/** A row as `a | b | c`, instance IRIs and weave: terms short. */
function line(row: Record<string, string>, ...vars: string[]): string {
  const short = (v: string) =>
    v.startsWith(INSTANCES) ? v.slice(INSTANCES.length) : v.startsWith(WEAVE) ? `weave:${v.slice(WEAVE.length)}` : v;
  return vars.map((v) => short(row[v] ?? '-')).join(' | ');
}
const rows = (store: OxStore, query: string, ...vars: string[]) =>
  select(store, `PREFIX weave: <${WEAVE}> PREFIX oa: <http://www.w3.org/ns/oa#> ${query}`)
    .map((r) => line(r, ...vars))
    .sort();

describe('a second dialect from one folder: Toy Runtime', () => {
  test('Claude Code discovery never reads its files; a .toylog named alone needs the toy dialect', async () => {
    const dir = await tempDir();
    try {
      const report = await ingest([TOY], { storeDir: dir, soul: 'local' });
      assert.deepEqual([report.sessions, report.files, report.records], [0, 0, 0]);
      await assert.rejects(
        ingest([LOG], { storeDir: dir, soul: 'local' }),
        /toy-0001\.toylog: no dialect reads this file \(known: claude-code\/1\)/,
      );
      const alone = await ingest([LOG], { storeDir: dir, soul: 'local', dialects: [toy] });
      assert.deepEqual([alone.sessions, alone.files, alone.records], [1, 1, 9]);
    } finally {
      await removeDir(dir);
    }
  });

  describe('ingest, the model and the readers', () => {
    let dir: string;
    let report: IngestReport;
    let detected: DetectReport;
    let store: OxStore;
    before(async () => {
      dir = await tempDir();
      report = await ingest([TOY], { storeDir: dir, soul: 'local', dialects: [toy] });
      detected = await detect({ storeDir: dir });
      ({ store } = await openStore(dir));
    });
    after(() => removeDir(dir));

    test('ingest: one session, one file, nine records, the malformed line named by file and line', () => {
      const { sessions, files, records, bytes, malformed, pending, replayed, problems } = report;
      assert.deepEqual(
        { sessions, files, records, bytes, malformed, pending, replayed },
        { sessions: 1, files: 1, records: 9, bytes: statSync(LOG).size, malformed: 1, pending: 0, replayed: 0 },
      );
      assert.deepEqual(
        problems.map((p) => [p.path, p.lineNo, p.kind]),
        [[LOG, 11, 'malformed']],
      );
    });

    test('the spine: the toy transcript class, and nine turns with their roles', () => {
      assert.deepEqual(
        rows(
          store,
          `SELECT ?t ?layout WHERE { ?t a <https://example.org/toy-runtime#Transcript> ; weave:sessionId "toy-0001" ; weave:transcriptLayout ?layout }`,
          't',
          'layout',
        ),
        ['Transcript/toy-0001 | desk'],
      );
      assert.deepEqual(rows(store, `SELECT ?turn ?role WHERE { ?turn a weave:Turn ; weave:role ?role }`, 'turn', 'role'), [
        'Turn/a1 | assistant',
        'Turn/a2 | assistant',
        'Turn/a3 | assistant',
        'Turn/a4 | assistant',
        'Turn/a5 | assistant',
        'Turn/q1 | user',
        'Turn/q2 | user',
        'Turn/t1 | user',
        'Turn/t2 | user',
      ]);
      assert.deepEqual(rows(store, `SELECT ?line WHERE { ?m a weave:MalformedLine ; weave:sourceLine ?line }`, 'line'), ['11']);
    });

    test('the model: one stream and epoch, two runs and two talks, four llm calls, two tool calls', () => {
      assert.deepEqual(rows(store, `SELECT ?s ?t WHERE { ?s a weave:Stream ; weave:recordedIn ?t }`, 's', 't'), [
        'Stream/toy-0001/main | Transcript/toy-0001',
      ]);
      assert.deepEqual(rows(store, `SELECT ?e WHERE { ?e a weave:Epoch }`, 'e'), ['Epoch/toy-0001/main/start']);
      assert.deepEqual(
        rows(
          store,
          `SELECT ?run ?first ?trigger ?talk WHERE { ?run a weave:Run ; weave:firstLine ?first ; weave:trigger ?trigger ; weave:within ?talk }`,
          'run',
          'first',
          'trigger',
          'talk',
        ),
        [
          'Run/toy-0001/main/q1 | 2 | weave:external | Talk/toy-0001/main/q1',
          'Run/toy-0001/main/q2 | 7 | weave:external | Talk/toy-0001/main/q2',
        ],
      );
      assert.deepEqual(rows(store, `SELECT ?talk ?label WHERE { ?talk a weave:Talk ; weave:labelledBy ?label }`, 'talk', 'label'), [
        'Talk/toy-0001/main/q1 | Turn/q1',
        'Talk/toy-0001/main/q2 | Turn/q2',
      ]);
      assert.deepEqual(
        rows(
          store,
          `SELECT ?call ?n ?run WHERE { ?call a weave:LlmCall ; weave:fragmentCount ?n ; weave:within ?run }`,
          'call',
          'n',
          'run',
        ),
        [
          'LlmCall/toy-0001/r1 | 2 | Run/toy-0001/main/q1',
          'LlmCall/toy-0001/r2 | 1 | Run/toy-0001/main/q1',
          'LlmCall/toy-0001/r3 | 1 | Run/toy-0001/main/q2',
          'LlmCall/toy-0001/r4 | 1 | Run/toy-0001/main/q2',
        ],
      );
      assert.deepEqual(
        rows(
          store,
          `SELECT ?tool ?error ?call ?result WHERE { ?tool a weave:ToolCall ; weave:resultIsError ?error ; weave:within ?call . ?result weave:resultOf ?tool }`,
          'tool',
          'error',
          'call',
          'result',
        ),
        ['ToolCall/toy-0001/c1 | true | LlmCall/toy-0001/r1 | Turn/t1', 'ToolCall/toy-0001/c2 | false | LlmCall/toy-0001/r3 | Turn/t2'],
      );
      assert.deepEqual(rows(store, `SELECT ?block WHERE { ?block a weave:AssistantMessage }`, 'block'), [
        'ContentBlock/a1/0',
        'ContentBlock/a3/0',
        'ContentBlock/a5/0',
      ]);
      assert.deepEqual(rows(store, `SELECT ?m WHERE { ?m a weave:ExternalMessage }`, 'm'), ['Turn/q1', 'Turn/q2']);
    });

    test('the readers: two prompts a person typed, one correction, one failed tool', () => {
      assert.deepEqual(detected.findings, {
        'emojikey/harvest': 0,
        'human/authored': 2,
        'tool/error': 1,
        'secret/exposure': 0,
        'agent/correction': 1,
      });
      assert.deepEqual(detected.problems, []);
      assert.deepEqual(
        rows(store, `SELECT ?type ?turn WHERE { ?a weave:eventType ?type ; oa:hasTarget/weave:atEvent ?turn }`, 'type', 'turn'),
        ['agent/correction | Turn/q2', 'human/authored | Turn/q1', 'human/authored | Turn/q2', 'tool/error | Turn/t1'],
      );
      assert.deepEqual(
        rows(store, `SELECT ?tool ?error WHERE { ?a oa:hasBody [ weave:toolName ?tool ; weave:errorLine ?error ] }`, 'tool', 'error'),
        ['ls | ls: /srv/data: permission denied'],
      );
      assert.deepEqual(rows(store, `SELECT ?cue ?text WHERE { ?a oa:hasBody [ weave:cue ?cue ; weave:cueText ?text ] }`, 'cue', 'text'), [
        'negation | No,',
      ]);
    });
  });

  test("the model names calls and tool calls by the dialect's own id rules", async () => {
    // The same toy session, read by a toy whose ids are all minted at random: its calls and tool
    // calls are then named by their ids alone, as one node in every session holding them.
    const dir = await tempDir();
    try {
      const minted = { ...toy, ids: { idPath: (id: string) => [id], callShared: () => true } };
      await ingest([LOG], { storeDir: dir, soul: 'local', dialects: [minted] });
      const { store } = await openStore(dir);
      assert.deepEqual(rows(store, `SELECT ?call WHERE { ?call a weave:LlmCall }`, 'call'), [
        'LlmCall/r1',
        'LlmCall/r2',
        'LlmCall/r3',
        'LlmCall/r4',
      ]);
      assert.deepEqual(rows(store, `SELECT ?tool WHERE { ?tool a weave:ToolCall }`, 'tool'), ['ToolCall/c1', 'ToolCall/c2']);
    } finally {
      await removeDir(dir);
    }
  });

  test('one ingest, both dialects: each session stamped with its own', async () => {
    const dir = await tempDir();
    try {
      const report = await ingest([SERVER_FIXTURES, TOY], { storeDir: dir, soul: 'local', dialects: WITH_TOY });
      // The Claude Code fixtures hold one record per line.
      const ccRecords = ['33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444']
        .map(
          (id) =>
            readFileSync(join(SERVER_FIXTURES, '-home-grace-weave-server', `${id}.jsonl`), 'utf8')
              .split('\n')
              .filter((l) => l.trim()).length,
        )
        .reduce((x, y) => x + y);
      assert.deepEqual([report.sessions, report.files, report.records, report.malformed], [3, 3, ccRecords + 9, 1]);
      const manifest = (await readManifest(dir))!;
      const stamps = Object.values(manifest.graphs)
        .map((g) => `${g.sessionId} ${g.builtWith!.split('+')[0]}`)
        .sort();
      assert.deepEqual(stamps, [
        '33333333-3333-4333-8333-333333333333 claude-code/1',
        '44444444-4444-4444-8444-444444444444 claude-code/1',
        'toy-0001 toy-runtime/1',
      ]);
    } finally {
      await removeDir(dir);
    }
  });

  test('weave glossary, and the ontology native terms, from a dialect list holding the toy', () => {
    const text = glossaryCommand(['toy-runtime/1'], WITH_TOY);
    const lines = text.split('\n');
    assert.equal(lines[0], 'dialect toy-runtime/1');
    assert.deepEqual(
      lines.slice(3, lines.indexOf('', 3)).map((r) =>
        r
          .split(/\s{2,}/)
          .slice(0, 3)
          .join(' | '),
      ),
      [
        'llm.call | reply | say and call lines',
        'run | ask | an ask line',
        'session | file name | a .toylog file',
        'talk | — | derived here',
        'tool | call + result | call and result lines',
      ],
    );
    assert.ok(text.includes('\n5 terms: 4 named by Toy Runtime, 1 derived\n'));
    assert.ok(text.includes('\nWhat Toy Runtime does not supply at all:\n\nWHAT'));
    const json = JSON.parse(glossaryCommand(['toy-runtime/1', '--json'], WITH_TOY));
    assert.deepEqual([json.dialects, json.counts], [['claude-code/1', 'toy-runtime/1'], { terms: 5, native: 4, derived: 1 }]);
    // The first dialect of the list is the default; the default list knows no toy.
    assert.equal(glossaryCommand([], [toy, ...DIALECTS]).split('\n')[0], 'dialect toy-runtime/1');
    assert.throws(() => glossaryCommand(['toy-runtime/1']), /no glossary for dialect "toy-runtime\/1"; known: claude-code\/1$/);
    assert.ok(
      renderModelOntology(WITH_TOY.map((d) => d.glossary)).includes(
        'weave:nativeTerm [ a weave:DialectMapping ; weave:dialect "toy-runtime/1" ; weave:runtimeName "reply" ; weave:runtimeWhere "say and call lines" ; weave:dialectNote "the lines sharing a reply id" ; weave:readByDialect true ]',
      ),
    );
  });

  describe('the server, its ingest thread loading the toy dialect by module URL', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ ingest: { paths: [TOY], refreshMs: 0, dialects: [toy] } }, null);
    });
    after(() => server.stop());

    test('the first ingest read the toy session, and SPARQL over the socket answers from it', async () => {
      assert.deepEqual(
        [server.ctx.ingester!.status.state, server.ctx.ingester!.status.last?.records, server.ctx.ingester!.status.problems],
        ['ready', 9, 1],
      );
      const turns = await selectOverHttp(
        server.base,
        `SELECT ?turn ?role WHERE { ?t weave:sessionId "toy-0001" ; weave:hasEvent ?turn . ?turn weave:role ?role } ORDER BY ?turn`,
      );
      assert.deepEqual(
        turns.map((r) => line(r, 'turn', 'role')),
        [
          'Turn/a1 | assistant',
          'Turn/a2 | assistant',
          'Turn/a3 | assistant',
          'Turn/a4 | assistant',
          'Turn/a5 | assistant',
          'Turn/q1 | user',
          'Turn/q2 | user',
          'Turn/t1 | user',
          'Turn/t2 | user',
        ],
      );
      const calls = await selectOverHttp(server.base, `SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:LlmCall }`);
      assert.deepEqual(calls, [{ n: '4' }]);
      const findings = await selectOverHttp(server.base, `SELECT (COUNT(?a) AS ?n) WHERE { ?a a oa:Annotation }`);
      assert.deepEqual(findings, [{ n: '4' }], 'the readers ran in the ingest thread');
    });

    test('VoID counts the toy session as a document', async () => {
      const res = await fetch(`${server.base}/void`, { headers: { accept: 'text/turtle' } });
      const quads = new Parser({ format: 'text/turtle' }).parse(await res.text());
      const documents = quads.filter(
        (q) => q.subject.value === `${server.base}/void#dataset` && q.predicate.value === 'http://rdfs.org/ns/void#documents',
      );
      assert.deepEqual(
        documents.map((q) => q.object.value),
        ['1'],
      );
    });
  });
});
