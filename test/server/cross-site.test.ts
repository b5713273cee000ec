import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, request } from 'node:http';
import { describe, it } from 'node:test';
import { startTestServer } from './helpers.ts';

/**
 * What a page on another site can make the browser send is refused before it reaches a worker:
 * a form POST needs no preflight, so CORS alone let any page start a cross join that held a copy
 * of the store until the timeout. The server's own pages, links followed from elsewhere, origins
 * named by --cors-origin and command-line clients (no Origin, no Sec-Fetch-Site) are answered.
 */

const CROSS_JOIN = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
const REFUSED =
  '403 Forbidden: a request a page on another site sent through the browser is refused; to let a site query this server, start it with --cors-origin ORIGIN\n';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A request with exactly these headers (fetch would set Sec-Fetch-Mode itself), over a real socket. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { accept: 'application/sparql-results+json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A form POST, as an HTML form on any page can send it, with the headers a browser adds. */
const form = (base: string, query: string, headers: Record<string, string> = {}) =>
  send(
    `${base}/sparql`,
    'POST',
    { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    new URLSearchParams({ query }).toString(),
  );

const get = (base: string, query: string, headers: Record<string, string> = {}) =>
  send(`${base}/sparql?query=${encodeURIComponent(query)}`, 'GET', headers);

describe('requests from pages on other sites', () => {
  it('are refused with 403 before a worker runs them; the own page, links and command-line clients are answered', async () => {
    // A cross join that reached a worker would answer 504 after 2 s, not 403.
    const server = await startTestServer({ timeoutMs: 2000 });
    try {
      const refused: [string, Promise<Reply>][] = [
        ['form POST from another origin', form(server.base, CROSS_JOIN, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' })],
        ['POST marked cross-site only', form(server.base, CROSS_JOIN, { 'sec-fetch-site': 'cross-site' })],
        ['POST from a sandboxed frame', form(server.base, CROSS_JOIN, { origin: 'null' })],
        [
          'POST from another port of localhost',
          form(server.base, CROSS_JOIN, { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' }),
        ],
        [
          'GET an <img> sends',
          get(server.base, CROSS_JOIN, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }),
        ],
        [
          'GET a hidden frame sends',
          get(server.base, CROSS_JOIN, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' }),
        ],
        [
          'CORS GET from an origin not let in',
          get(server.base, CROSS_JOIN, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }),
        ],
      ];
      for (const [what, reply] of refused) {
        const r = await reply;
        assert.equal(r.status, 403, what);
        assert.equal(r.text, REFUSED, what);
      }
      assert.equal(server.ctx.pool.stats.restarts, 0, 'no worker ran a cross join');

      const ask = 'ASK { ?t a weave:Turn }';
      const answered: [string, Promise<Reply>][] = [
        ['a command-line client', form(server.base, ask)],
        ['the own page', form(server.base, ask, { origin: server.base, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })],
        ['the own page, Origin only', form(server.base, ask, { origin: server.base })],
        ['a URL typed in', get(server.base, ask, { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' })],
        [
          'a link followed from another site',
          get(server.base, ask, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }),
        ],
      ];
      for (const [what, reply] of answered) {
        const r = await reply;
        assert.equal(r.status, 200, what);
        assert.deepEqual(JSON.parse(r.text), { head: {}, boolean: true }, what);
      }
    } finally {
      await server.stop();
    }
  });

  it('from an origin named by --cors-origin are answered, form POSTs included', async () => {
    const notebook = 'https://notebook.example.org';
    const server = await startTestServer({ corsOrigins: [notebook] });
    try {
      const headers = { origin: notebook, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' };
      for (const reply of [form(server.base, 'ASK {}', headers), get(server.base, 'ASK {}', headers)]) {
        const r = await reply;
        assert.equal(r.status, 200);
        assert.equal(r.headers['access-control-allow-origin'], notebook);
        assert.deepEqual(JSON.parse(r.text), { head: {}, boolean: true });
      }
      const other = await form(server.base, 'ASK {}', { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
      assert.equal(other.status, 403);
      assert.equal(other.text, REFUSED);
    } finally {
      await server.stop();
    }
  });

  it('say Vary: Origin beside Accept when --cors-origin lists origins, since the CORS header depends on it', async () => {
    const notebook = 'https://notebook.example.org';
    const listed = await startTestServer({ corsOrigins: [notebook] }, null);
    const anyone = await startTestServer({ corsOrigins: ['*'] }, null);
    try {
      const cors = { origin: notebook, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' };
      // A negotiated answer to the listed origin and to a command-line client (which a cache could give that origin's page).
      for (const headers of [cors, {}]) {
        const r = await get(listed.base, 'ASK {}', headers);
        assert.equal(r.status, 200);
        assert.equal(r.headers.vary, 'Origin, Accept');
      }
      const description = await send(`${listed.base}/sparql`, 'GET', { ...cors, accept: 'text/turtle' });
      assert.equal(description.status, 200);
      assert.equal(description.headers['access-control-allow-origin'], notebook);
      assert.equal(description.headers.vary, 'Origin, Accept');
      // Any origin is answered alike: the answer does not vary by it.
      const r = await get(anyone.base, 'ASK {}', cors);
      assert.equal(r.headers['access-control-allow-origin'], '*');
      assert.equal(r.headers.vary, 'Accept');
    } finally {
      await listed.stop();
      await anyone.stop();
    }
  });
});
