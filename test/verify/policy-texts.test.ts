import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contentPolicy, type ContentPolicy } from '../../src/emit/content.ts';
import { ingest } from '../../src/ingest.ts';
import { openStore } from '../../src/store/store.ts';
import { verify } from '../../src/verify.ts';
import { REPO, removeDir, select, tempDir } from '../helpers.ts';

/**
 * The content policy reaches every text a transcript holds (weave/0.16): the metadata records'
 * summary, titles, agent name and last prompt (`text`), a malformed line (`text`, its line
 * whole) and a sub-agent's `.meta.json` (`toolInput`: it restates the launching call's input).
 * Each is hashed, omitted or cut like any other text, and `weave verify` proves it.
 */

const S = '9a9a9a9a-0000-4000-8000-000000000001';
const PROMPT = 'Rename the parser module'; // 24 bytes
const MALFORMED = '{"type":"user","oops'; // 20 bytes, no JSON
const META = '{"agentType":"Explore","description":"Find parser uses","toolUseId":"toolu_01"}'; // 79 bytes
const record = (fields: object) => JSON.stringify({ sessionId: S, cwd: '/home/ada/rename', ...fields });

/** One session: a prompt, its metadata records, a malformed line, and a sub-agent with its .meta.json. */
async function writeSession(root: string): Promise<{ main: string; meta: string }> {
  const project = join(root, '-home-ada-rename');
  const agents = join(project, S, 'subagents');
  await mkdir(agents, { recursive: true });
  const main = join(project, `${S}.jsonl`);
  const lines = [
    record({
      type: 'user',
      uuid: '9a000000-0000-4000-8000-000000000001',
      parentUuid: null,
      timestamp: '2026-07-01T10:00:00.000Z',
      message: { role: 'user', content: PROMPT },
    }),
    record({ type: 'summary', summary: 'Parser renamed', leafUuid: '9a000000-0000-4000-8000-000000000001' }), // line 2, 14 bytes
    record({ type: 'custom-title', customTitle: 'Parser work' }), // line 3, 11 bytes
    record({ type: 'ai-title', aiTitle: 'Renaming the parser' }), // line 4, 19 bytes
    record({ type: 'agent-name', agentName: 'helper' }), // line 5, 6 bytes
    MALFORMED, // line 6
    record({ type: 'last-prompt', lastPrompt: PROMPT }), // line 7, 24 bytes
  ];
  await writeFile(main, `${lines.join('\n')}\n`);
  const agent = record({
    type: 'user',
    uuid: '9a000000-0000-4000-8000-00000000a001',
    parentUuid: null,
    isSidechain: true,
    agentId: 'a9a9',
    timestamp: '2026-07-01T10:00:01.000Z',
    message: { role: 'user', content: 'Look around' },
  });
  await writeFile(join(agents, 'agent-a9a9.jsonl'), `${agent}\n`);
  const meta = join(agents, 'agent-a9a9.meta.json');
  await writeFile(meta, META);
  return { main, meta };
}

