import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { httpRequest } from '../../src/client/http.ts';

/**
 * Found by using it: `weave query` against a server busy loading the readers' graphs gave up
 * after 5 s with "no answer … in undefined ms" (Node 20's global agent times keep-alive sockets
 * out at 5 s). A real socket, a server that answers after 6 s.
 */
describe('httpRequest', () => {
  let server: Server;
  let url: string;
  before(async () => {
    server = createServer((request, response) => {
      const delay = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('delay'));
      setTimeout(() => response.end(`after ${delay} ms`), delay);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('waits for an answer slower than five seconds when no timeout is given', async () => {
    const answer = await httpRequest(`${url}?delay=6000`);
    assert.deepEqual([answer.status, answer.text], [200, 'after 6000 ms']);
  });

  it('gives up at the timeout it is given, saying how long it waited', async () => {
    await assert.rejects(httpRequest(`${url}?delay=2000`, { timeoutMs: 200 }), {
      name: 'TimeoutError',
      message: `no answer from ${url}?delay=2000 in 200 ms`,
    });
  });
});
