import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { detect } from '../../src/readers/detect.ts';
import { startServer, type RunningServer } from '../../src/server/server.ts';
import { FIXTURES, REPO, ingestFresh, removeDir } from '../helpers.ts';
import { startEndpoint, startRawEndpoint, type TestEndpoint } from '../federation/endpoint.ts';

/**
 * `weave query` with a SERVICE clause while a `weave serve` runs for the store: bin/weave run as a
 * user runs it, a server on a real socket and a Soul endpoint (an Oxigraph store over HTTP). The
 * server that allows every endpoint the query names answers it, as it answers any other query,
 * with the bytes the command prints when it opens the store itself (--no-daemon); else the
 * command runs it here, or refuses it, as before. The server's request counts say who answered.
 */

const execute = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const ASKING = { ...process.env, WEAVE_NO_DAEMON: '', COLUMNS: '200' };
const TURN = (id: string) => `urn:soul:local:Weave/Turn/${id}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function weave(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8', env: ASKING });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('weave query with SERVICE, a weave serve running for the store', () => {
  let dir = '';
  let soul: TestEndpoint;
  let other: TestEndpoint;
  /** An endpoint that takes the connection and never answers. */
  let silent: { url: string; close(): void };
  let server: RunningServer;
  /** Queries the server has answered (its /metrics). */
  const asked = async () => {
    const text = await (await fetch(`${server.url}metrics`)).text();
    return [...text.matchAll(/^weave_http_requests_total\{route="\/sparql",[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };
  const memories = (endpoint: string) => `PREFIX ravel: <https://repolex.ai/ontology/ravel/>
