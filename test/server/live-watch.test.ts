import assert from 'node:assert/strict';
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import type { ChangedGraph } from '../../src/server/messages.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { loadGraph } from '../../src/store/store.ts';
import { eventually, select, SERVER_FIXTURES, SESSION_A, SESSION_B, startTestServer, type TestServer } from './helpers.ts';

/**
 * Live: the server watches the projects root and brings new lines into the queryable graph
 * within two seconds of their being written, with no refresh asked for and none on a timer
 * (refresh is off here): a turn appended to a session it has read, a new session's first line,
 * a sub-agent's new file; and it never reads a last line still being written as a record.
 */

const PROJECT = '-home-grace-weave-server';
const GRAPH_B = `urn:soul:local:Weave/graph/${SESSION_B}`;
const WITHIN_MS = 2000;
/** Turns written here have random UUIDs, as Claude Code's do: each names one turn everywhere. */
const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const TURN = (id: string) => `urn:soul:local:Weave/Turn/${id}`;
/** The last turn of the fixture's session B, which an appended turn answers. */
const B_LAST = 't-0002';

/** A turn of session B with a new id and text, as Claude Code appends one. */
async function turn(id: string, parent: string, text: string, sessionId = SESSION_B): Promise<string> {
  const line = JSON.parse((await readFile(join(SERVER_FIXTURES, PROJECT, `${SESSION_B}.jsonl`), 'utf8')).split('\n')[1]);
  return `${JSON.stringify({ ...line, sessionId, parentUuid: parent, uuid: id, message: { ...line.message, id: `msg_${id}`, content: [{ type: 'text', text }] } })}\n`;
}

