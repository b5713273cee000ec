import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startServer } from '../../src/server/server.ts';
import { startTestServer } from './helpers.ts';

/** Who may connect: loopback by default, a token beyond it, and a token for every write. */

describe('access', () => {
  it('refuses to listen beyond loopback without a token, and to take writes without one', async () => {
    const base = {
      storeDir: '/nonexistent',
      soul: 'local',
      port: 0,
      timeoutMs: 1000,
      workers: 1,
      queueLimit: 1,
      maxResultBytes: 1e6,
      bodyLimitBytes: 1e6,
      corsOrigins: [],
      queriesDir: '/nonexistent',
      verbose: false,
      log: () => {},
    };
    await assert.rejects(
      startServer({ ...base, host: '0.0.0.0', allowUpdate: false }),
      /exposes every transcript to the network; give a token/,
    );
    await assert.rejects(startServer({ ...base, host: '127.0.0.1', allowUpdate: true }), /--allow-update needs a token/);
  });

  it('beyond loopback, every request but /healthz needs the token; a browser signs in once with /?token=', async () => {
    // Writes are on, so what refuses a cookie's write is the rule that only the header authorises one.
    const server = await startTestServer({ host: '0.0.0.0', token: 'open-sesame', allowUpdate: true });
    const base = server.base.replace('0.0.0.0', '127.0.0.1');
    try {
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      const denied = await fetch(`${base}/sparql?query=ASK%7B%7D`);
      assert.equal(denied.status, 401);
      assert.match(await denied.text(), /needs its token/);
      assert.equal((await fetch(`${base}/sparql?query=ASK%7B%7D`, { headers: { authorization: 'Bearer open-sesame' } })).status, 200);
      // Federators that cannot send a header use the capability URL: reads only, with the right token.
      assert.equal((await fetch(`${base}/t/open-sesame/sparql?query=ASK%7B%7D`)).status, 200);
      assert.equal((await fetch(`${base}/t/wrong/sparql?query=ASK%7B%7D`)).status, 401);
      assert.equal(
        (
          await fetch(`${base}/t/open-sesame/sparql`, {
            method: 'POST',
            headers: { 'content-type': 'application/sparql-update' },
            body: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }',
          })
        ).status,
        401,
      );
      assert.equal((await fetch(`${base}/?token=wrong`, { redirect: 'manual' })).status, 401);
      const signIn = await fetch(`${base}/?token=open-sesame`, { redirect: 'manual' });
      assert.equal(signIn.status, 303);
      const cookie = signIn.headers.get('set-cookie')!;
      assert.match(cookie, /^weave_token=open-sesame; Path=\/; HttpOnly; SameSite=Strict$/);
      const signedIn = { cookie: cookie.split(';')[0] };
      assert.equal((await fetch(`${base}/`, { headers: signedIn })).status, 200);

      // The cookie reads; it never writes. The same write with the token in the header goes through.
      const written = async () => {
        const res = await fetch(`${base}/sparql?query=${encodeURIComponent('ASK { <urn:access:s> <urn:access:p> "written" }')}`, {
          headers: { ...signedIn, accept: 'application/sparql-results+json' },
        });
        assert.equal(res.status, 200);
        return ((await res.json()) as { boolean: boolean }).boolean;
      };
      const insert = (headers: Record<string, string>) =>
        fetch(`${base}/sparql`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/sparql-update' },
          body: 'INSERT DATA { <urn:access:s> <urn:access:p> "written" }',
        });
      const put = (headers: Record<string, string>) =>
        fetch(`${base}/store?graph=${encodeURIComponent('urn:access:g')}`, {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'text/turtle' },
          body: '<urn:access:s> <urn:access:p> "put" .',
        });
      const byCookie = await insert(signedIn);
      assert.equal(byCookie.status, 401);
      assert.match(await byCookie.text(), /writes need the server token in an "Authorization: Bearer <token>" header/);
      assert.equal((await put(signedIn)).status, 401);
      assert.equal(await written(), false, 'the refused update changed nothing');
      assert.equal(
        (await fetch(`${base}/store?graph=${encodeURIComponent('urn:access:g')}`, { headers: signedIn })).status,
        404,
        'the refused PUT made no graph',
      );
      const token = { authorization: 'Bearer open-sesame' };
      assert.equal((await insert(token)).status, 204);
      assert.equal(await written(), true);
      assert.equal((await put(token)).status, 201);
      assert.equal((await fetch(`${base}/store?graph=${encodeURIComponent('urn:access:g')}`, { headers: signedIn })).status, 200);
    } finally {
      await server.stop();
    }
  });
});
