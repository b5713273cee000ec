import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { Parser } from 'n3';
import { readManifest } from '../../src/store/manifest.ts';
import { select, SESSION_B, startTestServer, TURN, type TestServer } from './helpers.ts';

/**
 * Writes with --allow-update: they need the bearer token; every worker sees them at once (the
 * other workers reload what changed before taking another job); and they are saved into the
 * store directory, so a restarted server still has them.
 */

const TOKEN = 's3cret-token';
const auth = { authorization: `Bearer ${TOKEN}` };
let server: TestServer;
let restarted: TestServer | undefined;

before(async () => {
  server = await startTestServer({ allowUpdate: true, token: TOKEN, workers: 2 });
});
after(async () => {
  if (restarted) {
    await restarted.close();
    await rm(server.storeDir, { recursive: true, force: true });
  } else await server.stop();
});

const update = (body: string, headers: Record<string, string> = auth, query = '') =>
  fetch(`${server.base}/sparql${query}`, { method: 'POST', headers: { 'content-type': 'application/sparql-update', ...headers }, body });

/** Asks several times, so both workers answer at least once. */
async function everyWorker(query: string): Promise<Record<string, string>[][]> {
  return Promise.all(Array.from({ length: 6 }, () => select(server.base, query)));
}

describe('writes', () => {
  it('need the token: 401 without it or with a wrong one', async () => {
    const none = await update('INSERT DATA { <urn:w:a> <urn:w:p> 1 }', {});
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="weave"');
    assert.equal((await update('INSERT DATA { <urn:w:a> <urn:w:p> 1 }', { authorization: 'Bearer nope' })).status, 401);
    assert.equal(
      (
        await fetch(`${server.base}/store?graph=urn:w:g`, {
          method: 'PUT',
          headers: { 'content-type': 'text/turtle' },
          body: '<urn:w:a> <urn:w:p> 1 .',
        })
      ).status,
      401,
    );
  });

  it('SPARQL Update: 204, seen by every worker at once, with prefixes predeclared', async () => {
    const res = await update('INSERT DATA { GRAPH <urn:w:notes> { <urn:w:note1> rdfs:label "first note" } }');
    assert.equal(res.status, 204);
    for (const rows of await everyWorker('SELECT ?l WHERE { <urn:w:note1> rdfs:label ?l }')) assert.deepEqual(rows, [{ l: 'first note' }]);
    // An update may read the union like a query, through its WHERE.
    const derived = await update(
      `INSERT { GRAPH <urn:w:notes> { ?t rdfs:comment "greeted" } } WHERE { GRAPH <urn:soul:local:Weave/graph/${SESSION_B}> { ?t a weave:UserTurn } }`,
    );
    assert.equal(derived.status, 204);
    for (const rows of await everyWorker('SELECT ?t WHERE { ?t rdfs:comment "greeted" }'))
      assert.deepEqual(rows, [{ t: TURN('7e55e55e-0000-4000-8000-000000000001') }]);
  });

  it('a triple written to the default graph is answered by every worker (each knows its default graph is no longer empty)', async () => {
    // A worker that still took its default graph for empty would read the named graphs only.
    assert.equal((await update('INSERT DATA { <urn:w:d> <urn:w:p> "in the default graph" }')).status, 204);
    for (const rows of await everyWorker('SELECT ?o WHERE { <urn:w:d> <urn:w:p> ?o }'))
      assert.deepEqual(rows, [{ o: 'in the default graph' }]);
    assert.equal((await update('DELETE DATA { <urn:w:d> <urn:w:p> "in the default graph" }')).status, 204);
    for (const rows of await everyWorker('SELECT ?o WHERE { <urn:w:d> <urn:w:p> ?o }')) assert.deepEqual(rows, []);
  });

  it('400 with the position for a bad update, even with using-graph-uri written in', async () => {
    const res = await update('INSERT { ?s ?p ?o } WHERE { ?s ?p', auth, '?using-graph-uri=urn%3Aw%3Anotes');
    assert.equal(res.status, 400);
    assert.match(await res.text(), /^400 Bad Request: error at line 1, column 34: /);
  });

  it('Graph Store: PUT creates (201), PUT replaces (204), POST adds, DELETE drops (204, then 404)', async () => {
    const url = `${server.base}/store?graph=${encodeURIComponent('urn:w:g1')}`;
    const put = (body: string) => fetch(url, { method: 'PUT', headers: { 'content-type': 'text/turtle', ...auth }, body });
    assert.equal((await put('<urn:w:x> <urn:w:p> "one" .')).status, 201);
    assert.equal((await put('<urn:w:x> <urn:w:p> "two" .')).status, 204);
    const post = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/n-triples', ...auth },
      body: '<urn:w:y> <urn:w:p> "three" .\n',
    });
    assert.equal(post.status, 204);
    const got = new Parser().parse(await (await fetch(url)).text());
    assert.deepEqual(got.map((q) => q.object.value).sort(), ['three', 'two']);
    const bad = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/turtle', ...auth }, body: '<urn:w:x> <urn:w:p> .' });
    assert.equal(bad.status, 400);
    assert.equal(new Parser().parse(await (await fetch(url)).text()).length, 2, 'a payload that does not parse changes nothing');
    assert.equal((await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/pdf', ...auth }, body: 'x' })).status, 415);
    assert.equal((await fetch(url, { method: 'DELETE', headers: auth })).status, 204);
    assert.equal((await fetch(url)).status, 404);
    assert.equal((await fetch(url, { method: 'DELETE', headers: auth })).status, 404);
  });

  it('POST to the store makes a new graph and says where (201 + Location)', async () => {
    const res = await fetch(`${server.base}/store`, {
      method: 'POST',
      headers: { 'content-type': 'text/turtle', ...auth },
      body: '<urn:w:z> <urn:w:p> "new" .',
    });
    assert.equal(res.status, 201);
    const location = res.headers.get('location')!;
    assert.match(location, new RegExp(`^${server.base}/store/[0-9a-f-]{36}$`));
    const direct = await fetch(location, { headers: { accept: 'application/n-triples' } });
    assert.equal(await direct.text(), '<urn:w:z> <urn:w:p> "new" .\n');
  });

  it('are saved in the store directory and survive a restart', async () => {
    const manifest = await readManifest(server.storeDir);
    assert.equal(manifest?.graphs['urn:w:notes']?.quads, 2);
    const { storeDir } = server;
    await server.close();
    const again = (restarted = await startTestServer({ storeDir, allowUpdate: true, token: TOKEN }, null));
    assert.deepEqual(await select(again.base, 'SELECT ?l WHERE { <urn:w:note1> rdfs:label ?l }'), [{ l: 'first note' }]);
    assert.deepEqual(await select(again.base, 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }'), [{ n: '6' }]);
    // DROP of a graph is saved too.
    assert.equal(
      (
        await fetch(`${again.base}/sparql`, {
          method: 'POST',
          headers: { 'content-type': 'application/sparql-update', ...auth },
          body: 'DROP GRAPH <urn:w:notes>',
        })
      ).status,
      204,
    );
    assert.equal((await readManifest(storeDir))?.graphs['urn:w:notes'], undefined);
  });
});
