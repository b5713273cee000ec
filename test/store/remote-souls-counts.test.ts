import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { startTestServer } from '../server/helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * A session held by two souls in one external store (a real Virtuoso) counts once in every
 * answer. Two ways a store comes to hold one session twice: two machines read their copies of it
 * at the very same moment (neither finds the other's yet), or one machine's copy went on after it
 * was copied (the longer copy is read too, so its new lines are not lost). Figures are
 * fixtures/spine's, worked out from its lines: session 22222222 (legacy) has 2 calls of
 * claude-sonnet-4-5 on 2025-10-01 (msg_0030 10 in 2 out, msg_0031 20 in 9 out), one prompt
 * ("Hello", 5 characters) and one Bash call; session 11111111 has 3 calls of claude-haiku-4-5
 * (180 in, 23 out) and 4 of claude-opus-4-7 (1,000 in, 152 out, 10 written, 8,600 read) on
 * 2026-11-02, two prompts of 65 characters, and a Bash, a Task, a Read and a failed MCP call.
 */

const execute = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const SPINE = join(FIXTURES, 'spine');
const PROJECT = '-home-ada-weave-demo';
const LEGACY = '22222222-2222-4222-8222-222222222222.jsonl';
const NO_ID = '33333333-3333-4333-8333-333333333333';
const RECORDS_PROJECT = '-home-ada-records-demo';
const COMPACTED = '44444444-4444-4444-8444-444444444444';

/** `weave ARGS…` on the machine whose data directory is `home`; its stdout. */
async function weave(home: string, args: string[]): Promise<string> {
  return (await execute(WEAVE, args, { encoding: 'utf8', env: { ...process.env, WEAVE_HOME: home } })).stdout;
}

/** `weave query -f queries/<file>` on the machine `home` over the external store `endpoint`: its rows, each value as text. */
async function ready(home: string, endpoint: string, file: string): Promise<string[][]> {
  const stdout = await weave(home, ['query', '-f', join(REPO, 'queries', file), '--store', endpoint, '--format', 'json', '--no-daemon']);
  const answer = JSON.parse(stdout) as { head: { vars: string[] }; results: { bindings: Record<string, { value: string }>[] } };
  return answer.results.bindings.map((b) => answer.head.vars.map((v) => b[v]?.value ?? ''));
}

/** The graphs of `soul` in the store, each as N-Triples. */
async function graphsOf(virtuoso: Virtuoso, soul: string): Promise<Map<string, string>> {
  const query = `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "urn:soul:${soul}:")) }`;
  const answer = await fetch(`${virtuoso.endpoint}?query=${encodeURIComponent(query)}`, {
    headers: { accept: 'application/sparql-results+json' },
  });
  const rows = ((await answer.json()) as { results: { bindings: { g: { value: string } }[] } }).results.bindings;
  const graphs = new Map<string, string>();
  for (const { g } of rows)
    graphs.set(g.value, await (await fetch(crud(virtuoso, g.value), { headers: { accept: 'application/n-triples' } })).text());
  return graphs;
}

const crud = (virtuoso: Virtuoso, graph: string) => `${virtuoso.endpoint}-graph-crud?graph=${encodeURIComponent(graph)}`;

/**
 * Machines `a` (soul ada) and `b` (soul bob) read `projects` as at the very same moment: Ada reads
 * it; Bob reads his copy before Ada's graphs are there (they are held back from the store
 * meanwhile, as a write still under way), so each holds its sessions under its soul.
 */
async function readAtOnce(virtuoso: Virtuoso, projects: string, a: string, b: string): Promise<void> {
  assert.match(await weave(a, ['ingest', projects, '--store', virtuoso.endpoint, '--soul', 'ada']), /^ingested: \d+ sessions read/);
  const adas = await graphsOf(virtuoso, 'ada');
  for (const graph of adas.keys()) assert.equal((await fetch(crud(virtuoso, graph), { method: 'DELETE' })).ok, true);
  const bobs = await weave(b, ['ingest', projects, '--store', virtuoso.endpoint, '--soul', 'bob']);
  assert.match(bobs, /^ingested: \d+ sessions read/);
  assert.doesNotMatch(bobs, /held under another soul/);
  for (const [graph, triples] of adas) {
    const put = await fetch(crud(virtuoso, graph), { method: 'PUT', headers: { 'content-type': 'application/n-triples' }, body: triples });
    assert.equal(put.ok, true, graph);
  }
}

/** The answers a store holding fixtures/spine once gives, whoever holds it. */
const TOKENS = [
  ['2025-10-01', 'claude-sonnet-4-5', '2', '30', '11', '0', '0'],
  ['2026-11-02', 'claude-haiku-4-5', '3', '180', '23', '0', '0'],
  ['2026-11-02', 'claude-opus-4-7', '4', '1000', '152', '10', '8600'],
];
const TOOL_ERRORS = [
  ['mcp__my server__do#it', '1', '1', '1'],
  ['Bash', '2', '0', '0'],
  ['Read', '1', '0', '0'],
  ['Task', '1', '0', '0'],
];
const PROMPTS = [
  ['2025-10-01', '1', '5'],
  ['2026-11-02', '2', '65'],
];

/** Each ready query that counts, asked on machine `home`, answers as one copy of the spine does. */
async function countedOnce(home: string, endpoint: string): Promise<void> {
  assert.deepEqual(await ready(home, endpoint, 'tokens-per-day-per-model.rq'), TOKENS);
  assert.deepEqual(
    (await ready(home, endpoint, 'tool-error-rates.rq')).map((r) => [...r.slice(0, -1), String(Number(r.at(-1)))]),
    TOOL_ERRORS,
  );
  assert.deepEqual(await ready(home, endpoint, 'human-prompts-per-day.rq'), PROMPTS);
}

/** The rows of the first table in `html` after `from`: each cell's text. */
function table(html: string, from: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html.slice(html.indexOf(from)))?.[1] ?? '';
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) =>
      cell[1]
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

