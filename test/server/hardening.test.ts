import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { MAX_QUERY_DEPTH } from '../../src/query/depth.ts';
import { startServer } from '../../src/server/server.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { removeDir, tempDir } from '../helpers.ts';
import { REPO, SERVER_FIXTURES, SESSION_A, startTestServer, TURN, type TestServer } from './helpers.ts';

/**
 * Issue 15, defects 6 and 7 on a real socket: prototype names are not routes, describe pages
 * and every answer carry their protective headers, a query too deep for Oxigraph is refused
 * before a worker sees it, and /healthz tells the truth about workers that cannot open the store.
 */

describe('a server under abuse', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    token = 'hardening-test-token';
    server = await startTestServer({ allowUpdate: true, token });
  });
  after(() => server.stop());
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.base}${path}`, { headers });

  it('answers 404 to prototype names as assets or paths, 415 to them as a Content-Type, and passes them over as format names, never 500', async () => {
    const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
    for (const name of names) {
      assert.equal((await get(`/assets/${name}`)).status, 404, `/assets/${name}`);
      assert.equal((await get(`/${name}`)).status, 404, `/${name}`);
      const query = encodeURIComponent('SELECT * WHERE { ?s ?p ?o } LIMIT 1');
      // A format name the server does not know is passed over and Accept decides (SPARQLWrapper sends
      // names of its own): a prototype name is no format, so the answer is the default JSON.
      const answer = await get(`/sparql?query=${query}&format=${name}`);
      assert.equal(answer.status, 200, `format=${name}`);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/sparql-results\+json/, `format=${name}`);
      const put = await fetch(`${server.base}/store?graph=${encodeURIComponent('urn:g')}`, {
        method: 'PUT',
        headers: { 'content-type': name, authorization: `Bearer ${token}` },
        body: '<urn:a> <urn:b> <urn:c> .',
      });
      assert.equal(put.status, 415, `Content-Type: ${name}`);
    }
    // The server is intact: the real asset is still there.
    assert.equal((await get('/assets/weave.css')).status, 200);
  });

  it('sends nosniff on every answer, and a script-free CSP with each describe page', async () => {
    const page = await get(`/describe?iri=${encodeURIComponent(TURN('5e55e55e-0000-4000-8000-000000000001'))}`, { accept: 'text/html' });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.ok(!/script-src/.test(csp), 'no script source is allowed at all');
    for (const path of ['/healthz', '/nowhere', `/sparql?query=${encodeURIComponent('ASK {}')}`, '/']) {
      assert.equal((await get(path)).headers.get('x-content-type-options'), 'nosniff', path);
    }
  });

  it('refuses queries and updates nested past the limit with 400, and no worker is lost', async () => {
    const restarts = server.ctx.pool.stats.restarts;
    const deep = {
      '10k nested groups': `SELECT * WHERE ${'{'.repeat(10_000)} ?s ?p ?o ${'}'.repeat(10_000)}`,
      '10k nested parentheses': `SELECT * WHERE { ?s ?p ?o FILTER(${'('.repeat(10_000)}1${')'.repeat(10_000)}) }`,
      '2k nested OPTIONALs': `SELECT * WHERE { ?s ?p ?o ${'OPTIONAL { ?s ?p ?o '.repeat(2000)}${'}'.repeat(2000)} }`,
      '2k OPTIONALs in a row': `SELECT * WHERE { ?s ?p ?o ${'OPTIONAL { ?s ?p ?o } '.repeat(2000)}}`,
      '20k UNIONs': `SELECT * WHERE { ${Array(20_000).fill('{ ?s ?p ?o }').join(' UNION ')} }`,
      '5k ||': `SELECT * WHERE { ?s ?p ?o FILTER(${Array(5000).fill('?o = 1').join(' || ')}) }`,
    };
    for (const [name, query] of Object.entries(deep)) {
      // A form POST: what any web page can send to a local endpoint.
      const res = await fetch(`${server.base}/sparql`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query }),
      });
      assert.equal(res.status, 400, name);
      assert.match(
        await res.text(),
        new RegExp(
          `^400 Bad Request: the query is nested too deeply for the store \\(over ${MAX_QUERY_DEPTH} by this server's count.*; split it or flatten it\\n?$`,
        ),
        name,
      );
    }
    const update = await fetch(`${server.base}/sparql`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-update', authorization: `Bearer ${token}` },
      body: `INSERT { <urn:a> <urn:b> <urn:c> } WHERE ${'{'.repeat(5000)}${'}'.repeat(5000)}`,
    });
    assert.equal(update.status, 400);
    assert.equal(server.ctx.pool.stats.restarts, restarts, 'no worker was replaced');
    // One copy of the store is open (the resident pool keeps a booted standby, not a second copy).
    // At rest: a copy opened while an earlier request held the first too long (a loaded
    // machine's can) is retired once idle 2 s, so it is read once that is done.
    for (let waited = 0; server.ctx.pool.stats.ready > 1 && waited < 10_000; waited += 250) await new Promise((r) => setTimeout(r, 250));
    assert.equal(server.ctx.pool.stats.ready, 1);
    // Depth the guard lets through runs: nested groups right at the limit (SELECT 1, a group 2).
    const n = Math.floor((MAX_QUERY_DEPTH - 1) / 2);
    const atLimit = `SELECT (COUNT(*) AS ?n) WHERE ${'{'.repeat(n)} ?s ?p ?o ${'}'.repeat(n)}`;
    const ok = await fetch(`${server.base}/sparql?query=${encodeURIComponent(atLimit)}`, {
      headers: { accept: 'application/sparql-results+json' },
    });
    assert.equal(ok.status, 200);
    assert.equal(server.ctx.pool.stats.restarts, restarts);
  });
});

