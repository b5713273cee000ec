import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import type { OxStore } from '../../src/store/store.ts';
import { FIXTURES, ingestFresh, removeDir, select } from '../helpers.ts';
import { CARD } from './card.ts';

/**
 * What the card draws that the graph once could not answer, on fixtures/card (counted by hand
 * from its file): a tool use's caller.
 */

const CALLERS = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
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
