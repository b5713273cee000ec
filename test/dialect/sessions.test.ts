import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { linksGraphIri } from '../../src/rdf/iri.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
import { count, ingestFresh, removeDir, REPO, select, tempDir } from '../helpers.ts';
import { RECORDS } from './helpers.ts';

/**
 * The records fixtures read whole: what needs the session in hand (titles on the transcript,
 * compaction links, hook runs joined to tool uses), links across sessions, and the questions of
 * the issue's "done when", asked with the queries in queries/.
 */

const S3 = '33333333-3333-4333-8333-333333333333';
const S4 = '44444444-4444-4444-8444-444444444444';
const S5 = '55555555-5555-4555-8555-555555555555';
const S6 = '66666666-6666-4666-8666-666666666666';
const S7 = '77777777-7777-4777-8777-777777777777';
const S8 = '88888888-8888-4888-8888-888888888888';
const I = (local: string) => `<urn:soul:local:Weave/${local}>`;

let dir: string;
let store: OxStore;
before(async () => ({ dir, store } = await ingestFresh([RECORDS])));
after(() => removeDir(dir));

const query = async (name: string) => select(store, await readFile(join(REPO, 'queries', `${name}.rq`), 'utf8'));
const rows = (list: Record<string, string>[], ...keys: string[]) => list.map((r) => keys.map((k) => r[k] ?? '-').join(' · '));

test('session-titles.rq: the last-written titles, agent name and permission mode are on the transcript', async () => {
  assert.deepEqual(rows(await query('session-titles'), 'session', 'title', 'customTitle', 'aiTitle', 'agentName', 'permissionMode'), [
    // An AI title only; the permission mode last written is the prompt's, after the record's "default".
    `${S3} · Tidy the README · - · Tidy the README · - · acceptEdits`,
    `${S4} · List the files · - · - · - · -`, // no runtime title: the first prompt
    // Two AI titles: the last stands; the user's custom title wins over it.
    `${S5} · records-demo: tests · records-demo: tests · Run the tests · records-demo: tests · acceptEdits`,
    `${S6} · Plan the migration · - · - · - · -`,
    // Its summaries describe records of other sessions: not its title.
    `${S7} · Continuing with step two. · - · - · - · -`,
    `${S8} · What is in this picture? · - · - · - · -`,
  ]);
  const prs = select(store, `SELECT ?url WHERE { <urn:soul:local:Weave/Transcript/${S5}> weave:prUrl ?url } ORDER BY ?url`).map(
    (r) => r.url,
  );
  assert.deepEqual(prs, ['https://github.com/ada/records-demo/pull/42', 'https://github.com/ada/records-demo/pull/43']);
});

test('session-compactions.rq: each compaction with its trigger and tokens before and after', async () => {
  assert.deepEqual(rows(await query('session-compactions'), 'session', 'compaction', 'kind', 'trigger', 'preTokens', 'postTokens'), [
    `${S4} · urn:soul:local:Weave/Compaction/${S4}/sy-0010 · microcompact · auto · 71221 · -`,
    `${S4} · urn:soul:local:Weave/Compaction/${S4}/sy-0011 · compact · manual · 142431 · 9000`,
    `${S7} · urn:soul:local:Weave/Compaction/${S7}/b-7001 · compact · auto · 167117 · -`,
    `${S7} · urn:soul:local:Weave/Compaction/${S7}/b-7002 · compact · manual · 52777 · -`,
  ]);
});