/** Milliseconds from now until `check` holds (polling every 25 ms), failing past `ms`. */
async function msUntil(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<number> {
  const started = performance.now();
  await eventually(check, ms, what);
  return performance.now() - started;
}

describe('a server watching its sources', () => {
  let root: string;
  let project: string;
  let server: TestServer;
  const reloads: ChangedGraph[] = [];
  /** A graph as the server answers for it, and as the store's files hold it: sorted N-Triples lines. */
  const servedQuads = async (graph: string) => {
    const res = await fetch(`${server.base}/sparql`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-query', accept: 'application/n-triples' },
      body: `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${graph}> { ?s ?p ?o } }`,
    });
    return (await res.text()).split('\n').filter(Boolean).sort();
  };
  const storedQuads = async (graph: string) => {
    const entry = (await readManifest(server.storeDir))!.graphs[graph];
    const store = new oxigraph.Store();
    await loadGraph(store, server.storeDir, entry);
    return store
      .dump({ format: 'application/n-triples', from_graph_name: oxigraph.namedNode(graph) })
      .split('\n')
      .filter(Boolean)
      .sort();
  };
  const textOf = async (id: string) =>
    (await select(server.base, `SELECT ?text WHERE { <${TURN(id)}> weave:hasContentBlock/weave:text ?text }`)).map((r) => r.text);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'weave-live-watch-'));
    project = join(root, PROJECT);
    await mkdir(project);
    for (const id of [SESSION_A, SESSION_B]) await copyFile(join(SERVER_FIXTURES, PROJECT, `${id}.jsonl`), join(project, `${id}.jsonl`));
    server = await startTestServer({ ingest: { paths: [root], refreshMs: 0, watch: true, detect: false } }, [root]);
    const reload = server.ctx.pool.reload.bind(server.ctx.pool);
    server.ctx.pool.reload = (graphs) => {
      reloads.push(...graphs);
      reload(graphs);
    };
    await eventually(async () => server.ctx.ingester!.status.watching !== 'off', 10_000, 'the watcher');
  });

  after(async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('a turn appended to a session it has read is queryable within two seconds, and only the new line was read', async () => {
    await appendFile(join(project, `${SESSION_B}.jsonl`), await turn(ID(3), B_LAST, 'Appended, live.'));
    const ms = await msUntil(async () => (await textOf(ID(3))).length === 1, 'the appended turn');
    assert.ok(ms <= WITHIN_MS, `seen after ${ms.toFixed(0)} ms`);
    assert.deepEqual(await textOf(ID(3)), ['Appended, live.']);
    await eventually(
      async () => server.ctx.ingester!.status.state === 'ready' && !server.ctx.ingester!.status.refreshing,
      5000,
      'the run to end',
    );
    const last = server.ctx.ingester!.status.last!;
    assert.deepEqual([last.sessions, last.carriedOn, last.records], [1, 1, 1], 'one session carried on, one record read');
    // The workers took what changed in the graph, not the graph, and hold what its files hold.
    assert.equal(reloads.at(-1)?.graph, GRAPH_B);
    assert.ok(reloads.at(-1)?.delta, 'a delta, not the whole graph');
    assert.deepEqual(await servedQuads(GRAPH_B), await storedQuads(GRAPH_B));
  });

  it("a new session's first line is queryable within two seconds", async () => {
    const id = '55555555-5555-4555-8555-555555555555';
    await writeFile(join(project, `${id}.jsonl`), await turn(ID(101), 'none', 'A new session.', id));
    const ms = await msUntil(async () => (await textOf(ID(101))).length === 1, 'the new session');
    assert.ok(ms <= WITHIN_MS, `seen after ${ms.toFixed(0)} ms`);
    assert.deepEqual(
      await select(
        server.base,
        // The lean graph states the session id once, on the transcript (queries/record-envelope.rq).
        `SELECT ?s WHERE { GRAPH <urn:soul:local:Weave/graph/${id}> { ?t weave:hasEvent <${TURN(ID(101))}> ; weave:recordSessionId ?s } }`,
      ),
      [{ s: id }],
    );
  });

  it("a sub-agent's new file is queryable within two seconds, in its session's graph", async () => {
    const agent = join(project, SESSION_B, 'subagents', 'agent-a7a7a7a.jsonl');
    await mkdir(join(project, SESSION_B, 'subagents'), { recursive: true });
    await writeFile(agent, await turn(ID(201), 'none', 'From a sub-agent.'));
    const ms = await msUntil(async () => (await textOf(ID(201))).length === 1, 'the sub-agent turn');
    assert.ok(ms <= WITHIN_MS, `seen after ${ms.toFixed(0)} ms`);
    const rows = await select(
      server.base,
      `SELECT ?g ?path WHERE { GRAPH ?g { ?t weave:hasEvent <${TURN(ID(201))}> ; weave:sourcePath ?path } }`,
    );
    assert.deepEqual(rows, [{ g: `urn:soul:local:Weave/graph/${SESSION_B}`, path: agent }]);
    await eventually(
      async () => server.ctx.ingester!.status.state === 'ready' && !server.ctx.ingester!.status.refreshing,
      5000,
      'the run to end',
    );
    assert.deepEqual(await servedQuads(GRAPH_B), await storedQuads(GRAPH_B));
  });

  it('a last line still being written is not read as a record until its newline comes', async () => {
    const line = await turn(ID(4), ID(3), 'Written in two parts.');
    const file = join(project, `${SESSION_B}.jsonl`);
    await appendFile(file, line.slice(0, 40));
    const pending = `SELECT ?line WHERE { ?p a weave:PendingLine ; weave:sourceLine ?line ; weave:inTranscript/weave:sourcePath "${file}" }`;
    const ms = await msUntil(async () => (await select(server.base, pending)).length === 1, 'the pending line');
    assert.ok(ms <= WITHIN_MS, `seen after ${ms.toFixed(0)} ms`);
    assert.deepEqual(await textOf(ID(4)), []);
    await appendFile(file, line.slice(40));
    await msUntil(async () => (await textOf(ID(4))).length === 1, 'the completed line');
    assert.deepEqual(await select(server.base, pending), []);
    // A last line completed: its pending line went from the derived part, its turn came into the spine.
    await eventually(
      async () => server.ctx.ingester!.status.state === 'ready' && !server.ctx.ingester!.status.refreshing,
      5000,
      'the run to end',
    );
    assert.ok(reloads.at(-1)?.delta);
    assert.deepEqual(await servedQuads(GRAPH_B), await storedQuads(GRAPH_B));
    // The same graph one read of the file as it is now gives: the line numbers tell.
    assert.deepEqual(await select(server.base, `SELECT ?line WHERE { <${TURN(ID(4))}> weave:sourceLine ?line }`), [{ line: '4' }]);
  });

  it('/status says how changes are seen, when the last was, and that nothing is left to read', async () => {
    await eventually(
      async () => server.ctx.ingester!.status.state === 'ready' && !server.ctx.ingester!.status.refreshing,
      5000,
      'the run to end',
    );
    const status = (await (await fetch(`${server.base}/status`)).json()) as {
      ingest: { watching: string; changeSeenAt: string };
      store: { sessions: number; pending: { lines: number; files: number }; sources: { transcripts: number } };
    };
    assert.equal(status.ingest.watching, 'events');
    assert.ok(Date.now() - Date.parse(status.ingest.changeSeenAt) < 60_000);
    assert.deepEqual(
      [status.store.sessions, status.store.sources.transcripts, status.store.pending],
      [3, 4, { lines: 0, files: 0, inNew: 0, changed: { files: 0, lines: 0 } }],
    );
  });
});
