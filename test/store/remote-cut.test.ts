import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import { CliError } from '../../src/cli/options.ts';
import { askExternal, ExternalAnswerError } from '../../src/client/external.ts';
import { answerFromServer, parseQueryArgs } from '../../src/client/query.ts';
import { documentTriples } from '../../src/search/docs.ts';
import { documentsOutput } from '../../src/search/index.ts';
import { documentsOf } from '../../src/search/others.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { RemoteStore, RemoteStoreError } from '../../src/store/remote/client.ts';
import { type RemoteConfig, remoteStoreDir } from '../../src/store/remote/config.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { startTestServer } from '../server/helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * A Virtuoso as a stock virtuoso.ini sets it up cuts every SELECT's answer at its ResultSetMaxRows
 * (10,000) and says so only in a header (`X-SPARQL-MaxRows`). An answer cut short is refused with
 * that said, wherever Weave asks: a report, a page or a count built on it would be wrong without
 * a word. Here the store cuts at 50 rows.
 */

const CAP = 50;
const digits = '0 1 2 3 4 5 6 7 8 9';
/** 100 rows, and 10. */
const HUNDRED = `SELECT ?a ?b WHERE { VALUES ?a { ${digits} } VALUES ?b { ${digits} } }`;
const TEN = `SELECT ?a WHERE { VALUES ?a { ${digits} } }`;