test('a compaction used the pre-compaction tail and generated the boundary and the summary turn', () => {
  const ask = (pattern: string) => count(store, pattern);
  assert.equal(ask(`${I(`Compaction/${S4}/sy-0011`)} prov:used ${I(`Turn/${S4}/a-4002`)}`), 1);
  assert.equal(ask(`${I(`Compaction/${S4}/sy-0011`)} prov:generated ${I(`Event/${S4}/sy-0011`)}`), 1);
  assert.equal(ask(`${I(`Compaction/${S4}/sy-0011`)} prov:generated ${I(`Turn/${S4}/u-4003`)}`), 1);
  assert.equal(ask(`${I(`Compaction/${S4}/sy-0011`)} prov:generated ?x`), 2);
  // The microcompaction used the record before its boundary and cleared the Bash call's output.
  assert.equal(ask(`${I(`Compaction/${S4}/sy-0010`)} prov:used ${I(`Event/${S4}/sy-0009`)}`), 1);
  assert.equal(ask(`${I(`Compaction/${S4}/sy-0010`)} weave:clearedToolUse ${I(`ContentBlock/${S4}/a-4001/0`)}`), 1);
});

test('a compaction whose tail is in an earlier session file is linked across sessions; one whose tail is nowhere stays recorded', async () => {
  const links = linksGraphIri('local');
  // The tail and the summary's leaf are records of session 6666…, a graph of their own.
  assert.equal(count(store, `GRAPH <${links}> { ${I(`Compaction/${S7}/b-7001`)} prov:used ${I(`Turn/${S6}/t-6002`)} }`), 1);
  assert.equal(count(store, `GRAPH <${links}> { ${I(`Event/${S7}/L1`)} weave:leafEvent ${I(`Turn/${S6}/t-6002`)} }`), 1);
  assert.equal(count(store, `GRAPH <urn:soul:local:Weave/graph/${S6}> { ${I(`Turn/${S6}/t-6002`)} a weave:AssistantTurn }`), 1);
  // 7777…'s conversation goes on from that same record: its first link back leaves the session.
  assert.equal(count(store, `GRAPH <${links}> { ${I(`Conversation/${S7}`)} weave:continuesFrom ${I(`Turn/${S6}/t-6002`)} }`), 1);
  assert.equal(count(store, `GRAPH <${links}> { ?s ?p ?o }`), 6);
  assert.equal(count(store, `${I(`Compaction/${S7}/b-7001`)} prov:generated ${I(`Turn/${S7}/t-7001`)}`), 1);
  // Dangling, but recorded: the id, the property, and no resolution.
  const dangling = select(
    store,
    `SELECT ?from ?property ?id WHERE {
    ?r a weave:CrossSessionReference ; weave:referenceFrom ?from ; weave:referenceProperty ?property ; weave:referenceTargetId ?id .
    FILTER NOT EXISTS { ?r weave:resolvedTo ?x } } ORDER BY ?id`,
  );
  assert.deepEqual(rows(dangling, 'from', 'property', 'id'), [
    `urn:soul:local:Weave/Compaction/${S7}/b-7002 · http://www.w3.org/ns/prov#used · gone-0001`,
    `urn:soul:local:Weave/Event/${S7}/L2 · https://repolex.ai/ontology/weave#leafEvent · gone-0002`,
  ]);
  assert.equal(count(store, `${I(`Compaction/${S7}/b-7002`)} weave:tailEventId "gone-0001"`), 1);
  assert.equal(count(store, `${I(`Compaction/${S7}/b-7002`)} prov:used ?x`), 0);
});

test("a tail in a session read later is linked then, without reading the compaction's session again", async () => {
  const work = await tempDir();
  const store2 = await tempDir();
  const project = join(work, '-home-ada-records-demo');
  try {
    await cp(RECORDS, work, { recursive: true });
    await rm(join(project, `${S6}.jsonl`));
    await ingest([work], { storeDir: store2, soul: 'local' });
    assert.equal((await readManifest(store2))!.graphs[linksGraphIri('local')], undefined, 'nothing to link: no links graph');

    await cp(join(RECORDS, '-home-ada-records-demo', `${S6}.jsonl`), join(project, `${S6}.jsonl`));
    const report = await ingest([work], { storeDir: store2, soul: 'local' });
    assert.deepEqual([report.sessions, report.skipped], [1, 5], 'only the new session is read');
    const { store: reopened } = await openStore(store2);
    assert.equal(count(reopened, `${I(`Compaction/${S7}/b-7001`)} prov:used ${I(`Turn/${S6}/t-6002`)}`), 1);
    assert.equal(count(reopened, `?r weave:resolvedTo ${I(`Turn/${S6}/t-6002`)}`), 3); // the tail, the leaf, and the conversation's continuation

    // Read again, the links graph is the same file.
    const manifest = (await readManifest(store2))!;
    const file = join(store2, manifest.graphs[linksGraphIri('local')].file);
    const first = await readFile(file, 'utf8');
    await ingest([work], { storeDir: store2, soul: 'local', force: true });
    assert.equal(await readFile(file, 'utf8'), first);
  } finally {
    await removeDir(work);
    await removeDir(store2);
  }
});

