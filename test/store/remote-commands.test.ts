import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import { isRunning, readRunFile } from '../../src/store/running.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * Every command that reads the store, run as a user runs it (bin/weave, the light entry and the
 * resident server it starts), over a Virtuoso shared by two machines prints what it prints over
 * one embedded store holding both machines' sessions. Machine A read fixtures/spine (sessions
 * 11111111 and 22222222, and a sub-agent's file), machine B fixtures/model/split-call (session
 * 20000000, which A's directory knows nothing of): A's commands must cover B's session too.
 */

const execute = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
/** These commands may start and ask a resident server (the suite answers by itself otherwise); a fixed width for tables. */
const ASKING = { ...process.env, WEAVE_NO_DAEMON: '', COLUMNS: '160' };
const SPINE = join(FIXTURES, 'spine');
const SPLIT_CALL = join(FIXTURES, 'model', 'split-call');
const OTHERS_SESSION = '20000000-0000-4000-8000-000000000001';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function weave(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8', env: ASKING, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function stopResident(store: string): Promise<void> {
  const run = await readRunFile(store);
  if (!run || !isRunning(run.pid)) return;
  process.kill(run.pid, 'SIGTERM');
  for (let i = 0; i < 200 && isRunning(run.pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('commands over an external store (Virtuoso) fed by two machines', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  /** Machine A's directory for the external store. */
  let a: string;
  /** One embedded store holding what both machines read. */
  let embedded: string;

  before(async () => {
    virtuoso = await startVirtuoso();
    base = await tempDir('weave-remote-commands-');
    a = remoteStoreDir(virtuoso.endpoint, join(base, 'a'));
    await ingest([SPINE], { storeDir: a, soul: 'local' });
    // Machine B writes under its own soul, as every machine feeding a shared store does.
    await ingest([SPLIT_CALL], { storeDir: remoteStoreDir(virtuoso.endpoint, join(base, 'b')), soul: 'bob' });
    embedded = join(base, 'embedded');
    await ingest([SPINE, SPLIT_CALL], { storeDir: embedded, soul: 'local' });
  });
  after(async () => {
    for (const store of [a, embedded]) if (store) await stopResident(store);
    await virtuoso?.stop();
    if (base) await removeDir(base);
  });

  /** The command over A's external store and over the embedded one: the same stdout and exit code. */
  async function same(args: string[]): Promise<Run> {
    const [external, here] = [await weave([...args, '--store', a]), await weave([...args, '--store', embedded])];
    assert.equal(external.stdout, here.stdout, `weave ${args.join(' ')}: ${external.stderr}`);
    assert.equal(external.code, here.code);
    return external;
  }

  it('usage counts the session machine B wrote, priced as embedded', async () => {
    const { stdout } = await same(['usage', '--json']);
    const day = (
      JSON.parse(stdout) as {
        daily: { date: string; inputTokens: number; outputTokens: number; cacheReadTokens: number; totalCost: number }[];
      }
    ).daily.find((d) => d.date === '2026-05-05');
    // Split-call's three API calls, each by its last fragment: 100+120+130 in, 180+60+25 out,
    // 5,000+5,300+5,400 cache reads; at sonnet-4-5's $3, $15 and $0.30 per million tokens,
    // 1,050 + 3,975 + 4,710 = 9,735 millionths of a dollar.
    assert.deepEqual(day && { in: day.inputTokens, out: day.outputTokens, read: day.cacheReadTokens, cost: day.totalCost }, {
      in: 350,
      out: 265,
      read: 15_700,
      cost: 0.009735,
    });
    // Answered in its own process too: by the same SPARQL over the store, not the graphs this directory holds.
    assert.equal((await weave(['usage', '--json', '--no-daemon', '--store', a])).stdout, stdout);
    await same(['usage', 'session', '--breakdown']);
    await same(['usage', 'blocks', '--model', 'sonnet']);
    await same(['usage', 'monthly', '--model', 'opus', '--json']);
  });

  it("conversation shows machine B's session, as embedded", async () => {
    const { stdout } = await same(['conversation', OTHERS_SESSION.slice(0, 8)]);
    assert.match(stdout, /^conversation /);
    await same(['conversation', '11111111', '--json']);
    await same(['conversation', '1']); // names two sessions: the same refusal
    // In its own process too: machine B's session read from the external store, not from A's files.
    const alone = await weave(['conversation', OTHERS_SESSION.slice(0, 8), '--no-daemon', '--store', a]);
    assert.equal(alone.stdout, stdout, alone.stderr);
    assert.equal(alone.code, 0);
  });

  it('query answers the ready queries as embedded', async () => {
    for (const file of ['human-prompts-per-day.rq', 'tool-error-rates.rq', 'session-titles.rq'])
      await same(['query', '-f', join(REPO, 'queries', file)]);
    const { stdout } = await same(['query', 'SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a weave:Session }']);
    // 11111111 and 22222222 from A, 20000000 from B.
    assert.match(stdout, /^ 3$/m);
  });

  it('a machine that never wrote to the store asks it from the light entry, no server started', async () => {
    const c = remoteStoreDir(virtuoso.endpoint, join(base, 'c'));
    const count = 'SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a weave:Session }';
    const [there, here] = [await weave(['query', count, '--store', c]), await weave(['query', count, '--store', embedded])];
    assert.equal(there.stdout, here.stdout, there.stderr);
    assert.match(there.stdout, /^ 3$/m);
    assert.equal(await readRunFile(c), undefined);
  });

  it('query writes CSV and XML, and says a syntax error, as embedded', async () => {
    const csv = await same(['query', '-f', join(REPO, 'queries', 'session-titles.rq'), '--format', 'csv']);
    assert.equal(csv.stdout.split('\r\n')[0], 'session,title,customTitle,aiTitle,agentName,permissionMode');
    await same(['query', '-f', join(REPO, 'queries', 'human-prompts-per-day.rq'), '--format', 'xml']);
    const run = await weave(['query', 'SELECT ?x WHERE { ?x ?y', '--store', a]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^weave query: error at line 1, column 24: /);
  });

  it('is answered by a resident server, and status names the external store', async () => {
    const status = JSON.parse((await weave(['status', '--json', '--store', a])).stdout) as {
      external?: string;
      server?: { startedBy?: string };
    };
    assert.equal(status.external, virtuoso.endpoint);
    assert.match(status.server?.startedBy ?? '', /^weave (usage|conversation|query)$/);
  });

  it("search finds machine B's session once A's ingest has indexed it, as embedded", async () => {
    // A read its transcripts before B wrote: its index lacks B's session, and search says so.
    const before = await weave(['search', 'handler', '--store', a]);
    assert.equal(before.code === 0 || before.code === 1, true, before.stderr);
    assert.match(
      before.stderr,
      /1 session\(s\) in the external store were written from other machines since this machine's last ingest and are not in its index yet \(weave ingest adds them\); these hits are from the 2 it holds/,
    );
    assert.doesNotMatch(before.stdout, /20000000/);
    // A's next ingest reads nothing new of its own, and indexes B's session from its graph in the store.
    await stopResident(a);
    const report = await ingest([SPINE], { storeDir: a, soul: 'local' });
    assert.equal(report.sessions, 0);
    for (const args of [
      ['search', 'handler'],
      ['search', 'changelog', '--kind', 'tool-input', '--json'],
      ['search', 'placeOrder', '--session', '2000'],
    ]) {
      const [there, here] = [await weave([...args, '--store', a]), await weave([...args, '--store', embedded])];
      // The same hits, ranked the same: B's session named under B's soul, where the embedded store has it under its own.
      const timeless = (text: string) => text.replace(/\d+ ms$/m, 'ms').replace(/"millis": [\d.]+/, '"millis"');
      assert.equal(timeless(there.stdout.replaceAll('urn:soul:bob:', 'urn:soul:local:')), timeless(here.stdout), there.stderr);
      assert.equal(there.code, 0);
      assert.equal(there.stderr, '');
      assert.match(there.stdout, /20000000/);
    }
  });

  it("query answers an OPTIONAL in a UNION branch as SPARQL says (session-overview's failed hooks)", async () => {
    // Virtuoso read the first-graph filter of the union's rewrite inside an OPTIONAL wrongly: every
    // session got the failed hooks of the one that had them. Two sessions written straight to the
    // store (and taken out after): hooks failed only in s-hooks.
    const graphs = ['urn:test:optional:hooks', 'urn:test:optional:quiet'];
    const crud = (graph: string) => `${virtuoso.endpoint.replace(/sparql$/, 'sparql-graph-crud')}?graph=${encodeURIComponent(graph)}`;
    const W = '@prefix weave: <https://repolex.ai/ontology/weave#> .';
    const turtle = [
      `${W} <urn:t:1> weave:sessionId "s-hooks" ; weave:hasEvent <urn:e:1>, <urn:e:3> .
       <urn:e:1> weave:hookFailed true ; weave:hookOutcome "blocking_error" ; weave:hookName "PostToolUse:Edit" .
       <urn:e:3> weave:subtype "stop_hook_summary" ; weave:hookError "non_blocking_error" .`,
      `${W} <urn:t:2> weave:sessionId "s-quiet" ; weave:hasEvent <urn:e:2> . <urn:e:2> weave:hookName "SessionStart" .`,
    ];
    try {
      for (const [i, graph] of graphs.entries())
        assert.ok((await fetch(crud(graph), { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: turtle[i] })).ok);
      const query = `SELECT ?session (GROUP_CONCAT(DISTINCT ?h; separator=" | ") AS ?failed) WHERE {
        ?t weave:sessionId ?session ; weave:hasEvent ?e . FILTER(STRSTARTS(?session, "s-"))
        { ?e weave:hookFailed true ; weave:hookOutcome ?outcome . OPTIONAL { ?e weave:hookName ?name }
          BIND(CONCAT(COALESCE(?name, "?"), " ", ?outcome) AS ?h) }
        UNION { ?e weave:subtype "stop_hook_summary" ; weave:hookError ?error . BIND(CONCAT("Stop ", ?error) AS ?h) }
      } GROUP BY ?session ORDER BY ?session`;
      const run = await weave(['query', query, '--store', a, '--format', 'csv']);
      // GROUP_CONCAT's order is the engine's: each session's hooks are compared as a set.
      const rows = run.stdout
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => {
          const [session, failed] = line.split(/,(.*)/s);
          return [session, failed.split(' | ').sort()];
        });
      assert.deepEqual(rows, [['s-hooks', ['PostToolUse:Edit blocking_error', 'Stop non_blocking_error']]], run.stderr);
    } finally {
      for (const graph of graphs) await fetch(crud(graph), { method: 'DELETE' });
    }
  });
});