const sessionIn = (cell: string) => /[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/.exec(cell)?.[0];

/**
 * The pages of a `weave serve` on machine `home` in front of the store count the spine once: 18
 * turns in 11111111 (u-0001…u-0005, a-0001…a-0007, the sub-agent's s-0001…s-0004, the workflow
 * agent's w-0001 and w-0002), 6 in 22222222 (v-0001…v-0004, x-0001 and x-0002 of agent-5e5e5e5e).
 */
async function pagesCountOnce(home: string): Promise<void> {
  const server = await startTestServer(
    { storeDir: join(home, 'remote', (await readdir(join(home, 'remote')))[0]), soul: 'ada', workers: 1, queueLimit: 8 },
    null,
  );
  try {
    const page = async (path: string) => {
      const res = await fetch(`${server.base}${path}`);
      assert.equal(res.status, 200, path);
      return res.text();
    };
    const conversations = table(await page('/conversation'), '<table');
    assert.deepEqual(
      conversations.map((r) => [sessionIn(r[0]), r[2]]),
      [
        ['11111111-1111-4111-8111-111111111111', '18'],
        ['22222222-2222-4222-8222-222222222222', '6'],
      ],
    );
    const overview = await page('/overview');
    // Session, turns, API calls.
    assert.deepEqual(
      table(overview, 'id="sessions"').map((r) => [sessionIn(r[0]), r[4], r[5]]),
      [
        ['11111111-1111-4111-8111-111111111111', '18', '7'],
        ['22222222-2222-4222-8222-222222222222', '6', '2'],
      ],
    );
    assert.deepEqual(table(overview, 'id="tools"'), [
      ['Bash', '2', '0', '0.0%'],
      ['Read', '1', '0', '0.0%'],
      ['Task', '1', '0', '0.0%'],
      ['mcp__my server__do#it', '1', '1', '100.0%'],
    ]);
  } finally {
    await server.stop();
  }
}

describe('a session two souls read at the very same moment, in one external store', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let a: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-souls-counts-');
    a = join(base, 'a');
    await readAtOnce(virtuoso, SPINE, a, join(base, 'b'));
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it('the ready queries count its calls, tool calls and prompts once', async () => {
    await countedOnce(a, virtuoso.endpoint);
  });

  it('the overview and the conversations list count its turns and tool calls once', async () => {
    await pagesCountOnce(a);
  });
});

describe('a session whose copy went on on one machine, in one external store', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let a: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-souls-went-on-');
    // Bob holds the first three lines of 22222222 (its summary, "Hello" and the call msg_0030);
    // Ada the whole spine, read after, under her soul too since her copy is longer.
    const shorter = join(base, 'b-projects', PROJECT);
    await mkdir(shorter, { recursive: true });
    const lines = (await readFile(join(SPINE, PROJECT, LEGACY), 'utf8')).split('\n');
    await writeFile(join(shorter, LEGACY), `${lines.slice(0, 3).join('\n')}\n`);
    await weave(join(base, 'b'), ['ingest', join(base, 'b-projects'), '--store', virtuoso.endpoint, '--soul', 'bob']);
    a = join(base, 'a');
    assert.match(await weave(a, ['ingest', SPINE, '--store', virtuoso.endpoint, '--soul', 'ada']), /^ingested: 2 sessions read/);
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it('the ready queries count the lines both copies hold once', async () => {
    await countedOnce(a, virtuoso.endpoint);
  });

  it('the overview and the conversations list count the turns both copies hold once', async () => {
    await pagesCountOnce(a);
  });
});