test('hook runs join the tool use they fired for, across outcomes and progress', () => {
  const pre = I(`HookRun/${S3}/toolu_3001/PreToolUse`);
  assert.equal(count(store, `${pre} weave:forToolUse ${I(`ContentBlock/${S3}/a-3001/0`)}`), 1);
  // The blocking error and the deferral are two outcomes of the one PreToolUse run.
  assert.deepEqual(
    select(store, `SELECT ?e WHERE { ?e weave:hookRun ${pre} } ORDER BY ?e`).map((r) => r.e),
    [`urn:soul:local:Weave/Event/${S3}/at-0009`, `urn:soul:local:Weave/Event/${S3}/at-0022`],
  );
  assert.equal(count(store, `${I(`HookRun/${S5}/toolu_5001/PostToolUse`)} weave:forToolUse ${I(`ContentBlock/${S5}/m-0002/0`)}`), 1);
  // "hk-0001" names no tool use: no link is made up.
  assert.equal(count(store, `${I(`HookRun/${S3}/hk-0001/SessionStart`)} weave:forToolUse ?x`), 0);
});

test('session-failed-hooks.rq: failed hook commands and Stop hook errors', async () => {
  assert.deepEqual(
    rows(await query('session-failed-hooks'), 'session', 'hookEvent', 'hookName', 'command', 'outcome', 'exitCode', 'error'),
    [
      `${S3} · PreToolUse · PreToolUse:Edit · guard readme · blocking_error · - · README is frozen`,
      `${S3} · PostToolUse · PostToolUse:Edit · npm run lint · non_blocking_error · 1 · lint: 2 warnings`,
      `${S3} · PostToolUse · PostToolUse:Edit · slow check · cancelled · - · -`,
      `${S3} · Stop · Stop · missing-tool · error_during_execution · - · spawn missing-tool ENOENT`,
      `${S4} · Stop · - · - · stop_hook_error · - · check-tests: 3 failing`,
    ],
  );
});

test('session-mcp-servers-and-skills.rq: servers from both deltas, skills listed and invoked', async () => {
  assert.deepEqual(rows(await query('session-mcp-servers-and-skills'), 'session', 'kind', 'name'), [
    `${S3} · mcp server · github`,
    `${S3} · skill · docs:publish`,
    `${S3} · skill · docs:review`,
    `${S3} · skill · pdf`,
    `${S3} · skill · xlsx`,
  ]);
});

test('session-attached-files.rq: each path attached and how; one file node per path across sessions', async () => {
  assert.deepEqual(rows(await query('session-attached-files'), 'session', 'path', 'kind'), [
    `${S3} · /home/ada/.claude/plans/tidy-readme.md · plan_file_reference`,
    `${S3} · /home/ada/records-demo/README.md · compact_file_reference`,
    `${S3} · /home/ada/records-demo/README.md · file`,
    `${S3} · /home/ada/records-demo/src · directory`,
    `${S3} · /home/ada/records-demo/src/CLAUDE.md · nested_memory`,
    `${S3} · /home/ada/records-demo/src/main.ts · edited_text_file`,
  ]);
  const readme = '<urn:soul:local:Weave/File/%2Fhome%2Fada%2Frecords-demo%2FREADME.md>';
  assert.equal(
    count(store, `GRAPH ?g { ?f weave:filePath "/home/ada/records-demo/README.md" }`),
    2,
    'one node, stated in the two graphs that name it',
  );
  assert.equal(count(store, `?f weave:filePath "/home/ada/records-demo/README.md"`), 1, 'and one triple of the union');
  assert.equal(select(store, 'SELECT DISTINCT ?f WHERE { ?f weave:filePath "/home/ada/records-demo/README.md" }').length, 1);
  assert.deepEqual(
    select(store, `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?e weave:file|weave:tracksFile ${readme} } } ORDER BY ?g`).map((r) => r.g),
    [`urn:soul:local:Weave/graph/${S3}`, `urn:soul:local:Weave/graph/${S5}`],
  );
});

