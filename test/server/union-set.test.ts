import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readGraphBytes, readManifest } from '../../src/store/manifest.ts';
import { FIXTURES } from '../model/helpers.ts';
import { select, startTestServer, type TestServer } from './helpers.ts';

/**
 * The endpoint's union is a set with no rewrite (src/store/restated.ts), over two sessions that
 * both hold one call and its records (fixtures/model/resumed-session): counted over the union
 * the call is one, read graph by graph (GRAPH, the Graph Store Protocol) each session is whole.
 * Checked on a server that loaded the sessions as its ingest thread wrote them (each graph
 * settled as it came), then on one that opened the built store (all found at once).
 */

const A = 'urn:soul:local:Weave/graph/a1000000-0000-4000-8000-000000000001';
const B = 'urn:soul:local:Weave/graph/b2000000-0000-4000-8000-000000000002';
const CALL = 'urn:soul:local:Weave/LlmCall/msg_01ReleaseNotesDraft0000003';

async function checkUnion(server: TestServer): Promise<void> {
  const counts = (cls: string) =>
    select(
      server.base,
      `SELECT ?n ?perSession WHERE { { SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:${cls} } }
        { SELECT (COUNT(?c) AS ?perSession) WHERE { GRAPH ?g { ?c a weave:${cls} } } } }`,
    );
  // Six calls, seven counted session by session (the copied one in each); tool calls 2 and 3.
  assert.deepEqual(await counts('LlmCall'), [{ n: '6', perSession: '7' }]);
  assert.deepEqual(await counts('ToolCall'), [{ n: '2', perSession: '3' }]);
  // Over the union alone (no GRAPH: no copy put back, no rewrite), without DISTINCT.
  assert.deepEqual(await select(server.base, 'SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:LlmCall }'), [{ n: '6' }]);
  assert.deepEqual(
    await select(
      server.base,
      `SELECT (COUNT(*) AS ?n) WHERE { <${CALL}> a weave:LlmCall ; weave:firstFragment ?f . ?f weave:timestamp ?t }`,
    ),
    [{ n: '1' }],
  );
  for (const g of [A, B])
    assert.deepEqual(await select(server.base, `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${g}> { <${CALL}> a weave:LlmCall } }`), [
      { n: '1' },
    ]);
  // Each session graph over the Graph Store Protocol: every triple of its files.
  const manifest = (await readManifest(server.storeDir))!;
  for (const g of [A, B]) {
    const res = await fetch(`${server.base}/store?graph=${encodeURIComponent(g)}`, { headers: { accept: 'application/n-triples' } });
    assert.equal(res.status, 200);
    const served = (await res.text()).split('\n').filter(Boolean).length;
    const stored = (await readGraphBytes(server.storeDir, manifest.graphs[g])).toString('utf8').split('\n').filter(Boolean).length;
    assert.equal(served, stored, `<${g}> served whole`);
  }
  assert.deepEqual(await select(server.base, 'SELECT (COUNT(?c) AS ?n) WHERE { ?c a weave:LlmCall }'), [{ n: '6' }], 'set aside again');
}

describe('the union as a set, with no rewrite', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weave-union-set-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('on a server that loads the sessions as its ingest writes them', async () => {
    const server = await startTestServer({ storeDir: dir }, [join(FIXTURES, 'resumed-session')]);
    try {
      await checkUnion(server);
    } finally {
      await server.stop();
    }
  });

  it('on a server that opens the built store', async () => {
    const server = await startTestServer({ storeDir: dir }, null);
    try {
      await checkUnion(server);
    } finally {
      await server.stop();
    }
  });
});
