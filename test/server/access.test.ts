import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startServer } from '../../src/server/server.ts';
import { startTestServer } from './helpers.ts';

/** Who may connect: loopback by default, a token beyond it, and a token for every write. */

describe('access', () => {
  it('refuses to listen beyond loopback without a token, and to take writes without one', async () => {
    const base = { storeDir: '/nonexistent', soul: 'local', port: 0, timeoutMs: 1000, workers: 1, queueLimit: 1, maxResultBytes: 1e6, bodyLimitBytes: 1e6, corsOrigins: [], queriesDir: '/nonexistent', verbose: false, log: () => {} };
    await assert.rejects(startServer({ ...base, host: '0.0.0.0', allowUpdate: false }), /exposes every transcript to the network; give a token/);
    await assert.rejects(startServer({ ...base, host: '127.0.0.1', allowUpdate: true }), /--allow-update needs a token/);
  });

  it('beyond loopback, every request but /healthz needs the token; a browser signs in once with /?token=', async () => {
    const server = await startTestServer({ host: '0.0.0.0', token: 'open-sesame' });
    const base = server.base.replace('0.0.0.0', '127.0.0.1');
    try {
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      const denied = await fetch(`${base}/sparql?query=ASK%7B%7D`);
      assert.equal(denied.status, 401);
      assert.match(await denied.text(), /needs its token/);
      assert.equal((await fetch(`${base}/sparql?query=ASK%7B%7D`, { headers: { authorization: 'Bearer open-sesame' } })).status, 200);
      assert.equal((await fetch(`${base}/?token=wrong`, { redirect: 'manual' })).status, 401);
      const signIn = await fetch(`${base}/?token=open-sesame`, { redirect: 'manual' });
      assert.equal(signIn.status, 303);
      const cookie = signIn.headers.get('set-cookie')!;
      assert.match(cookie, /^weave_token=open-sesame; Path=\/; HttpOnly; SameSite=Strict$/);
      assert.equal((await fetch(`${base}/`, { headers: { cookie: cookie.split(';')[0] } })).status, 200);
      // The cookie reads; it never writes (writes are off here anyway, and need the header).
      assert.equal((await fetch(`${base}/sparql`, { method: 'POST', headers: { cookie: cookie.split(';')[0], 'content-type': 'application/sparql-update' }, body: 'CLEAR ALL' })).status, 403);
    } finally {
      await server.stop();
    }
  });
});