test('session-overview.rq: the whole picture, one row per session', async () => {
  const split = (v: string | undefined) => (v ? v.split(' | ').sort().join(' | ') : '-');
  const overview = (await query('session-overview')).map((r) =>
    [r.session, r.title ?? '-', r.compactions ?? '-', split(r.failedHooks), split(r.mcpServers), split(r.skills), split(r.files)].join(
      ' · ',
    ),
  );
  assert.deepEqual(overview, [
    `${S3} · Tidy the README · - · PostToolUse:Edit cancelled | PostToolUse:Edit non_blocking_error | PreToolUse:Edit blocking_error | Stop error_during_execution · github · docs:publish | docs:review | pdf | xlsx · ` +
      '/home/ada/.claude/plans/tidy-readme.md | /home/ada/records-demo/README.md | /home/ada/records-demo/src | /home/ada/records-demo/src/CLAUDE.md | /home/ada/records-demo/src/main.ts',
    `${S4} · List the files · auto 71221 tokens | manual 142431 tokens · Stop check-tests: 3 failing · - · - · -`,
    `${S5} · records-demo: tests · - · - · - · - · -`,
    `${S6} · Plan the migration · - · - · - · - · -`,
    `${S7} · Continuing with step two. · auto 167117 tokens | manual 52777 tokens · - · - · - · -`,
    `${S8} · What is in this picture? · - · - · - · - · -`,
  ]);
});

test('every stored text has a content state: on its Content node, or from the graph where it is kept whole in its usual place', async () => {
  const PROPERTIES = `weave:text weave:signature weave:redactedData weave:toolInput weave:toolUseResult weave:attachmentJson
                      weave:progressJson weave:stdout weave:stderr weave:hookError weave:mediaData weave:summary
                      weave:customTitle weave:aiTitle weave:agentName weave:lastPrompt`;
  // A transcript's last-written titles are the derived graph's copies, not texts of a line.
  const values = select(
    store,
    `SELECT ?s ?p WHERE { GRAPH ?g { ?s ?p ?o . VALUES ?p { ${PROPERTIES} } } FILTER NOT EXISTS { GRAPH ?h { ?s a weave:Transcript } } }`,
  );
  const texts = await query('stored-texts');
  const answered = new Set(texts.map((r) => `${r.subject} ${r.property}`));
  assert.deepEqual(
    values.filter((v) => !answered.has(`${v.s} ${v.p}`)),
    [],
  );
  // 31 + 17 + 16 + 2 + 6 + 9 texts in the six sessions (see test/verify/verify.test.ts).
  assert.equal(texts.length, 81);
  // Content nodes only for the texts not kept whole, or kept away from their usual place.
  const bare = texts.filter((r) => count(store, `GRAPH ?g { <${r.subject}> weave:hasContent/weave:contentOf <${r.property}> }`) === 0);
  assert.ok(bare.length > 0);
  for (const r of bare) {
    assert.ok(r.state.endsWith('#ContentAvailable'));
    assert.match(
      r.pointer,
      /^(\/toolUseResult|\/data|\/summary|\/customTitle|\/aiTitle|\/agentName|\/lastPrompt|\/message\/content\/\d+\/(text|thinking|input|content))$/,
    );
  }
  assert.equal(count(store, 'GRAPH ?g { ?c a weave:Content }'), texts.length - bare.length);
});