const LATER = ['summary', 'customTitle', 'aiTitle', 'agentName', 'lastPrompt', 'rawText', 'agentDescription', 'agentMetaJson'];
const local = (iri: string) => iri.slice(iri.lastIndexOf('#') + 1);
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Ingests the session under `policy`; returns each new text's figures (stored-texts.rq) and its stored literal, and the store's directory. */
async function ingestUnder(policy: ContentPolicy) {
  const dir = await tempDir();
  const { main, meta } = await writeSession(join(dir, 'projects'));
  const storeDir = join(dir, 'store');
  await ingest([join(dir, 'projects')], { storeDir, soul: 'local', content: policy });
  const { store } = await openStore(storeDir);
  const rows = select(store, await readFile(join(REPO, 'queries', 'stored-texts.rq'), 'utf8'));
  const figures = rows
    .filter((r) => LATER.includes(local(r.property)))
    .map((r) => [local(r.property), Number(r.line), r.pointer, local(r.state), Number(r.byteLength), r.sha256 ?? null])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const literals = Object.fromEntries(
    // A transcript's last-written titles (the derived graph's copies) are left out: the texts of lines only.
    select(
      store,
      `SELECT ?p ?v WHERE { GRAPH ?g { ?s ?p ?v VALUES ?p { ${LATER.map((p) => `weave:${p}`).join(' ')} } }
        FILTER(?p IN (weave:agentDescription, weave:agentMetaJson) || NOT EXISTS { GRAPH ?h { ?s a weave:Transcript } }) }`,
    ).map((r) => [local(r.p), r.v]),
  );
  const words = select(
    store,
    'SELECT ?v WHERE { GRAPH ?g { ?s ?p ?v FILTER(isLiteral(?v) && CONTAINS(LCASE(STR(?v)), "arser")) } FILTER(STRSTARTS(STR(?g), "urn:soul:")) }',
  ).length;
  return { dir, storeDir, main, meta, figures, literals, words };
}

test('kept whole by default: each text where it was, proven by its literal, and verify passes', async () => {
  const run = await ingestUnder(contentPolicy());
  try {
    assert.deepEqual(run.figures, [
      ['agentDescription', 0, '/description', 'ContentAvailable', 16, sha('Find parser uses')],
      ['agentMetaJson', 0, '', 'ContentAvailable', 79, sha(META)],
      ['agentName', 5, '/agentName', 'ContentAvailable', 6, sha('helper')],
      ['aiTitle', 4, '/aiTitle', 'ContentAvailable', 19, sha('Renaming the parser')],
      ['customTitle', 3, '/customTitle', 'ContentAvailable', 11, sha('Parser work')],
      ['lastPrompt', 7, '/lastPrompt', 'ContentAvailable', 24, sha(PROMPT)],
      ['rawText', 6, '', 'ContentAvailable', 20, sha(MALFORMED)],
      ['summary', 2, '/summary', 'ContentAvailable', 14, sha('Parser renamed')],
    ]);
    assert.ok(run.words > 0, 'the words the other tests look for are there when kept');
    const report = await verify({ storeDir: run.storeDir });
    assert.equal(report.ok, true);
    // 8 texts here, and the two prompts'.
    assert.deepEqual(
      report.sessions.map((r) => [r.contents, r.cut, r.mismatched]),
      [[10, 0, 0]],
    );
  } finally {
    await removeDir(run.dir);
  }
});

test('--text-limit 10 cuts them, the sub-agent description and JSON too, with full length and SHA-256; verify passes', async () => {
  const run = await ingestUnder(contentPolicy([], 10));
  try {
    assert.deepEqual(run.figures, [
      ['agentDescription', 0, '/description', 'ContentTruncated', 16, sha('Find parser uses')],
      ['agentMetaJson', 0, '', 'ContentTruncated', 79, sha(META)],
      // 6 bytes: under the limit, kept whole.
      ['agentName', 5, '/agentName', 'ContentAvailable', 6, sha('helper')],
      ['aiTitle', 4, '/aiTitle', 'ContentTruncated', 19, sha('Renaming the parser')],
      ['customTitle', 3, '/customTitle', 'ContentTruncated', 11, sha('Parser work')],
      ['lastPrompt', 7, '/lastPrompt', 'ContentTruncated', 24, sha(PROMPT)],
      ['rawText', 6, '', 'ContentTruncated', 20, sha(MALFORMED)],
      ['summary', 2, '/summary', 'ContentTruncated', 14, sha('Parser renamed')],
    ]);
    assert.deepEqual(run.literals, {
      summary: 'Parser ren',
      customTitle: 'Parser wor',
      aiTitle: 'Renaming t',
      agentName: 'helper',
      lastPrompt: 'Rename the',
      rawText: '{"type":"u',
      agentDescription: 'Find parse',
      agentMetaJson: '{"agentTyp',
    });
    const report = await verify({ storeDir: run.storeDir });
    assert.equal(report.ok, true);
    // The 7 cut here and both prompts: the main one's 24 bytes, the sub-agent's "Look around" 11.
    assert.deepEqual(
      report.sessions.map((r) => [r.contents, r.cut, r.mismatched]),
      [[10, 9, 0]],
    );
  } finally {
    await removeDir(run.dir);
  }
});

