import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
import { sessionsNamedQuery, sessionTitleQuery } from '../../src/model/title.ts';
import { sessionFactsQuery } from '../../src/overview/session.ts';
import { SESSIONS } from '../../src/overview/queries.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { documentsOutput, readDocuments } from '../../src/search/index.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { openQueries, selectRows } from '../../src/store/queries.ts';
import { preparedReport, preparedUsage } from '../../src/usage/prepared.ts';
import { loadPrices } from '../../src/usage/prices.ts';
import { reportFromRows, reportQuery } from '../../src/usage/report.ts';
import { FIXTURES, ingestFresh, removeDir, select, tempDir } from '../helpers.ts';
import { CARD } from './card.ts';

/**
 * Two things the card draws that the graph once could not answer, on fixtures/card (counted by
 * hand from its two files): a tool use's caller, and the session of a sub-agent file whose
 * session's main file is absent.
 */

const CALLERS = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const ORPHANS = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const W = 'https://repolex.ai/ontology/weave#';
const I = (local: string) => `urn:soul:local:Weave/${local}`;
const PREFIX = `PREFIX weave: <${W}>\n`;
const rows = (r: Record<string, string>[], ...vars: string[]) => r.map((row) => vars.map((v) => row[v] ?? '-').join(' | ')).sort();

let dir: string;
let store: OxStore;
before(async () => ({ dir, store } = await ingestFresh([join(FIXTURES, 'card')])));
after(() => removeDir(dir));

test("a tool use's caller is stated as the card draws it, linked to the server tool use that made the call", () => {
  const found = select(
    store,
    `${PREFIX}SELECT ?id ?caller ?use ?missing ?extra WHERE { ?b a weave:ToolUseBlock ; weave:toolUseId ?id .
      OPTIONAL { ?b weave:caller ?caller } OPTIONAL { ?b weave:callerToolUse ?use }
      OPTIONAL { ?b weave:callerToolUseId ?missing } OPTIONAL { ?b weave:extraJson ?extra } }`,
  );
  assert.deepEqual(rows(found, 'id', 'caller', 'use', 'missing', 'extra'), [
    // The code execution tool use the model called itself.
    'srvtoolu_c001 | direct | - | - | -',
    // Called by the program srvtoolu_c001 ran: linked to that block.
    `toolu_c002 | code_execution_20250825 | ${I(`ContentBlock/${CALLERS}/c-0002/0`)} | - | -`,
    // Its caller names no tool use of the session: the id is stated instead.
    'toolu_c003 | code_execution_20250825 | - | srvtoolu_c999 | -',
    // A field of the caller not read stays, and only it.
    'toolu_c004 | direct | - | - | {"caller":{"via":"sdk"}}',
  ]);
  const card = (statement: string) => CARD.find((c) => c.statement === statement)!;
  assert.equal(select(store, card('ToolUseBlock {…, caller}').holds)[0].n, '4');
  assert.equal(select(store, card('ToolUseBlock {…, caller}').breaks)[0].n, '0');
});

test("a sub-agent file whose session's main file is absent: its parent is that session's Transcript, marked absent", () => {
  const main = I(`Transcript/${ORPHANS}`);
  assert.deepEqual(rows(select(store, `SELECT ?p ?o WHERE { GRAPH ?g { <${main}> ?p ?o } }`), 'p', 'o'), [
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#type | https://repolex.ai/ontology/weave#ClaudeCodeTranscript',
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#type | https://repolex.ai/ontology/weave#Transcript',
    `${W}fileAbsent | true`,
    `${W}sessionId | ${ORPHANS}`,
    `${W}sessionSlug | ${ORPHANS}`,
  ]);
  // Followed as the card draws the sub-agent link, the session is there.
  const card = CARD.find((c) => c.statement.startsWith("a sub-agent's Transcript"))!;
  assert.equal(select(store, card.holds)[0].n, '1');
  assert.equal(select(store, card.breaks)[0].n, '0');
  assert.deepEqual(
    rows(
      select(
        store,
        `${PREFIX}SELECT ?agent ?session WHERE { ?t weave:agentId ?agent ; weave:parentTranscript ?p . ?p weave:sessionSlug ?session }`,
      ),
      'agent',
      'session',
    ),
    [`d0d0d0d | ${ORPHANS}`],
  );
});

test('the main file found after its sub-agent file was read: the transcript stands for it no longer', async () => {
  const root = await tempDir();
  const storeDir = await tempDir();
  try {
    const project = join(root, '-home-ada-card-demo');
    await cp(join(FIXTURES, 'card', '-home-ada-card-demo', ORPHANS), join(project, ORPHANS), { recursive: true });
    await ingest([root], { storeDir, soul: 'local' });
    const prompt = { type: 'user', uuid: 'm-0001', parentUuid: null, isSidechain: false, sessionId: ORPHANS };
    const main = join(project, `${ORPHANS}.jsonl`);
    await writeFile(
      main,
      `${JSON.stringify({ ...prompt, timestamp: '2026-11-05T10:59:00.000Z', message: { role: 'user', content: 'Look for TODOs' } })}\n`,
    );
    // Carried on from the first read, the stand-in would stay: the session is read whole again.
    await ingest([root], { storeDir, soul: 'local' });
    const { store: again } = await openStore(storeDir);
    const said = select(
      again,
      `${PREFIX}SELECT ?p ?o WHERE { GRAPH ?g { <${I(`Transcript/${ORPHANS}`)}> ?p ?o FILTER(?p IN (weave:fileAbsent, weave:sourcePath)) } }`,
    );
    assert.deepEqual(rows(said, 'p', 'o'), [`${W}sourcePath | ${main}`]);
  } finally {
    await removeDir(root);
    await removeDir(storeDir);
  }
});

test('a session whose main file is absent is titled by its sub-agent, marked, in every list as in its search', async () => {
  const [main, orphan] = ['Count the Markdown files', 'sub-agent: Find the TODOs'];
  const queries = await openQueries(dir);
  const ask = (query: string) => selectRows(queries, query);
  // The overview's and /conversation's list, and the MCP sessions tool.
  assert.deepEqual(rows(await ask(SESSIONS), 'session', 'title'), [`${CALLERS} | ${main}`, `${ORPHANS} | ${orphan}`]);
  // The session page, and weave conversation's heading and its list of sessions an id begins.
  const graph = sessionGraphIri('local', ORPHANS);
  assert.equal((await ask(sessionFactsQuery(graph, ORPHANS)))[0].title, orphan);
  assert.deepEqual(await ask(sessionTitleQuery(graph)), [{ title: orphan }]);
  assert.deepEqual(rows(await ask(sessionsNamedQuery('')), 'id', 'title'), [`${CALLERS} | ${main}`, `${ORPHANS} | ${orphan}`]);
  // weave usage session and /usage: from the prepared rows, and from the SPARQL over the graphs.
  const prices = await loadPrices();
  const prepared = preparedReport((await preparedUsage(dir))!, 'session', prices).extras.titles;
  const queried = reportFromRows('session', await ask(reportQuery('session', prices)), prices).extras.titles;
  for (const titles of [prepared, queried]) assert.deepEqual(Object.fromEntries(titles), { [CALLERS]: main, [ORPHANS]: orphan });
  // The search index's title for its hits.
  const files = (await readManifest(dir))!.files!;
  for (const [session, title] of [
    [CALLERS, main],
    [ORPHANS, orphan],
  ])
    assert.equal((await readDocuments(dir, files[documentsOutput(session).file].file)).title, title);
});