describe('an external store that cuts its answers', { skip: virtuosoMissing() ?? false }, () => {
  let virtuoso: Virtuoso;
  let config: RemoteConfig;
  let home: string;
  before(async () => {
    virtuoso = await startVirtuoso({ resultSetMaxRows: CAP });
    home = await tempDir('weave-cut-');
    config = { format: 'weave-remote/1', endpoint: virtuoso.endpoint, graphStore: `${virtuoso.endpoint}-graph-crud`, tripleTerms: false };
  });
  after(async () => {
    await virtuoso?.stop();
    if (home) await removeDir(home);
  });

  it('is refused with the rows it was cut at and the setting that cuts it', async () => {
    const remote = new RemoteStore(config);
    await assert.rejects(remote.query(HUNDRED, ['application/sparql-results+json']), (e: unknown) => {
      assert.ok(e instanceof RemoteStoreError);
      assert.equal(e.status, 507);
      assert.match(
        e.message,
        /^the external store cut its answer at 50 rows, .*ResultSetMaxRows, in the \[SPARQL\] section of its virtuoso\.ini/,
      );
      return true;
    });
    const whole = await remote.query(TEN, ['application/sparql-results+json']);
    assert.equal(JSON.parse(new TextDecoder().decode(whole.body)).results.bindings.length, 10);
  });

  it('is refused by the light client, as by the full one', async () => {
    await assert.rejects(askExternal(config, HUNDRED, 'text/tab-separated-values'), (e: unknown) => {
      assert.ok(e instanceof ExternalAnswerError);
      assert.equal(e.status, 507);
      assert.match(e.message, /cut its answer at 50 rows/);
      return true;
    });
    assert.equal((await askExternal(config, TEN, 'text/tab-separated-values')).trim().split('\n').length, 11);
  });

  const weave = (args: string[]) =>
    promisify(execFile)(join(REPO, 'bin', 'weave'), args, {
      encoding: 'utf8',
      env: { ...process.env, WEAVE_HOME: home, WEAVE_NO_DAEMON: '1' },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('weave ingest says the store cuts its answers, and at how many rows', async () => {
    const ran = await weave(['ingest', join(FIXTURES, 'spine'), '--store', virtuoso.endpoint]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(
      ran.stderr,
      /^weave ingest: note: the external store cuts every answer at 50 rows \(Virtuoso's ResultSetMaxRows, .*raise it and restart the store$/m,
    );
  });

  it("another machine's documents of a session are its own, asked for alone or, cut short, in parts", async () => {
    // The sessions the ingest above wrote, and the documents it made of them here.
    const dir = remoteStoreDir(virtuoso.endpoint, home);
    const remote = new RemoteStore(config);
    const sessions = Object.values((await readManifest(dir))!.graphs).flatMap((e) => (e.sessionId && !e.reader ? [e.sessionId] : []));
    assert.deepEqual(sessions.sort(), ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222']);
    let cut = 0;
    for (const sessionId of sessions) {
      const graph = (await readManifest(dir))!.graphs;
      const name = Object.keys(graph).find((g) => graph[g].sessionId === sessionId && !graph[g].reader)!;
      await remote.query(`SELECT ?s ?p ?o WHERE { ${documentTriples(name)} }`, ['application/sparql-results+json']).catch((e) => {
        assert.equal((e as RemoteStoreError).status, 507);
        cut++;
      });
      const made = [...(await documentsOf(remote, { graph: name, sessionId, stamp: { path: name, size: 0, mtimeMs: 0 } }))].join('');
      const here = (await readManifest(dir))!.files![documentsOutput(sessionId).file].file;
      // Virtuoso gives a dateTime in its own lexical form (…:00Z for …:00.000Z): the same instant.
      const instants = (text: string) => text.replace(/"time":"([^"]+)"/g, (_, t) => `"time":"${new Date(t).toISOString()}"`);
      assert.equal(instants(made), instants(await readFile(join(dir, here), 'utf8')), sessionId);
    }
    // One session's documents are past the store's 50 rows: asked again in parts.
    assert.equal(cut, 1);
    // Its graph by the Graph Store Protocol is cut there too, and says nothing of it.
    const graph = 'urn:soul:%s:Weave/graph/11111111-1111-4111-8111-111111111111'.replace('%s', (await readManifest(dir))!.soul);
    const got = await fetch(`${config.graphStore}?graph=${encodeURIComponent(graph)}`, { headers: { accept: 'application/n-triples' } });
    assert.equal(got.headers.get('x-sparql-maxrows'), null);
    const [held] = JSON.parse(
      new TextDecoder().decode(
        (await remote.query(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${graph}> { ?s ?p ?o } }`, ['application/sparql-results+json'])).body,
      ),
    ).results.bindings;
    const sent = (await got.text()).split('\n').filter((l) => l.endsWith(' .')).length;
    assert.ok(sent <= CAP + 1 && sent < Number(held.n.value), `${sent} of ${held.n.value} triples`);
  });

  it('weave serve in front of it says so at start, and answers a cut query 507', async () => {
    // Its store directory given: the helper removes none, and ingests nothing.
    const server = await startTestServer({ storeDir: remoteStoreDir(virtuoso.endpoint, home), workers: 1 }, null);
    try {
      const res = await fetch(`${server.url}sparql?query=${encodeURIComponent(HUNDRED)}`, { headers: { accept: 'text/csv' } });
      assert.equal(res.status, 507);
      assert.match(await res.text(), /cut its answer at 50 rows/);
      assert.equal((await fetch(`${server.url}sparql?query=${encodeURIComponent(TEN)}`, { headers: { accept: 'text/csv' } })).status, 200);
      // The server asks at start without waiting for the answer.
      const said = () => server.lines.some((line) => line.startsWith('the external store cuts every answer at 50 rows'));
      for (let i = 0; i < 100 && !said(); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(said(), server.lines.join('\n'));
    } finally {
      await server.stop();
    }
  });

  it('weave serve that reads transcripts as well says so once, though it and its ingest each ask', async () => {
    const child = spawn(join(REPO, 'bin', 'weave'), ['serve', join(FIXTURES, 'spine'), '--store', virtuoso.endpoint, '--port', '0'], {
      env: { ...process.env, WEAVE_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = once(child, 'exit');
    try {
      await new Promise<void>((resolve, reject) => {
        const take = (data: Buffer) => {
          out += data;
          if (/^weave serve: ready /m.test(out)) resolve();
        };
        child.stdout.on('data', take);
        child.stderr.on('data', take);
        child.once('exit', (code) => reject(new Error(`weave serve exited ${code}: ${out}`)));
      });
      assert.equal(out.match(/the external store cuts every answer at 50 rows/g)?.length, 1, out);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('a graph or a CONSTRUCT the store cuts short without a word is refused; one it sends whole is served as asked', async () => {
    const dir = remoteStoreDir(virtuoso.endpoint, home);
    const soul = (await readManifest(dir))!.soul;
    const graph = (path: string) => `urn:soul:${soul}:Weave/graph/${path}`;
    // fixtures/spine: the first session's graph holds 1,516 triples, past the store's 50 rows; the
    // human/authored reader's graph of the second, 35.
    const session = graph('11111111-1111-4111-8111-111111111111');
    const reader = graph('22222222-2222-4222-8222-222222222222/reader/human/authored');
    await assert.rejects(new RemoteStore(config).getGraph(session, 'application/n-triples'), (e: unknown) => {
      assert.ok(e instanceof RemoteStoreError);
      assert.equal(e.status, 507);
      // Virtuoso sends one triple past its ResultSetMaxRows.
      assert.equal(e.cutAt, CAP + 1);
      assert.match(e.message, /^the external store sent 51 of the graph's 1,516 triples: .*ResultSetMaxRows, in the \[SPARQL\] section/);
      return true;
    });
    const server = await startTestServer({ storeDir: dir, workers: 1 }, null);
    try {
      const read = (graph: string, accept: string) =>
        fetch(`${server.url}store?graph=${encodeURIComponent(graph)}`, { headers: { accept } });
      const cut = await read(session, 'text/turtle');
      assert.equal(cut.status, 507);
      assert.match(await cut.text(), /^507 Insufficient Storage: the external store sent 51 of the graph's 1,516 triples/);
      // Whole: as N-Triples as the store sent them, and as Turtle, the same 35 triples.
      const asSent = await read(reader, 'application/n-triples');
      assert.equal(asSent.status, 200);
      const lines = (await asSent.text()).split('\n').filter((l) => l.trim());
      assert.equal(lines.length, 35);
      const turtle = await read(reader, 'text/turtle');
      assert.equal(turtle.status, 200);
      assert.match(turtle.headers.get('content-type') ?? '', /^text\/turtle/);
      const parsed = oxigraph.parse(await turtle.text(), { format: 'text/turtle' }).map((q) => `${q.subject} ${q.predicate} ${q.object} .`);
      const sent = oxigraph
        .parse(lines.join('\n'), { format: 'application/n-triples' })
        .map((q) => `${q.subject} ${q.predicate} ${q.object} .`);
      assert.deepEqual(parsed.sort(), sent.sort());
      // A CONSTRUCT is cut at 50 triples too (Virtuoso sends 51), with no header: refused, as a cut SELECT is.
      const construct = (graph: string) =>
        fetch(`${server.url}sparql?query=${encodeURIComponent(`CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${graph}> { ?s ?p ?o } }`)}`, {
          headers: { accept: 'text/turtle' },
        });
      const cutConstruct = await construct(session);
      assert.equal(cutConstruct.status, 507);
      assert.match(
        await cutConstruct.text(),
        /^507 Insufficient Storage: the external store cut its answer at 50 rows, .*ResultSetMaxRows/,
      );
      const whole = await construct(reader);
      assert.equal(whole.status, 200);
      assert.match(whole.headers.get('content-type') ?? '', /^text\/turtle/);
      const constructed = oxigraph
        .parse(await whole.text(), { format: 'text/turtle' })
        .map((q) => `${q.subject} ${q.predicate} ${q.object} .`);
      assert.deepEqual(constructed.sort(), sent.sort());
      // The RDF of a describe page is a CONSTRUCT too; a transcript's is under 50 triples.
      const { body } = await new RemoteStore(config).query(
        `SELECT ?t WHERE { GRAPH <${session}> { ?t a <https://repolex.ai/ontology/weave#Transcript> } } ORDER BY ?t LIMIT 1`,
        ['application/sparql-results+json'],
      );
      const transcript = JSON.parse(new TextDecoder().decode(body)).results.bindings[0].t.value as string;
      const described = await fetch(`${server.url}describe?iri=${encodeURIComponent(transcript)}`, { headers: { accept: 'text/turtle' } });
      assert.equal(described.status, 200);
      assert.match(described.headers.get('content-type') ?? '', /^text\/turtle/);
      const about = oxigraph.parse(await described.text(), { format: 'text/turtle' });
      assert.ok(about.some((q) => q.subject.value === transcript && q.object.value === 'https://repolex.ai/ontology/weave#Transcript'));
      assert.ok(about.length <= CAP, String(about.length));
    } finally {
      await server.stop();
    }
  });

  it('weave query says so and prints nothing of it', async () => {
    const run = (query: string) => weave(['query', '--store', virtuoso.endpoint, '--format', 'tsv', query]);
    const cut = await run(HUNDRED);
    assert.equal(cut.code, 1, cut.stderr);
    assert.equal(cut.stdout, '');
    assert.match(cut.stderr, /^weave query: the external store cut its answer at 50 rows, .*ResultSetMaxRows/m);
    assert.match(cut.stderr, /ask in pages of fewer rows/);
    const whole = await run(TEN);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(whole.stdout.trim().split('\n').length, 11);
    // A CONSTRUCT of the first session's graph (1,516 triples), which the store cuts with no header.
    const soul = (await readManifest(remoteStoreDir(virtuoso.endpoint, home)))!.soul;
    const construct = (limit: string) =>
      weave([
        'query',
        '--store',
        virtuoso.endpoint,
        '--format',
        'ntriples',
        `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <urn:soul:${soul}:Weave/graph/11111111-1111-4111-8111-111111111111> { ?s ?p ?o } }${limit}`,
      ]);
    const cutGraph = await construct('');
    assert.equal(cutGraph.code, 1, cutGraph.stderr);
    assert.equal(cutGraph.stdout, '');
    assert.match(cutGraph.stderr, /^weave query: the external store cut its answer at 50 rows, .*ResultSetMaxRows/m);
    const some = await construct(' LIMIT 10');
    assert.equal(some.code, 0, some.stderr);
    assert.equal(some.stdout.trim().split('\n').length, 10);
  });

  it('a CONSTRUCT it cuts is refused by the light client and through a server, not asked again', async () => {
    const soul = (await readManifest(remoteStoreDir(virtuoso.endpoint, home)))!.soul;
    const query = `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <urn:soul:${soul}:Weave/graph/11111111-1111-4111-8111-111111111111> { ?s ?p ?o } }`;
    // A machine that never wrote to the store has no server to ask: the light client would ask the store itself.
    const fresh = await tempDir('weave-cut-fresh-');
    try {
      const light = await promisify(execFile)(
        join(REPO, 'bin', 'weave'),
        ['query', '--store', virtuoso.endpoint, '--format', 'ntriples', query],
        { encoding: 'utf8', env: { ...process.env, WEAVE_HOME: fresh } },
      ).then(
        () => assert.fail('a cut CONSTRUCT printed'),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      assert.equal(light.code, 1, light.stderr);
      assert.equal(light.stdout, '');
      assert.match(light.stderr, /^weave query: the external store cut its answer at 50 rows, /m);
    } finally {
      await removeDir(fresh);
    }
    // A server's 507 for a cut is the command's answer: the store is not asked again here.
    const server = await startTestServer({ storeDir: remoteStoreDir(virtuoso.endpoint, home), workers: 1 }, null);
    try {
      const request = (await parseQueryArgs([query, '--store', remoteStoreDir(virtuoso.endpoint, home), '--format', 'ntriples']))!;
      await assert.rejects(answerFromServer({ url: server.url, token: '', pid: process.pid }, request), (e: unknown) => {
        assert.ok(e instanceof CliError);
        assert.match(e.message, /^the external store cut its answer at 50 rows, /);
        return true;
      });
    } finally {
      await server.stop();
    }
  });
});
