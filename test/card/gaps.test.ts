import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
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
