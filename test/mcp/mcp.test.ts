import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { appendFile, cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ingest } from '../../src/ingest.ts';
import { MANIFEST_FILE } from '../../src/store/layout.ts';
import { readManifest, renderManifest } from '../../src/store/manifest.ts';
import { isRunning, readRunFile } from '../../src/store/running.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * `weave mcp` as an agent uses it: a real subprocess spoken to over stdio by the SDK's own
 * client. Each tool's answer on the fixtures is checked against the command that answers the
 * same question (`weave search --json`, `weave query --format json`, `weave conversation --json`,
 * `weave usage --json`) and against figures worked out by hand (test/usage/fixtures.test.ts
 * works out the tokens and cost); a write, a 10k-deep query and a query past the timeout each
 * get a tool error, and the server answers the next call.
 */

const PROJECTS = ['spine/-home-ada-weave-demo', 'model/split-call/-home-dev-api', 'server/-home-grace-weave-server'].map((p) =>
  join(FIXTURES, p),
);
const SESSION = '11111111-1111-4111-8111-111111111111';
// No auto-started daemon: this test decides what runs.
const ENV = { ...(process.env as Record<string, string>), WEAVE_NO_DAEMON: '1' };
const exec = promisify(execFile);

async function weave(...args: string[]): Promise<string> {
  return (await exec(join(REPO, 'bin', 'weave'), args, { env: ENV, maxBuffer: 1 << 26 })).stdout;
}

interface Connected {
  client: Client;
  stderr: () => string;
}

async function connect(dir: string, ...options: string[]): Promise<Connected> {
  return connectWith(ENV, dir, ...options);
}

async function connectWith(env: Record<string, string>, dir: string, ...options: string[]): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(REPO, 'src', 'cli', 'main.ts'), 'mcp', '--store', dir, ...options],
    cwd: REPO,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'weave-test', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

interface ToolAnswer {
  isError: boolean;
  text: string;
  json: () => Record<string, unknown> & { [k: string]: any };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0].text;
  return { isError: result.isError === true, text, json: () => JSON.parse(text) };
}

/** A SPARQL JSON term as the sparql tool writes it. */
const termText = (t: { type: string; value: string }) => (t.type === 'uri' ? `<${t.value}>` : t.value);

