import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import oxigraph from 'oxigraph';
import { runFederated } from '../../src/federation/engine.ts';
import type { OxStore } from '../../src/store/store.ts';
import { FIXTURES, ingestFresh, REPO, removeDir, select } from '../helpers.ts';

/**
 * The ready queries rewritten for speed (issue 23) answer as they did: on the fixtures, every row
 * of queries/NAME.rq equals the form they had, kept in bench/before/ (where the bench times the
 * two side by side), and the rows worked out by hand below are there.
 */

let dir: string;
let store: OxStore;
before(async () => {
  ({ dir, store } = await ingestFresh([FIXTURES]));
});
after(() => removeDir(dir));

const text = (...path: string[]) => readFileSync(join(REPO, ...path), 'utf8');
const sorted = (rows: Record<string, string>[]) => rows.map((r) => JSON.stringify(Object.entries(r).sort())).sort();
const local = (iri: string) => iri.slice(iri.lastIndexOf('#') + 1);

// model/agent-kinds (11 records, 11 texts) added 66 envelope rows (cwd, gitBranch, cliVersion,
// userType, recordSessionId, isSidechain each) and 11 texts. record-derived no longer derives the
// 279 turns' roles and 491 result blocks' tool use ids the graph states (weave/0.12), and adds
// agent-kinds' 11 record types and 9 parents that resolved: 1474 - 279 - 491 + 20 = 724.
// card (4 records) adds 30 envelope rows (its main file's 2 records state cwd, gitBranch,
// cliVersion, userType, entrypoint, recordSessionId and isSidechain; the sub-agent's 2 those and
// recordAgentId), 7 texts (2 prompts, an answer, 4 tool inputs), and 4 record types and 2 parents.
for (const [name, rows] of [
  ['record-envelope', 2150],
  ['stored-texts', 405],
  ['record-derived', 730],
] as const)
  test(`${name}.rq answers every row its earlier form answered, and no other`, () => {
    const now = select(store, text('queries', `${name}.rq`));
    const earlier = now.filter((r) => !(name === 'stored-texts' && LATER_TEXTS.has(local(r.property))));
    // The earlier stored-texts answered a server tool use's input twice (it is a ToolUseBlock too): one row.
    assert.deepEqual(sorted(earlier), [...new Set(sorted(select(store, text('bench', 'before', `${name}.rq`))))]);
    assert.equal(earlier.length, rows);
  });

/**
 * Texts stored-texts.rq answers since weave/0.16, which its earlier form never asked for: the
 * metadata records' texts, malformed lines and sub-agents' .meta.json.
 */
const LATER_TEXTS = new Set([
  'summary',
  'customTitle',
  'aiTitle',
  'agentName',
  'lastPrompt',
  'rawText',
  'agentDescription',
  'agentMetaJson',
]);

test('stored-texts.rq: the texts its earlier form did not ask for, each where it is', () => {
  const later = select(store, text('queries', 'stored-texts.rq')).filter((r) => LATER_TEXTS.has(local(r.property)));
  const by: Record<string, number> = {};
  for (const r of later) by[local(r.property)] = (by[local(r.property)] ?? 0) + 1;
  // The fixtures' metadata records (4 summaries, a custom title, 4 AI titles, an agent name, a
  // last prompt), 9 malformed lines, and 6 .meta.json sidecars of which 4 give a description.
  assert.deepEqual(by, {
    summary: 4,
    customTitle: 1,
    aiTitle: 4,
    agentName: 1,
    lastPrompt: 1,
    rawText: 9,
    agentDescription: 4,
    agentMetaJson: 6,
  });
  for (const r of later) {
    const sidecar = r.property.endsWith('#agentDescription') || r.property.endsWith('#agentMetaJson');
    assert.equal(r.line === '0', sidecar, `${r.property} at line ${r.line}`);
    assert.equal(local(r.state), 'ContentAvailable');
  }
});

