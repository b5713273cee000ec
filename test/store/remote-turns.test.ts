import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CONCURRENT_QUERIES, RemoteStore } from '../../src/store/remote/client.ts';

/**
 * The queries one process sends an external store wait their turn: a page asks its dozen SELECTs
 * at once, and Virtuoso's HTTP server resets the connections past its MaxClientConnections. An
 * HTTP endpoint on a real socket counts the requests it holds at once, answering each after 50 ms.
 */
describe('queries to an external store, in turn', () => {
  let server: Server;
  let endpoint: string;
  let open = 0;
  let most = 0;
  let answered = 0;

  before(async () => {
    server = createServer((req, res) => {
      open++;
      most = Math.max(most, open);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          open--;
          answered++;
          res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
          res.end('{"head":{"vars":["n"]},"results":{"bindings":[{"n":{"type":"literal","value":"1"}}]}}');
        }, 50),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}/sparql`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(`holds at most ${CONCURRENT_QUERIES} at once, and answers all 12`, async () => {
    const store = new RemoteStore({ format: 'weave-remote/1', endpoint, graphStore: `${endpoint}-graph-crud`, tripleTerms: false });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => store.query('SELECT (1 AS ?n) WHERE {}', ['application/sparql-results+json'])),
    );
    assert.equal(answers.length, 12);
    assert.equal(answered, 12);
    assert.equal(most, CONCURRENT_QUERIES);
  });
});