describe('weave mcp over stdio, on the fixtures', () => {
  let dir: string;
  let mcp: Connected;
  before(async () => {
    dir = await tempDir();
    await ingest(PROJECTS, { storeDir: dir, soul: 'local' });
    mcp = await connect(dir);
  });
  after(async () => {
    await mcp?.client.close();
    await removeDir(dir);
  });

  test('lists six tools, each with a description and an input schema; the ontology, glossary and ready queries', async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['conversation', 'describe', 'search', 'sessions', 'sparql', 'usage']);
    for (const t of tools) {
      assert.ok((t.description ?? '').length > 100, t.name);
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.annotations?.readOnlyHint, true);
    }
    assert.deepEqual(Object.keys(tools.find((t) => t.name === 'sparql')!.inputSchema.properties ?? {}), ['query', 'limit']);
    const { resources } = await mcp.client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('weave://ontology') && uris.includes('weave://glossary'));
    const ready = readdirSync(join(REPO, 'queries')).filter((f) => f.endsWith('.rq'));
    assert.deepEqual(uris.filter((u) => u.startsWith('weave://queries/')).sort(), ready.map((f) => `weave://queries/${f}`).sort());
    const ontology = await mcp.client.readResource({ uri: 'weave://ontology' });
    assert.match((ontology.contents[0] as { text: string }).text, /^weave:LlmCall\s+a owl:Class ;/m);
    const glossary = await mcp.client.readResource({ uri: 'weave://glossary' });
    assert.equal((glossary.contents[0] as { text: string }).text, await weave('glossary', '--json'));
    const { prompts } = await mcp.client.listPrompts();
    assert.deepEqual(prompts.map((p) => `${p.name}.rq`).sort(), ready.sort());
    const prompt = await mcp.client.getPrompt({ name: 'session-titles' });
    assert.match((prompt.messages[0].content as { text: string }).text, /sparql[\s\S]*SELECT DISTINCT \?session \?title/);
  });

  test('search: the hits weave search --json gives, with session, time, kind, snippet and the turn’s IRI', async () => {
    const answer = (await call(mcp.client, 'search', { text: 'README', limit: 5 })).json();
    const cli = JSON.parse(await weave('search', 'README', '--limit', '5', '--json', '--store', dir));
    assert.equal(answer.total, 7);
    assert.equal(answer.total, cli.total);
    assert.equal(answer.leftOut, 2);
    assert.deepEqual(
      answer.hits.map((h: Record<string, unknown>) => [h.session, h.title, h.time, h.kind, h.snippet, h.iri]),
      cli.hits.map((h: Record<string, unknown>) => [h.session, h.title, h.time, h.kind, h.snippet, h.event]),
    );
    const only = (await call(mcp.client, 'search', { text: 'README', session: '2000', kind: ['tool-input'] })).json();
    assert.equal(only.total, 0);
  });

  test('sparql: a SELECT answers the rows weave query --format json gives, cut to the limit with the count left out', async () => {
    const query = `SELECT ?session ?title WHERE {
      ?t a weave:ClaudeCodeTranscript ; weave:sessionId ?session ; weave:title ?title FILTER NOT EXISTS { ?t weave:parentTranscript ?main }
    } ORDER BY ?session`;
    const cli = JSON.parse(await weave('query', query, '--format', 'json', '--store', dir));
    const all = (await call(mcp.client, 'sparql', { query })).json();
    assert.deepEqual(all.vars, ['session', 'title']);
    assert.equal(all.total, 5);
    assert.deepEqual(
      all.rows,
      cli.results.bindings.map((b: Record<string, { type: string; value: string }>) =>
        Object.fromEntries(Object.entries(b).map(([k, v]) => [k, termText(v)])),
      ),
    );
    const cut = (await call(mcp.client, 'sparql', { query, limit: 2 })).json();
    assert.deepEqual([cut.total, cut.shown, cut.leftOut], [5, 2, 3]);
    assert.deepEqual(cut.rows, all.rows.slice(0, 2));
    assert.deepEqual((await call(mcp.client, 'sparql', { query: 'ASK { ?c a weave:LlmCall }' })).json(), { boolean: true });
    const graph = (await call(mcp.client, 'sparql', { query: `DESCRIBE <urn:soul:local:Weave/Session/${SESSION}>` })).json();
    assert.equal(graph.triples, 4);
    assert.match(graph.turtle, new RegExp(`<urn:soul:local:Weave/Session/${SESSION}> a weave:Session, weave:ModelNode`));
  });

  test('conversation: the talks of weave conversation --json, compact and a page at a time', async () => {
    const cli = JSON.parse(await weave('conversation', '1111', '--json', '--store', dir));
    const talks: { label: string; iri: string }[] = [];
    const walk = (n: { kind: string; label: string; iri: string; children: never[] }) =>
      n.kind === 'talk' ? talks.push(n) : n.children.forEach(walk);
    walk(cli.tree);
    const first = (await call(mcp.client, 'conversation', { session: '1111', limit: 3 })).json();
    assert.deepEqual(first.header, cli.header);
    assert.deepEqual([first.talks, first.shown, first.leftOut], [4, 3, 1]);
    assert.deepEqual(
      first.page.map((t: { iri: string; talk: string }) => [t.iri, t.talk]),
      talks.slice(0, 3).map((t) => [t.iri, t.label]),
    );
    // The first prompt's work: one run, four LLM calls, and its tools in order.
    assert.deepEqual(
      [first.page[0].stream, first.page[0].runs, first.page[0].calls, first.page[0].tools],
      ['main', 1, 4, ['Bash', 'mcp__my server__do#it', 'Task → a1b2c3d']],
    );
    const last = (await call(mcp.client, 'conversation', { session: SESSION, offset: 3, detail: 'full' })).json();
    assert.deepEqual([last.shown, last.leftOut, last.page[0].iri], [1, 0, talks[3].iri]);
    assert.equal(last.page[0].children[0].kind, 'run');
    const missing = await call(mcp.client, 'conversation', { session: 'ffff' });
    assert.ok(missing.isError);
    assert.match(missing.text, /no session ffff/);
  });

  test('usage: the figures of weave usage --json, by day and by session', async () => {
    const daily = (await call(mcp.client, 'usage', {})).json();
    const cli = JSON.parse(await weave('usage', '--json', '--store', dir));
    assert.deepEqual(daily.totals, {
      inputTokens: 1620,
      outputTokens: 483,
      cacheCreationTokens: 10,
      cacheReadTokens: 24300,
      totalCost: 0.0267475,
      totalTokens: 26413,
    });
    assert.deepEqual(daily.totals, cli.totals);
    assert.deepEqual(
      daily.daily,
      cli.daily.map(({ modelBreakdowns, ...rest }: { modelBreakdowns: unknown }) => rest),
    );
    const sessions = (await call(mcp.client, 'usage', { report: 'session', limit: 2, breakdown: true })).json();
    const cliSessions = JSON.parse(await weave('usage', 'session', '--json', '--store', dir));
    assert.equal(sessions.leftOut, cliSessions.sessions.length - 2);
    assert.deepEqual(
      sessions.sessions.map(({ title, ...rest }: { title?: string }) => rest),
      cliSessions.sessions.slice(0, 2),
    );
    assert.equal(sessions.sessions[0].title, 'Fix README typo');
    // A day that is none is refused in weave usage's words, not answered with an empty report.
    const month13 = await call(mcp.client, 'usage', { since: '2026-13-45' });
    assert.deepEqual([month13.isError, month13.text], [true, '--since must be a date, YYYYMMDD or YYYY-MM-DD, not "2026-13-45"']);
  });

  test('sessions: most recent first, with titles, of a project when asked', async () => {
    const all = (await call(mcp.client, 'sessions', {})).json();
    assert.equal(all.total, 5);
    assert.deepEqual(all.sessions[0], {
      session: SESSION,
      title: 'Fix README typo',
      project: '-home-ada-weave-demo',
      start: '2026-11-02T09:00:00Z',
      end: '2026-11-02T09:01:00Z',
      turns: 18,
    });
    const grace = (await call(mcp.client, 'sessions', { project: 'grace' })).json();
    assert.deepEqual(
      grace.sessions.map((s: { session: string }) => s.session),
      ['44444444-4444-4444-8444-444444444444', '33333333-3333-4333-8333-333333333333'],
    );
  });

  test('describe: a tool call by its toolu_ id, an LLM call by its msg_ id, a turn by its IRI, a session by its id: their statements', async () => {
    const tool = (await call(mcp.client, 'describe', { target: 'toolu_0001' })).json();
    const iri = `urn:soul:local:Weave/ToolCall/${SESSION}/toolu_0001`;
    assert.equal(tool.iri, iri);
    const cli = JSON.parse(await weave('query', `SELECT ?p ?o WHERE { <${iri}> ?p ?o }`, '--format', 'json', '--store', dir));
    assert.equal(tool.statements.length, cli.results.bindings.length);
    assert.ok(tool.statements.some((s: { p: string; o: string }) => s.p === 'weave:toolUseId' && s.o === 'toolu_0001'));
    assert.ok(tool.statements.some((s: { p: string; o: string }) => s.p === 'rdf:type' && s.o === 'weave:ToolCall'));
    const llm = (await call(mcp.client, 'describe', { target: 'msg_0001' })).json();
    assert.equal(llm.iri, `urn:soul:local:Weave/LlmCall/${SESSION}/msg_0001`);
    assert.ok(llm.statements.some((s: { p: string; o: string }) => s.p === 'weave:fragmentCount' && s.o === '3'));
    const turn = (await call(mcp.client, 'describe', { target: `<urn:soul:local:Weave/Turn/${SESSION}/u-0001>` })).json();
    const text = turn.blocks
      .flatMap((b: { statements: { p: string; o: string }[] }) => b.statements)
      .find((s: { p: string }) => s.p === 'weave:text');
    assert.equal(text.o, 'Please list the files in src/ and fix the typo in README.md');
    assert.ok((await call(mcp.client, 'describe', { target: 'no-such-id' })).isError);
    // A session by the id \`sessions\` gives: its Session node, not its conversation (which shares the identifier).
    const session = (await call(mcp.client, 'describe', { target: SESSION })).json();
    assert.equal(session.iri, `urn:soul:local:Weave/Session/${SESSION}`);
    assert.equal(session.alsoNamed, undefined);
    assert.ok(session.statements.some((s: { p: string; o: string }) => s.p === 'dcterms:identifier' && s.o === SESSION));
    // A term whose domain is a union (ontology/parts/spine.ttl): its members, not a blank node.
    const cwd = (await call(mcp.client, 'describe', { target: 'https://repolex.ai/ontology/weave#cwd' })).json();
    assert.deepEqual(
      cwd.statements.filter((s: { p: string }) => s.p === 'rdfs:domain').map((s: { o: string }) => s.o),
      ['weave:Event or weave:Transcript'],
    );
  });

  test('a write and a 10k-deep query are refused with a tool error, and the next call is answered', async () => {
    const write = await call(mcp.client, 'sparql', { query: 'INSERT DATA { <urn:x:a> <urn:x:b> <urn:x:c> }' });
    assert.ok(write.isError);
    assert.match(write.text, /read-only: INSERT is an update/);
    const deep = await call(mcp.client, 'sparql', { query: `SELECT * WHERE ${'{ '.repeat(10_000)}?s ?p ?o${' }'.repeat(10_000)}` });
    assert.ok(deep.isError);
    assert.match(deep.text, /nested too deeply/);
    const service = await call(mcp.client, 'sparql', { query: 'SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }' });
    assert.ok(service.isError);
    assert.match(service.text, /nothing leaves the machine/);
    assert.equal((await call(mcp.client, 'sparql', { query: 'ASK { <urn:x:a> ?p ?o }' })).json().boolean, false);
    assert.equal((await call(mcp.client, 'sessions', {})).json().total, 5);
    // Nothing of what the transcripts hold is written to stderr: one line about the store.
    assert.equal(mcp.stderr(), `weave mcp: serving ${dir} (queries answered here)\n`);
  });

  test('a session ingested while the server runs is in the next answer', async () => {
    assert.equal((await call(mcp.client, 'sessions', {})).json().total, 5);
    await ingest([join(FIXTURES, 'model', 'tool-joins')], { storeDir: dir, soul: 'local' });
    assert.equal((await call(mcp.client, 'sessions', {})).json().total, 6);
    const added = '30000000-0000-4000-8000-000000000001';
    const conversation = (await call(mcp.client, 'conversation', { session: '3000' })).json();
    assert.equal(conversation.header.session, added);
    const cli = JSON.parse(await weave('conversation', added, '--json', '--store', dir));
    assert.deepEqual(conversation.header, cli.header);
  });

  test('a query past --timeout is stopped with a tool error, and the server answers the next call', async () => {
    const quick = await connect(dir, '--timeout', '1');
    try {
      const slow = await call(quick.client, 'sparql', { query: 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }' });
      assert.ok(slow.isError);
      assert.match(slow.text, /ran longer than the timeout of 1 s and was stopped/);
      assert.deepEqual((await call(quick.client, 'sparql', { query: 'ASK { ?s a weave:Session }' })).json(), { boolean: true });
    } finally {
      await quick.client.close();
    }
  });
});

