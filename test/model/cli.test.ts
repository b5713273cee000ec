import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { renderGlossary } from '../../src/cli/glossary.ts';
import { CLAUDE_CODE_GLOSSARY } from '../../src/dialect/claude-code/glossary.ts';
import { ingest } from '../../src/ingest.ts';
import { fixture } from './helpers.ts';

const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));
const execute = promisify(execFile);

/** Runs weave and returns its exit code and output, failing or not. */
async function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8', env });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** The glossary's own table, counted: a term with no runtime name is derived by this project. */
const TERMS = CLAUDE_CODE_GLOSSARY.terms.length;
const DERIVED = CLAUDE_CODE_GLOSSARY.terms.filter((t) => t.runtime === undefined).length;

test('weave glossary: the table sorted by model term, derived rows marked, the counts, then the two tables', () => {
  const text = renderGlossary(CLAUDE_CODE_GLOSSARY);
  const lines = text.split('\n');
  assert.equal(lines[0], 'dialect claude-code/1');
  assert.match(lines[2], /^MODEL +RUNTIME +WHERE +NOTE$/);
  const rows = lines.slice(3, lines.indexOf('', 3));
  assert.equal(rows.length, TERMS);
  const terms = rows.map((r) => r.split(/\s{2,}/)[0]);
  assert.deepEqual(terms, [...terms].sort());
  assert.equal(terms[0], 'agent.call');
  // Columns line up: RUNTIME starts at the same place on every row.
  const at = lines[2].indexOf('RUNTIME');
  assert.ok(rows.every((r) => r[at - 1] === ' ' && r[at] !== ' '));
  assert.match(rows.find((r) => r.startsWith('talk '))!, /^talk +— +derived here +one readable interaction/);
  assert.match(rows.find((r) => r.startsWith('llm.call '))!, /^llm\.call +message\.id +assistant records sharing one +its fragments/);
  assert.match(rows.find((r) => r.startsWith('run '))!, /^run +promptId +user records and tool results +one loop per \(stream, promptId\)/);
  assert.equal(rows.filter((r) => / — +derived here/.test(r)).length, DERIVED);
  assert.ok(text.includes(`\n${TERMS} terms: ${TERMS - DERIVED} named by Claude Code, ${DERIVED} derived\n`));
  assert.ok(text.includes('\nWhat Claude Code records that the model does not carry:\n\nFIELD'));
  assert.ok(text.includes('\nWhat Claude Code does not supply at all:\n\nWHAT'));
  assert.match(text, /\nrequestId +kept on each record as weave:requestId/);
  assert.match(text, /\nretry identity +a retried provider attempt is not linked/);
});

test('weave glossary at 80 columns: each term a block, every note whole, no line past 80', () => {
  // At 80 columns the table cut every note to a few words ("an agent call whe…") and said --wide shows all.
  const text = renderGlossary(CLAUDE_CODE_GLOSSARY, 80);
  const lines = text.split('\n');
  assert.deepEqual(
    lines.filter((l) => [...l].length > 80),
    [],
  );
  assert.ok(!text.includes('cut to fit') && !text.includes('--wide'));
  assert.deepEqual(lines.slice(0, 8), [
    'dialect claude-code/1',
    '',
    'agent.call',
    '    runtime  Agent, Task, Skill or Workflow tool_use',
    '    where    an assistant record',
    '    note     an agent call whether or not a child stream is joined to it; the',
    '             join is its own link (starts)',
    '',
  ]);
  // Every term at the left; every runtime name and note whole once its lines are joined.
  const blocks = text.split('\n\n').filter((b) => /^[a-z]\S*\n {4}runtime/.test(b));
  assert.equal(blocks.length, TERMS);
  const joined = text.replace(/\n +/g, ' ');
  assert.ok(CLAUDE_CODE_GLOSSARY.terms.every((t) => joined.includes(`runtime  ${t.runtime ?? '—'}`)));
  assert.ok(CLAUDE_CODE_GLOSSARY.terms.every((t) => !t.note || joined.includes(`note     ${t.note}`)));
  assert.match(text, /\nretry identity\n {4}why  a retried provider attempt is not linked to the one it replaced\n/);
});