test('record-envelope.rq: a transcript’s values for each record, but not those a record lacks or states itself', () => {
  const envelope = select(store, text('queries', 'record-envelope.rq'));
  const of = (session: string) =>
    envelope
      .filter((r) => r.session === session)
      .map((r) => `${r.event.slice(r.event.lastIndexOf('/') + 1)} ${local(r.property)} ${r.value}`)
      .sort();
  // hardening/odd: seven records, each with its sessionId and isSidechain false; only the first has
  // a cwd, so the six others lack it and get none of the transcript's.
  const odd = '0dd00dd0-0000-4000-8000-000000000001';
  const bare = ['0d000000-%EF%BF%BD-0002', ...[3, 4, 5, 6, 7].map((n) => `0d000000-0000-4000-8000-00000000000${n}`)];
  assert.deepEqual(
    of(odd),
    [
      '0d000000-0000-4000-8000-000000000001 cwd /home/ada/\u001b[31modd\u202e',
      '0d000000-0000-4000-8000-000000000001 isSidechain false',
      `0d000000-0000-4000-8000-000000000001 recordSessionId ${odd}`,
      ...bare.flatMap((e) => [`${e} isSidechain false`, `${e} recordSessionId ${odd}`]),
    ].sort(),
  );
  // spine 2222…: line 4 is the one sidechain record of the main transcript; it states true itself
  // and does not also get the transcript's false.
  const spine = of('22222222-2222-4222-8222-222222222222').filter((r) => r.includes(' isSidechain '));
  assert.deepEqual(spine, [
    'v-0001 isSidechain false',
    'v-0002 isSidechain false',
    'v-0003 isSidechain true',
    'v-0004 isSidechain false',
    'x-0001 isSidechain true',
    'x-0002 isSidechain true',
  ]);
});

test('record-envelope.rq answers the same where the query runs by the algebra (Comunica, as weave query --source runs it)', async () => {
  // Its earlier form tested "the record states none of its own" in a UNION branch that did not
  // bind the record: by the algebra no transcript's value passed (0 of these 15 rows), and only
  // Oxigraph's plan, feeding the record in, gave them.
  const odd = await ingestFresh([join(FIXTURES, 'hardening', 'odd')]);
  try {
    const query = text('queries', 'record-envelope.rq');
    const federated = await runFederated(odd.store, query, { sources: [], allow: [] });
    assert.equal(federated.kind, 'solutions');
    const rows = (federated.kind === 'solutions' ? (federated.results.results?.bindings ?? []) : []).map((b) =>
      Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v.value)])),
    );
    assert.deepEqual(sorted(rows), sorted(select(odd.store, query)));
    assert.equal(rows.length, 15);
  } finally {
    await removeDir(odd.dir);
  }
});

test('stored-texts.rq: a text kept whole is as long as its UTF-8 bytes', () => {
  const texts = select(store, text('queries', 'stored-texts.rq'));
  const at = (file: string, line: string, pointer: string) =>
    texts.filter((r) => r.path.endsWith(file) && r.line === line && r.pointer === pointer).map((r) => [local(r.state), r.byteLength]);
  // "single leg: [ME|🧠🎨8∠45]": 16 ASCII bytes before the key, 🧠 and 🎨 4 each, 8, ∠ 3, "45]".
  assert.deepEqual(at('f0f0f0f0-f0f0-4f0f-8f0f-f0f0f0f0f0f0.jsonl', '4', '/message/content/0/text'), [['ContentAvailable', '31']]);
  // "You forgot to update the README 📝 too.": 37 ASCII characters and one emoji.
  assert.deepEqual(at('b0b0b0b0-b0b0-4b0b-8b0b-b0b0b0b0b0b0.jsonl', '8', '/message/content/1/text'), [['ContentAvailable', '41']]);
  // A tool result "     1→# Demo": 12 characters, → in 3 bytes.
  assert.deepEqual(at('agent-a1b2c3d.jsonl', '3', '/message/content/0/content'), [['ContentAvailable', '15']]);
});