describe('a server whose store cannot be opened', () => {
  it('says so on /healthz (503 "failing", never ok) and logs the file and line once', async () => {
    const storeDir = await tempDir();
    const lines: string[] = [];
    try {
      await ingest([SERVER_FIXTURES], { storeDir, soul: 'local' });
      const entry = Object.values((await readManifest(storeDir))!.graphs).find((e) => e.sessionId === SESSION_A)!;
      const path = join(storeDir, entry.file);
      const text = await readFile(path, 'utf8');
      // A graph file cut mid-line, as a short write would leave it.
      const cut = `${text.split('\n').slice(0, 9).join('\n')}\n${text.split('\n')[9].slice(0, 30)}`;
      await writeFile(path, cut);
      const server = await startServer({
        storeDir,
        soul: 'local',
        host: '127.0.0.1',
        port: 0,
        timeoutMs: 5000,
        workers: 1,
        queueLimit: 4,
        maxResultBytes: 1e6,
        bodyLimitBytes: 1e6,
        allowUpdate: false,
        corsOrigins: [],
        queriesDir: join(REPO, 'queries'),
        verbose: false,
        log: (l) => lines.push(l),
      });
      try {
        const base = server.url.replace(/\/$/, '');
        for (let i = 0; i < 100 && !lines.length; i++) await new Promise((r) => setTimeout(r, 50));
        const health = await fetch(`${base}/healthz`);
        assert.equal(health.status, 503);
        assert.deepEqual(await health.json(), {
          status: 'failing',
          pid: process.pid,
          store: 'failing',
          ingest: 'off',
          problem:
            'the store cannot be opened (the server log says which file and why); weave verify --self checks its files; weave ingest --rebuild, then weave detect, write its graphs again',
        });
        assert.deepEqual(lines, [`a query worker cannot open the store: ${path}:10: not valid N-Quads`]);
        // A query is refused at once with the same words, not held until its 5 s deadline (whose 503 says "busy").
        const query = await fetch(`${base}/sparql?query=ASK%7B%7D`, { headers: { accept: 'application/sparql-results+json' } });
        assert.equal(query.status, 503);
        assert.ok(query.headers.get('retry-after'));
        assert.equal(
          await query.text(),
          '503 Service Unavailable: the store cannot be opened (the server log says which file and why); weave verify --self checks its files; weave ingest --rebuild, then weave detect, write its graphs again\n',
        );
        // Workers keep failing to open it: the log does not repeat itself.
        await new Promise((r) => setTimeout(r, 1200));
        assert.equal(lines.length, 1);
        assert.equal((await fetch(`${base}/healthz`)).status, 503);
      } finally {
        await server.close();
      }
    } finally {
      await removeDir(storeDir);
    }
  });

  it('is "starting", not ok, until a worker has the store open', async () => {
    const storeDir = await tempDir();
    try {
      const server = await startServer({
        storeDir,
        soul: 'local',
        host: '127.0.0.1',
        port: 0,
        timeoutMs: 5000,
        workers: 1,
        queueLimit: 4,
        maxResultBytes: 1e6,
        bodyLimitBytes: 1e6,
        allowUpdate: false,
        corsOrigins: [],
        queriesDir: join(REPO, 'queries'),
        verbose: false,
        log: () => {},
      });
      try {
        const base = server.url.replace(/\/$/, '');
        // Right after start the worker may still be loading: whatever the moment, "ok" and 200
        // come only with a ready worker, and "starting" with 503.
        const first = await fetch(`${base}/healthz`);
        const body = (await first.json()) as { status: string; store: string };
        assert.deepEqual([first.status, body.status], body.store === 'ready' ? [200, 'ok'] : [503, 'starting']);
        await server.ctx.pool.whenReady();
        const ready = await fetch(`${base}/healthz`);
        assert.equal(ready.status, 200);
        assert.equal(((await ready.json()) as { status: string }).status, 'ok');
      } finally {
        await server.close();
      }
    } finally {
      await removeDir(storeDir);
    }
  });
});