describe('a call with no message.id, and a compacted session, two souls read at the very same moment', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let a: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-souls-no-id-');
    // A prompt and a reply whose message has no id (its call is keyed by its IRI): 7 in, 3 out.
    const project = join(base, 'projects', '-home-ada-no-id');
    await mkdir(project, { recursive: true });
    const envelope = {
      sessionId: NO_ID,
      cwd: '/home/ada/no-id',
      version: '2.0.30',
      gitBranch: '',
      userType: 'external',
      isSidechain: false,
    };
    const prompt = {
      ...envelope,
      parentUuid: null,
      type: 'user',
      message: { role: 'user', content: 'Hi there' },
      uuid: 'n-0001',
      timestamp: '2025-10-02T10:00:00.000Z',
    };
    const usage = { input_tokens: 7, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = {
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      usage,
    };
    const reply = { ...envelope, parentUuid: 'n-0001', type: 'assistant', message, uuid: 'n-0002', timestamp: '2025-10-02T10:00:01.000Z' };
    await writeFile(join(project, `${NO_ID}.jsonl`), `${JSON.stringify(prompt)}\n${JSON.stringify(reply)}\n`);
    // fixtures/records' session 44444444: compacted twice (auto at 71,221 tokens, then manual at 142,431), a Stop hook failed.
    await mkdir(join(base, 'projects', RECORDS_PROJECT));
    await copyFile(
      join(FIXTURES, 'records', RECORDS_PROJECT, `${COMPACTED}.jsonl`),
      join(base, 'projects', RECORDS_PROJECT, `${COMPACTED}.jsonl`),
    );
    a = join(base, 'a');
    await readAtOnce(virtuoso, join(base, 'projects'), a, join(base, 'b'));
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it('weave usage counts it once', async () => {
    const report = JSON.parse(await weave(a, ['usage', 'daily', '--json', '--store', virtuoso.endpoint, '--no-daemon']));
    assert.deepEqual(
      report.daily
        .filter((d: { date: string }) => d.date === '2025-10-02')
        .map((d: { date: string; inputTokens: number; outputTokens: number }) => [d.date, d.inputTokens, d.outputTokens]),
      [['2025-10-02', 7, 3]],
    );
  });

  it('session-titles.rq and session-overview.rq list each session once, each compaction once', async () => {
    assert.deepEqual(
      (await ready(a, virtuoso.endpoint, 'session-titles.rq')).map((r) => r.slice(0, 2)),
      [
        [NO_ID, 'Hi there'],
        [COMPACTED, 'List the files'],
      ],
    );
    assert.deepEqual(
      (await ready(a, virtuoso.endpoint, 'session-overview.rq')).map((r) => r.slice(0, 4)),
      [
        [NO_ID, 'Hi there', '', ''],
        [COMPACTED, 'List the files', 'auto 71221 tokens | manual 142431 tokens', 'Stop check-tests: 3 failing'],
      ],
    );
  });

  it('session-compactions.rq lists each compaction once, session-failed-hooks.rq each failed hook once', async () => {
    const compaction = (event: string) => `urn:soul:ada:Weave/Compaction/${COMPACTED}/${event}`;
    // sy-0010 a microcompaction (auto, 71,221 tokens before), sy-0011 a compaction (manual, 142,431 before, 9,000 after).
    assert.deepEqual(await ready(a, virtuoso.endpoint, 'session-compactions.rq'), [
      [COMPACTED, compaction('sy-0010'), 'microcompact', 'auto', '71221', '', '2026-11-04T09:00:13Z'],
      [COMPACTED, compaction('sy-0011'), 'compact', 'manual', '142431', '9000', '2026-11-04T09:00:16Z'],
    ]);
    assert.deepEqual(await ready(a, virtuoso.endpoint, 'session-failed-hooks.rq'), [
      [COMPACTED, 'Stop', '', '', 'stop_hook_error', '', 'check-tests: 3 failing', '2026-11-04T09:00:05Z'],
    ]);
  });

  it('claims-by-turn.rq and claims-with-quotes.rq list each claim once, named alike under both souls', async () => {
    // human/authored claims the three prompts: "Hi there" (n-0001), "List the files" (u-4001) and "Thanks" (u-4004).
    const turn = (session: string, uuid: string) => `urn:soul:ada:Weave/Turn/${session}/${uuid}`;
    const byTurn = await ready(a, virtuoso.endpoint, 'claims-by-turn.rq');
    assert.deepEqual(
      byTurn.map((r) => r.slice(0, 5)),
      [
        ['2025-10-02T10:00:00Z', turn(NO_ID, 'n-0001'), 'human/authored', 'human', '0.8'],
        ['2026-11-04T09:00:01Z', turn(COMPACTED, 'u-4001'), 'human/authored', 'human', '0.8'],
        ['2026-11-04T09:00:18Z', turn(COMPACTED, 'u-4004'), 'human/authored', 'human', '0.8'],
      ],
    );
    const claims = byTurn.map((r) => r[5]);
    for (const claim of claims) assert.match(claim, /^urn:soul:ada:Weave\/Claim\/[0-9a-f]{32}$/);
    const withQuotes = await ready(a, virtuoso.endpoint, 'claims-with-quotes.rq');
    assert.deepEqual(withQuotes, [
      [claims[0], 'human/authored', turn(NO_ID, 'n-0001'), '0.8', 'authored', '0', '8', 'Hi there', '', ''],
      [claims[1], 'human/authored', turn(COMPACTED, 'u-4001'), '0.8', 'authored', '0', '14', 'List the files', '', ''],
      [claims[2], 'human/authored', turn(COMPACTED, 'u-4004'), '0.8', 'authored', '0', '6', 'Thanks', '', ''],
    ]);
    // Bob's reader graphs name the same claims but for the soul.
    const bobs = [...(await graphsOf(virtuoso, 'bob')).values()].join('');
    const bobsClaims = [...new Set([...bobs.matchAll(/<urn:soul:bob:Weave\/(Claim\/[0-9a-f]{32})>/g)].map((m) => m[1]))].sort();
    assert.deepEqual(bobsClaims, claims.map((c) => c.replace('urn:soul:ada:Weave/', '')).sort());
  });
});