test('stored-texts.rq counts the bytes of UTF-8 at each width’s edges', () => {
  // One turn with a text block and a tool result, in the graph's shape: a character at each edge
  // of 1, 2, 3 and 4 bytes, and a NUL.
  const edges = 'a\u0000\u007f\u0080\u07ff\u0800\uffff\u{10000}\u{10ffff}';
  const json = JSON.stringify({ edges });
  const s = new oxigraph.Store();
  s.load(
    `PREFIX weave: <https://repolex.ai/ontology/weave#>
     <urn:transcript> weave:sessionId "s" ; weave:sourcePath "/t.jsonl" ; weave:hasEvent <urn:turn> .
     <urn:turn> a weave:Turn ; weave:sourceLine 1 ; weave:hasContentBlock <urn:block> ; weave:toolUseResult ${JSON.stringify(json)} .
     <urn:block> a weave:TextBlock ; weave:blockOrder 0 ; weave:text ${JSON.stringify(edges)} .`,
    { format: 'text/turtle', to_graph_name: oxigraph.namedNode('urn:g') },
  );
  const lengths = select(s, text('queries', 'stored-texts.rq'))
    .map((r) => `${r.pointer} ${r.byteLength}`)
    .sort();
  // 1 + 1 + 1 + 2 + 2 + 3 + 3 + 4 + 4 = 21 bytes; the JSON adds {"edges":""} (12) and writes the
  // NUL as \u0000 (5 more): 38.
  assert.deepEqual(lengths, ['/message/content/0/text 21', '/toolUseResult 38']);
  assert.deepEqual([Buffer.byteLength(edges), Buffer.byteLength(json)], [21, 38]);
  // And the SHA-256 of those bytes, which weave verify compares with the source's (issue 25).
  const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
  assert.deepEqual(
    select(s, text('queries', 'stored-texts.rq'))
      .map((r) => `${r.pointer} ${r.sha256}`)
      .sort(),
    [`/message/content/0/text ${sha(edges)}`, `/toolUseResult ${sha(json)}`],
  );
});

test('record-derived.rq: a record’s type from its class, the narrowest named one, and ids from what they name', () => {
  const derived = select(store, text('queries', 'record-derived.rq'));
  const of = (graph: string) =>
    derived
      .filter((r) => r.graph.endsWith(`/graph/${graph}`))
      .map((r) => `${r.subject.slice(r.subject.indexOf('Weave/') + 6)} ${local(r.property)} ${r.value}`)
      .sort();
  // hardening/odd: user, assistant, user, constructor, __proto__, attachment, system. The two
  // types no class names state their own weave:recordType, so nothing is derived for them; each
  // turn's parent is named by the id of the record before it. A turn's role and a result block's
  // tool use id are stated, as the card draws them, so none is derived.
  const odd = '0dd00dd0-0000-4000-8000-000000000001';
  const second = `Turn/${odd}/0d000000-%EF%BF%BD-0002`;
  assert.deepEqual(
    of(odd),
    [
      'Turn/0d000000-0000-4000-8000-000000000001 recordType user',
      `${second} recordType assistant`,
      `${second} parentEventId 0d000000-0000-4000-8000-000000000001`,
      'Turn/0d000000-0000-4000-8000-000000000003 recordType user',
      'Turn/0d000000-0000-4000-8000-000000000003 parentEventId 0d000000-\ufffd-0002',
      'Event/0d000000-0000-4000-8000-000000000006 recordType attachment',
      'Event/0d000000-0000-4000-8000-000000000007 recordType system',
    ].sort(),
  );
  // records 5555…: line 10, a file-history-delta, is a FileHistorySnapshot too; only its own name.
  const history = of('55555555-5555-4555-8555-555555555555').filter((r) => r.includes('file-history'));
  assert.deepEqual(history, [
    'Event/55555555-5555-4555-8555-555555555555/L10 recordType file-history-delta',
    'Event/55555555-5555-4555-8555-555555555555/L9 recordType file-history-snapshot',
  ]);
});
