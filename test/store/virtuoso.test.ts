import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { startVirtuoso, virtuosoMissing, virtuosoTemplate } from './virtuoso.ts';

/**
 * The tests' Virtuoso (test/store/virtuoso.ts) starts from a copy of a template database made
 * once: each server's files are its own, the template is never opened by one, and the GRANT of
 * Graph Store writes to the SPARQL user, made in the template, holds in every copy.
 */

const ask = async (endpoint: string, query: string) => {
  const res = await fetch(`${endpoint}?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/sparql-results+json' } });
  return ((await res.json()) as { results: { bindings: { n: { value: string } }[] } }).results.bindings[0].n.value;
};

test('two servers from the template, each writing to a copy of its own', { skip: virtuosoMissing() }, async () => {
  const template = await virtuosoTemplate();
  assert.deepEqual(await readdir(template), ['virtuoso.db']);
  const before = await stat(join(template, 'virtuoso.db'));
  const [one, two] = await Promise.all([startVirtuoso(), startVirtuoso()]);
  try {
    for (const server of [one, two]) {
      const db = await stat(join(dirname(server.loadDir), 'virtuoso.db'));
      assert.notEqual(db.ino, before.ino);
    }
    // The SPARQL user's update, through the Graph Store protocol as Weave writes: the GRANT holds.
    const put = await fetch(`${one.endpoint}-graph-crud?graph-uri=${encodeURIComponent('urn:weave-test:g')}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/n-triples' },
      body: '<urn:weave-test:s> <urn:weave-test:p> "o" .\n<urn:weave-test:s> <urn:weave-test:p> "p" .\n',
    });
    assert.equal(put.status, 201, await put.text());
    const count = 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:weave-test:g> { ?s ?p ?o } }';
    assert.equal(await ask(one.endpoint, count), '2');
    assert.equal(await ask(two.endpoint, count), '0');
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
  // Stopped, a server leaves nothing that holds the process open (its grace timer held it 10 s).
  assert.deepEqual(
    process.getActiveResourcesInfo().filter((r) => r === 'Timeout'),
    [],
  );
  const after = await stat(join(template, 'virtuoso.db'));
  assert.deepEqual([after.ino, after.size, after.mtimeMs], [before.ino, before.size, before.mtimeMs]);
  assert.deepEqual(await readdir(template), ['virtuoso.db']);
});

/**
 * Found reading a failed start: its error sent the reader to virtuoso.log, which a server in the
 * foreground never writes (it logs to its stdout), in a directory removed as the start failed.
 */
test('a server that cannot start says why, in its own words', { skip: virtuosoMissing() }, async () => {
  // It takes the connections and drops them, as a port in use by something else may.
  const busy = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const { port } = busy.address() as AddressInfo;
  try {
    await assert.rejects(
      startVirtuoso({ httpPort: port }),
      new RegExp(
        `^Error: Virtuoso did not start \\(it exited with \\d+\\); it said:\\n[^]*Failed HTTP listen at 127\\.0\\.0\\.1:${port}\\.`,
      ),
    );
  } finally {
    busy.close();
  }
});