test('weave glossary --json, and a dialect it does not know', async () => {
  const { stdout } = await run(['glossary', 'claude-code/1', '--json']);
  const json = JSON.parse(stdout);
  assert.deepEqual(json.counts, { terms: TERMS, native: TERMS - DERIVED, derived: DERIVED });
  assert.deepEqual(json.terms[0], {
    model: 'agent.call',
    runtime: 'Agent, Task, Skill or Workflow tool_use',
    where: 'an assistant record',
    note: 'an agent call whether or not a child stream is joined to it; the join is its own link (starts)',
    derived: false,
    read: true,
  });
  assert.equal(json.terms.find((t: { model: string }) => t.model === 'retries').read, false);
  assert.deepEqual([json.notCarried, json.notSupplied], [CLAUDE_CODE_GLOSSARY.notCarried, CLAUDE_CODE_GLOSSARY.notSupplied]);
  const bad = await run(['glossary', 'langsmith/1']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'weave glossary: no glossary for dialect "langsmith/1"; known: claude-code/1\n');
});

describe('weave conversation', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weave-conversation-'));
    await ingest([fixture('legacy-runs'), fixture('split-call')], { storeDir: dir, soul: 'test' });
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('fits the terminal: a value broken under its column, a tree line cut', async () => {
    const { stdout } = await run(['conversation', '8', '--store', dir], { ...process.env, COLUMNS: '64' });
    const lines = stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.filter((l) => [...l].length > 64),
      [],
    );
    const at = lines.indexOf('segments:');
    assert.deepEqual(lines.slice(at + 1, at + 3), [
      '    1  open       from line 1      2026-01-20 16:00:00 –',
      '                                   16:05:03 UTC 3 talks',
    ]);
    const unresolved = lines.indexOf('still unresolved (1):');
    assert.deepEqual(lines.slice(unresolved + 1, unresolved + 4), [
      '  notified_child         bq12                     a notification',
      '                                                  naming a child',
      '                                                  or task the',
    ]);
    assert.ok(lines.includes("          run (one prompt's work)  80000000-0000-4000-8000-0000…"));
  });

  /**
   * Found reading a long session with --terms native at 80 columns: every count of the node kinds
   * was cut to "…", since the names' column was as wide as the longest runtime name (73
   * characters) and the line was cut at its end.
   */
  test('the count tables keep their counts at any width, cutting the names instead', async () => {
    const { stdout } = await run(['conversation', '8', '--terms', 'native', '--store', dir], { ...process.env, COLUMNS: '44' });
    const lines = stdout.split('\n');
    const kinds = lines.indexOf('node kinds:');
    // 2 + 35 + 1 + 6 columns: the names get what the counts leave of 44.
    assert.deepEqual(lines.slice(kinds + 1, lines.indexOf('', kinds)), [
      '  conversation                             1',
      '  segment (activity window)                1',
      '  sessionId                                1',
      '  agentId (thread)                         2',
      '  epoch (context between compactions)      2',
      '  talk (exchange)                          3',
      "  promptId (one prompt's work)             4",
      '  step                                    16',
      '  origin.kind == "human" (prompt)          2',
      "  text block (model's reply)               3",
      '  attachment (injected context)            1',
      '  message.id (API call)                    4',
      '  tool_use + tool_result (tool call)       1',
      '  Agent, Task, Skill or Workflow too…      1',
      "  agent.output (sub-agent's answer)        1",
      '  <task-notification> (notification)       1',
      '  system/local_command (slash comman…      2',
      '  system/away_summary, stop_hook_sum…      1',
    ]);
  });

  test('prints the header, the counts and the containment tree from the graph', async () => {
    const { stdout } = await run(['conversation', '8', '--store', dir]);
    assert.equal(
      stdout,
      `conversation 80000000-0000-4000-8000-000000000001
  title      Summarize the open issues.
  segments   1 (1 open, 0 candidate), policy v1+idle=10m0s
  streams    2 (1 main, 1 child)
  entities   30 nodes, 8 relations, 1 unresolved
  terms      plain names in brackets; weave glossary says what each term means

node kinds:
  conversation                                  1
  segment (activity window)                     1
  session                                       1
  stream (thread)                               2
  epoch (context between compactions)           2
  talk (exchange)                               3
  run (one prompt's work)                       4
  step                                         16
  message.external (prompt)                     2
  message.assistant (model's reply)             3
  context.injection (injected context)          1
  llm.call (API call)                           4
  tool (tool call)                              1
  agent.call (sub-agent call)                   1
  agent.output (sub-agent's answer)             1
  runtime.notification (notification)           1
  control.command (slash command)               2
  control.notice (runtime notice)               1

relations:
  within                                       27
  starts                                        1
  reports                                       1
  ends_with                                     1
  result_of                                     2
  in_segment                                    3

evidence:
  exact_unique (exact)                         54
  strong_inference (inferred)                  20
  unresolved (not found)                        2

segments:
    1  open       from line 1      2026-01-20 16:00:00 – 16:05:03 UTC  3 talks

still unresolved (1):
  notified_child         bq12                     a notification naming a child or task the session does not hold

structure (containment only; what flows across streams is a relation):
  session  80000000-0000-4000-8000-000000000001
    stream (thread)  main
      epoch (context between compactions)  1, from line 1
        talk (exchange)  "Summarize the open issues."
          run (one prompt's work)  80000000-0000-4000-8000-00000000c001  external (strong_inference)
            message.external (prompt)  line 1
            llm.call (API call)  1 fragment  claude-sonnet-4-5-20250929  [strong_inference]
              agent.call (sub-agent call)  Task → 5e6f7a8b
            llm.call  1 fragment  claude-sonnet-4-5-20250929  [strong_inference]
              message.assistant (model's reply)  line 4
            control.notice (runtime notice)  line 5  [strong_inference]
            context.injection (injected context)  line 6  [strong_inference]
        talk  "/cost"
          run  80000000-0000-4000-8000-00000000c007  external (strong_inference)
            control.command (slash command)  line 7
            control.command  line 8  [strong_inference]
          run  80000000-0000-4000-8000-00000000c009  notification (strong_inference)  [strong_inference]
            runtime.notification (notification)  line 9
            llm.call  1 fragment  claude-sonnet-4-5-20250929  [strong_inference]
              message.assistant  line 10
    stream  5e6f7a8b  ← Task (exact_unique)
      epoch  1, from line 1
        talk  "List the open issues."
          run  80000000-0000-4000-8000-00000000d001  unknown (unresolved)
            message.external  line 1
            llm.call  1 fragment  claude-sonnet-4-5-20250929  [strong_inference]
              message.assistant  line 2
            agent.output (sub-agent's answer)  line 2  [strong_inference]
`,
    );
  });

  test("--terms native prints Claude Code's words, both prints both; the tree is bounded", async () => {
    const native = (await run(['conversation', '80000000-0000-4000-8000-000000000001', '--terms', 'native', '--store', dir])).stdout;
    assert.match(native, /\n {2}promptId \(one prompt's work\) +4\n/);
    assert.match(native, /\n {2}message\.id \(API call\) +4\n/);
    assert.match(native, /\n {2}tool_use \+ tool_result \(tool call\) +1\n/);
    assert.match(native, /\n {2}talk \(exchange\) +3\n/);
    assert.match(native, /\n {8}talk {2}"\/cost"\n {10}promptId {2}80000000-0000-4000-8000-00000000c007/);
    const both = (await run(['conversation', '8', '--terms', 'both', '--store', dir])).stdout;
    assert.match(both, /\n {2}run {2}\(promptId\) \(one prompt's work\) +4\n/);
    assert.match(both, /\n {2}talk \(exchange\) +3\n/);
    assert.match(both, /\n {10}run {2}\(promptId\) {2}80000000-0000-4000-8000-00000000c007/);
    const bounded = (await run(['conversation', '2', '--depth', '4', '--width', '1', '--store', dir])).stdout.split('structure')[1];
    assert.equal(
      bounded,
      ` (containment only; what flows across streams is a relation):
  session  20000000-0000-4000-8000-000000000001
    stream (thread)  main
      epoch (context between compactions)  1, from line 1
        talk (exchange)  "Rename the handler and check the changelog."
          … 1 more
        … 1 more
`,
    );
  });

  test('--json and --format yaml print one document: header, counts, evidence, segments, unresolved, the whole tree', async () => {
    const json = JSON.parse((await run(['conversation', '8', '--json', '--store', dir])).stdout);
    const yaml = YAML.parse((await run(['conversation', '8', '--format', 'yaml', '--store', dir])).stdout);
    assert.deepEqual(yaml, json);
    assert.deepEqual(Object.keys(json), ['view', 'header', 'counts', 'evidence', 'segments', 'unresolved', 'tree']);
    assert.equal(json.view, 'weave.conversation/1');
    const S = '80000000-0000-4000-8000-000000000001';
    assert.deepEqual(json.header, {
      conversation: S,
      session: S,
      dialect: 'claude-code/1',
      continuesFrom: [],
      streams: { main: 1, child: 1 },
      entities: { nodes: 30, relations: 8, unresolved: 1 },
    });
    // The same figures as the text: every kind and relation, in the model's words.
    assert.deepEqual(json.counts.relations, { within: 27, starts: 1, reports: 1, ends_with: 1, result_of: 2, in_segment: 3 });
    assert.equal(json.counts.kinds['llm.call'], 4);
    assert.equal(json.counts.kinds.segment, 1);
    assert.deepEqual(json.evidence, { exact_unique: 54, strong_inference: 20, unresolved: 2 });
    assert.deepEqual(json.segments, [
      {
        segment: 1,
        state: 'open',
        policy: 'v1+idle=10m0s',
        firstLine: 1,
        from: '2026-01-20T16:00:00Z',
        until: '2026-01-20T16:05:03Z',
        talks: 3,
        iri: `urn:soul:test:Weave/Segment/${S}/1`,
      },
    ]);
    assert.deepEqual(json.unresolved, [
      { kind: 'notified_child', id: 'bq12', reason: 'a notification naming a child or task the session does not hold' },
    ]);
    // The whole tree, unbounded: the 28 lines of the text's tree, every node but the conversation and its segment.
    const nodes: { kind: string; children: unknown[] }[] = [];
    const walk = (n: { kind: string; children: unknown[] }) => {
      nodes.push(n);
      (n.children as (typeof n)[]).forEach(walk);
    };
    walk(json.tree);
    assert.equal(nodes.length, 28);
    assert.equal(nodes.length, json.header.entities.nodes - json.counts.kinds.conversation - json.counts.kinds.segment);
    assert.deepEqual(
      json.tree.children.map((s: { label: string }) => s.label),
      ['main', '5e6f7a8b  ← Task (exact_unique)'],
    );
    assert.deepEqual(nodes.filter((n) => n.kind === 'llm.call').length, json.counts.kinds['llm.call']);
    assert.deepEqual(nodes.filter((n) => n.kind === 'talk').length, json.counts.kinds.talk);
    const bad = await run(['conversation', '8', '--format', 'xml', '--store', dir]);
    assert.deepEqual([bad.code, bad.stderr], [2, 'weave conversation: --format must be text, json or yaml, not "xml"\n']);
  });

  test('a session that is not there, and a bad option, are one clear line', async () => {
    const missing = await run(['conversation', '9', '--store', dir]);
    assert.deepEqual([missing.code, missing.stderr], [1, `weave conversation: no session 9 in ${dir}\n`]);
    const bad = await run(['conversation', '8', '--terms', 'runtime', '--store', dir]);
    assert.deepEqual([bad.code, bad.stderr], [2, 'weave conversation: --terms must be model, native or both, not "runtime"\n']);
  });
});