test('--content text=hash: the texts by length and SHA-256 only; the .meta.json, a toolInput, stays; verify passes', async () => {
  const run = await ingestUnder(contentPolicy(['text=hash']));
  try {
    assert.deepEqual(run.figures, [
      ['agentDescription', 0, '/description', 'ContentAvailable', 16, sha('Find parser uses')],
      ['agentMetaJson', 0, '', 'ContentAvailable', 79, sha(META)],
      ['agentName', 5, '/agentName', 'ContentHashOnly', 6, sha('helper')],
      ['aiTitle', 4, '/aiTitle', 'ContentHashOnly', 19, sha('Renaming the parser')],
      ['customTitle', 3, '/customTitle', 'ContentHashOnly', 11, sha('Parser work')],
      ['lastPrompt', 7, '/lastPrompt', 'ContentHashOnly', 24, sha(PROMPT)],
      ['rawText', 6, '', 'ContentHashOnly', 20, sha(MALFORMED)],
      ['summary', 2, '/summary', 'ContentHashOnly', 14, sha('Parser renamed')],
    ]);
    assert.deepEqual(Object.keys(run.literals).sort(), ['agentDescription', 'agentMetaJson']);
    assert.equal((await verify({ storeDir: run.storeDir })).ok, true);
  } finally {
    await removeDir(run.dir);
  }
});

test('--content text=omit --content toolInput=omit: no word of them in any graph; verify passes', async () => {
  const run = await ingestUnder(contentPolicy(['text=omit', 'toolInput=omit']));
  try {
    assert.deepEqual(
      run.figures.map(([p, , , state, bytes]) => [p, state, bytes]),
      [
        ['agentDescription', 'ContentOmitted', 16],
        ['agentMetaJson', 'ContentOmitted', 79],
        ['agentName', 'ContentOmitted', 6],
        ['aiTitle', 'ContentOmitted', 19],
        ['customTitle', 'ContentOmitted', 11],
        ['lastPrompt', 'ContentOmitted', 24],
        ['rawText', 'ContentOmitted', 20],
        ['summary', 'ContentOmitted', 14],
      ],
    );
    // Not in the session graph, nor as the transcript's last-written title in the derived graph.
    assert.deepEqual(run.literals, {});
    assert.equal(run.words, 0);
    assert.equal((await verify({ storeDir: run.storeDir })).ok, true);
  } finally {
    await removeDir(run.dir);
  }
});

test('verify fails where a summary, a malformed line or a .meta.json differs from what the store holds', async () => {
  const run = await ingestUnder(contentPolicy(['text=hash']));
  try {
    const text = await readFile(run.main, 'utf8');
    // Same lengths: only the digests can tell.
    await writeFile(run.main, text.replace('Parser renamed', 'Parser Renamed').replace('"oops', '"oopz'));
    await writeFile(run.meta, META.replace('Find parser uses', 'Find Parser uses'));
    const report = await verify({ storeDir: run.storeDir });
    assert.equal(report.ok, false);
    assert.deepEqual(
      report.files.flatMap((f) => f.mismatches.map((m) => [m.path, m.lineNo, m.pointer, m.message])),
      [
        [run.main, 2, '/summary', 'the SHA-256 differs'],
        [run.main, 6, '', 'the SHA-256 differs'],
        [run.meta, 0, '/description', 'the SHA-256 differs'],
        [run.meta, 0, '', 'the SHA-256 differs'],
      ],
    );
  } finally {
    await removeDir(run.dir);
  }
});