describe('weave mcp with a weave serve up for the store', () => {
  let dir: string;
  let serve: ChildProcess;
  before(async () => {
    dir = await tempDir();
    await ingest(PROJECTS, { storeDir: dir, soul: 'local' });
    serve = spawn(join(REPO, 'bin', 'weave'), ['serve', '--no-ingest', '--port', '0', '--store', dir], { env: ENV, stdio: 'ignore' });
    for (;;) {
      const run = await readFile(join(dir, 'server.json'), 'utf8').catch(() => '');
      if (run.includes(`"pid": ${serve.pid}`)) {
        const { url } = JSON.parse(run) as { url: string };
        const health = await fetch(`${url}healthz`).then((r) => r.json() as Promise<{ store?: string }>);
        if (health.store === 'ready') break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    if (serve.exitCode === null) serve.kill();
    await removeDir(dir);
  });

  test('asks the server, and opens the store itself once the server is gone', async () => {
    const mcp = await connect(dir);
    try {
      const usage = (await call(mcp.client, 'usage', {})).json();
      assert.equal(usage.totals.totalTokens, 26413);
      assert.match(mcp.stderr(), /queries answered by http:\/\/127\.0\.0\.1:\d+\//);
      assert.equal((await call(mcp.client, 'sessions', {})).json().total, 5);
      const exited = new Promise((resolve) => serve.once('exit', resolve));
      serve.kill();
      await exited;
      assert.equal((await call(mcp.client, 'sessions', {})).json().total, 5);
      assert.equal((await call(mcp.client, 'usage', {})).json().totals.totalTokens, 26413);
    } finally {
      await mcp.client.close();
    }
  });
});

describe('weave mcp asking a weave serve that stops as it is asked', () => {
  test('the call waiting in its queue is answered anew (here, with no daemon), not with the server’s "shutting down"', async () => {
    const dir = await tempDir();
    let serve: ChildProcess | undefined;
    let mcp: Connected | undefined;
    try {
      await ingest(PROJECTS, { storeDir: dir, soul: 'local' });
      // One copy of the store: a query holding it keeps the next one in the queue.
      serve = spawn(join(REPO, 'bin', 'weave'), ['serve', '--no-ingest', '--port', '0', '--workers', '1', '--store', dir], {
        env: ENV,
        stdio: 'ignore',
      });
      let url = '';
      for (;;) {
        const run = await readFile(join(dir, 'server.json'), 'utf8').catch(() => '');
        if (run.includes(`"pid": ${serve.pid}`)) {
          url = (JSON.parse(run) as { url: string }).url;
          const health = await fetch(`${url}healthz`).then((r) => r.json() as Promise<{ store?: string }>);
          if (health.store === 'ready') break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      mcp = await connect(dir);
      assert.match(mcp.stderr(), /queries answered by http:\/\/127\.0\.0\.1:\d+\//);
      const runaway = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
      const holding = fetch(`${url}sparql?query=${encodeURIComponent(runaway)}`).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      const asked = call(mcp.client, 'usage', {});
      await new Promise((r) => setTimeout(r, 1000));
      const exited = new Promise((resolve) => serve!.once('exit', resolve));
      serve.kill('SIGTERM');
      await exited;
      await holding;
      const usage = await asked;
      assert.equal(usage.isError, false, usage.text);
      assert.equal(usage.json().totals.totalTokens, 26413);
    } finally {
      await mcp?.client.close();
      if (serve?.exitCode === null) serve.kill();
      await removeDir(dir);
    }
  });
});

describe('weave mcp with no server running for the store', () => {
  test("starts the store's resident server, as other commands do, and asks it", async () => {
    const dir = await tempDir();
    await ingest(PROJECTS, { storeDir: dir, soul: 'local' });
    const { WEAVE_NO_DAEMON: _, ...env } = ENV;
    const mcp = await connectWith(env, dir);
    try {
      assert.match(mcp.stderr(), /queries answered by the resident server it starts/);
      assert.equal((await call(mcp.client, 'usage', {})).json().totals.totalTokens, 26413);
      assert.equal((await call(mcp.client, 'sessions', {})).json().total, 5);
      const run = await readRunFile(dir);
      assert.equal(run?.startedBy, 'weave mcp');
      assert.ok(run && isRunning(run.pid));
    } finally {
      await mcp.client.close();
      const run = await readRunFile(dir);
      if (run && isRunning(run.pid)) {
        process.kill(run.pid, 'SIGTERM');
        for (let i = 0; i < 200 && isRunning(run.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await removeDir(dir);
    }
  });
});

test('search: a prompt ingested while the server runs is found at the next call, the index file not written again', async () => {
  const work = await tempDir();
  const dir = await tempDir();
  let mcp: Connected | undefined;
  try {
    await cp(FIXTURES, work, { recursive: true });
    await ingest([work], { storeDir: dir, soul: 'local' });
    mcp = await connect(dir);
    const found = async (text: string) =>
      (await call(mcp!.client, 'search', { text })).json().hits.map((h: { session: string }) => h.session) as string[];
    assert.deepEqual(await found('zebrafish'), []);
    const S8 = '88888888-8888-4888-8888-888888888888';
    const file = join(work, 'records', '-home-ada-records-demo', `${S8}.jsonl`);
    const record = { parentUuid: 'c-0005', isSidechain: false, type: 'user', message: { role: 'user', content: 'zebrafish quartz' } };
    await appendFile(file, `${JSON.stringify({ ...record, uuid: 'c-0101', timestamp: '2026-11-06T09:00:00.000Z', sessionId: S8 })}\n`);
    const indexFile = async () => JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')).files['search/index'].file;
    const before = await indexFile();
    await ingest([work], { storeDir: dir, soul: 'local' });
    // About 1 kB of documents behind the index file's 140 kB: the file stays, the server reads the session in.
    assert.equal(await indexFile(), before);
    assert.deepEqual(await found('zebrafish'), [S8]);
  } finally {
    await mcp?.client.close();
    await removeDir(work);
    await removeDir(dir);
  }
});

describe('weave mcp on a store an older Weave built', () => {
  let dir: string;
  before(async () => {
    dir = await tempDir();
    await ingest([join(FIXTURES, 'server')], { storeDir: dir, soul: 'local' });
    // As weave/0.16 left it: its session graphs stamped so.
    const manifest = (await readManifest(dir))!;
    for (const entry of Object.values(manifest.graphs))
      if (entry.sessionId) entry.builtWith = entry.builtWith!.replace('+weave/0.17+', '+weave/0.16+');
    await writeFile(join(dir, MANIFEST_FILE), renderManifest(manifest));
  });
  after(() => removeDir(dir));

  test('says so on stderr as it starts, and beside the usage figures', async () => {
    const NOTICE = 'the store was built by weave/0.16: weave ingest --rebuild';
    const mcp = await connect(dir);
    try {
      const usage = (await call(mcp.client, 'usage', {})).json();
      assert.equal(usage.notice, NOTICE);
      assert.equal(usage.totals.totalTokens, 92);
      assert.ok(mcp.stderr().startsWith(`weave: ${NOTICE}\nweave mcp: serving ${dir} `), mcp.stderr());
    } finally {
      await mcp.client.close();
    }
  });
});