SELECT ?turn ?memory WHERE {
  ?turn a weave:Turn ; owl:sameAs ?anchor .
  SERVICE <${endpoint}> { ?memory ravel:fromTurn ?anchor }
} ORDER BY ?turn`;

  before(async () => {
    ({ dir } = await ingestFresh([join(FIXTURES, 'server')]));
    await detect({ storeDir: dir });
    const trig = join(FIXTURES, 'federation', 'soul.trig');
    soul = await startEndpoint(trig, 'application/trig');
    other = await startEndpoint(trig, 'application/trig');
    silent = await startRawEndpoint(() => {});
    server = await startServer({
      storeDir: dir,
      soul: 'local',
      host: '127.0.0.1',
      port: 0,
      timeoutMs: 30_000,
      workers: 1,
      queueLimit: 8,
      maxResultBytes: 1e6,
      bodyLimitBytes: 1e6,
      allowUpdate: false,
      corsOrigins: [],
      queriesDir: join(REPO, 'queries'),
      serviceAllow: [soul.url, silent.url],
      verbose: false,
      log: () => undefined,
    });
    await server.ready;
  });
  after(async () => {
    await server.close();
    await soul.close();
    await other.close();
    silent.close();
    await removeDir(dir);
  });

  it('is answered by the server when it allows the endpoint too, as the command answers it by itself', async () => {
    const query = memories(soul.url);
    const tsv = (memory: string, turn: string) => `<${TURN(turn)}>\t<https://repolex.ai/ravel/Memory/${memory}>\n`;
    const expected = {
      tsv: `?turn\t?memory\n${tsv('m5e947117f3a0b596', '5e55e55e-0000-4000-8000-000000000001')}${tsv('m5e947117f3a0b596', '5e55e55e-0000-4000-8000-000000000004')}${tsv('ma787db49647d080d', '7e55e55e-0000-4000-8000-000000000001')}${tsv('ma787db49647d080d', '7e55e55e-0000-4000-8000-000000000002')}`,
    };
    const before = await asked();
    const served = await weave(['query', query, '--service-allow', soul.url, '--store', dir, '--format', 'tsv']);
    assert.deepEqual(served, { code: 0, stdout: expected.tsv, stderr: '' });
    assert.equal(await asked(), before + 1, 'the server answered');
    for (const format of [[], ['--format', 'json'], ['--format', 'csv']]) {
      const args = ['query', query, '--service-allow', soul.url, '--store', dir, ...format];
      const [fromServer, here] = [await weave(args), await weave([...args, '--no-daemon'])];
      assert.equal(fromServer.code, 0, fromServer.stderr);
      assert.deepEqual(fromServer, here, `weave ${format.join(' ') || 'query'}`);
    }
    assert.equal(await asked(), before + 4);

    // A source by URL on the server's list too: the server joins it, as the command would.
    const joined = `PREFIX ravel: <https://repolex.ai/ontology/ravel/>
SELECT ?turn ?memory WHERE { ?turn a weave:Turn ; owl:sameAs ?anchor . ?memory ravel:fromTurn ?anchor } ORDER BY ?turn`;
    const args = ['query', joined, '--source', soul.url, '--store', dir, '--format', 'tsv'];
    assert.deepEqual(await weave(args), { code: 0, stdout: expected.tsv, stderr: '' });
    assert.equal(await asked(), before + 5);
    assert.deepEqual(await weave([...args, '--no-daemon']), { code: 0, stdout: expected.tsv, stderr: '' });
    // A file as a source: the server reads none, so the command runs it.
    const file = await weave(['query', joined, '--source', join(FIXTURES, 'federation', 'pool.ttl'), '--store', dir, '--format', 'tsv']);
    assert.deepEqual(file, { code: 0, stdout: '?turn\t?memory\n', stderr: '' });
    assert.equal(await asked(), before + 5);
  });

  it("is cut by the server at the command's --timeout, shorter than its own: an endpoint that never answers is passed by under SERVICE SILENT, named with the time under SERVICE", {
    timeout: 60_000,
  }, async () => {
    const before = await asked();
    const query = (service: string) =>
      `SELECT ?turn ?s WHERE { ?turn a weave:Turn OPTIONAL { ${service} <${silent.url}> { ?s ?p ?o } } } ORDER BY ?turn`;
    const args = ['--service-allow', silent.url, '--store', dir, '--format', 'tsv', '--timeout', '4'];
    const started = performance.now();
    const passed = await weave(['query', query('SERVICE SILENT'), ...args]);
    const turns = ['5e55e55e-0000-4000-8000-000000000001', '5e55e55e-0000-4000-8000-000000000002', '5e55e55e-0000-4000-8000-000000000003']
      .concat(['5e55e55e-0000-4000-8000-000000000004', '7e55e55e-0000-4000-8000-000000000001', '7e55e55e-0000-4000-8000-000000000002'])
      .map((id) => `<${TURN(id)}>\t\n`);
    assert.deepEqual(passed, { code: 0, stdout: `?turn\t?s\n${turns.join('')}`, stderr: '' });
    const failed = await weave(['query', query('SERVICE'), ...args]);
    assert.deepEqual(failed, {
      code: 1,
      stdout: '',
      stderr: `weave query: ${silent.url} did not answer within the query's timeout of 4 s (--timeout)\n`,
    });
    // The server's own 30 s would have cut the endpoint at 28 s.
    assert.ok(performance.now() - started < 20_000);
    assert.equal(await asked(), before + 2, 'the server answered both');
  });

  it('runs here when the server does not allow the endpoint, and is refused when the command line does not', async () => {
    const before = await asked();
    const here = await weave(['query', memories(other.url), '--service-allow', other.url, '--store', dir, '--format', 'tsv']);
    assert.equal(here.code, 0, here.stderr);
    assert.equal(here.stderr, '');
    assert.equal(here.stdout.split('\n').length, 6);
    const refused = await weave(['query', memories(soul.url), '--store', dir]);
    assert.deepEqual(refused, {
      code: 1,
      stdout: '',
      stderr: `weave query: SERVICE <${soul.url}> is not on the allow-list (empty: start the server, or run the query, with --service-allow URL)\n`,
    });
    assert.equal(await asked(), before, 'the server was not asked');
  });
});