describe("the readers' findings of a session two souls read at the very same moment", { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let a: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-souls-findings-');
    a = join(base, 'a');
    await readAtOnce(virtuoso, join(FIXTURES, 'readers'), a, join(base, 'b'));
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it('sessions-with-exposed-secrets.rq counts each exposure and each secret once', async () => {
    // fixtures/readers' 70070070: an Anthropic key, a GitHub token and a URL's credentials, once each, the first at 14:00:02.
    const rows = await ready(a, virtuoso.endpoint, 'sessions-with-exposed-secrets.rq');
    assert.deepEqual(
      rows.map((r) => [r[0], r[1], r[2], r[3].split(', ').sort().join(', '), r[4]]),
      [['70070070-0700-4700-8700-700700700700', '3', '3', 'anthropic-api-key, github-token, url-credentials', '2026-03-05T14:00:02Z']],
    );
  });

  it('emojikey-key-legs.rq and emojikey-legs-over-time.rq list each leg once', async () => {
    // One soul's store lists 76 legs of keys (quoted templates too) and 71 live ones, no two rows alike.
    for (const [query, legs] of [
      ['emojikey-key-legs.rq', 76],
      ['emojikey-legs-over-time.rq', 71],
    ] as const) {
      const rows = (await ready(a, virtuoso.endpoint, query)).map((r) => JSON.stringify(r));
      assert.equal(rows.length, legs, query);
      assert.equal(new Set(rows).size, legs, query);
    }
    assert.deepEqual((await ready(a, virtuoso.endpoint, 'emojikey-key-legs.rq'))[0], [
      'e3e3e3e3-e3e3-4e3e-8e3e-e3e3e3e3e3e3',
      '[ME|🧠🎨8∠45]',
      'tool_result',
      '1',
      'v3-numeric',
      '0',
      'ME',
      '🧠',
      '🎨',
      '8',
      '45',
    ]);
  });
});

describe('the sessions of fixtures/records, two souls read at the very same moment', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let a: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-souls-records-');
    a = join(base, 'a');
    await readAtOnce(virtuoso, join(FIXTURES, 'records'), a, join(base, 'b'));
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  it('session-mcp-servers-and-skills.rq lists each MCP server and skill once', async () => {
    // 33333333: the server github (registered, and in the tools mcp__github__…), the skills listed and invoked.
    assert.deepEqual(await ready(a, virtuoso.endpoint, 'session-mcp-servers-and-skills.rq'), [
      ['33333333-3333-4333-8333-333333333333', 'mcp server', 'github'],
      ['33333333-3333-4333-8333-333333333333', 'skill', 'docs:publish'],
      ['33333333-3333-4333-8333-333333333333', 'skill', 'docs:review'],
      ['33333333-3333-4333-8333-333333333333', 'skill', 'pdf'],
      ['33333333-3333-4333-8333-333333333333', 'skill', 'xlsx'],
    ]);
  });
});
