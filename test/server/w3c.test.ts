import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO, startTestServer, type TestServer } from './helpers.ts';

/**
 * The W3C SPARQL 1.1 Protocol, Graph Store HTTP Protocol and Service Description suites, driven
 * by rdf-test-suite against the live server (writes on, empty store). The suites' files come
 * from ../shared/w3c-rdf-tests; the test skips when they are absent.
 */

const require = createRequire(import.meta.url);
const SUITES = join(REPO, '..', 'shared', 'w3c-rdf-tests', 'sparql', 'sparql11');
const HAS_SUITES = (() => {
  try {
    readFileSync(join(SUITES, 'protocol', 'manifest.ttl'));
    return true;
  } catch {
    return false;
  }
})();
const BASE = 'https://w3c.github.io/rdf-tests/sparql/sparql11/';
const TOKEN = 'w3c-suite-token';

/** Test names expected to fail, from the list file (comments after '#'). */
function expectedFailures(): string[] {
  return readFileSync(new URL('./w3c-expected-failures.txt', import.meta.url), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .sort();
}

interface TestResult {
  test: { uri: string };
  ok: boolean;
  skipped?: boolean;
  error?: { message?: string };
}

describe('W3C SPARQL 1.1 protocol suites', { skip: HAS_SUITES ? false : `no W3C suites at ${SUITES}` }, () => {
  let server: TestServer;
  const realFetch = globalThis.fetch;

  before(async () => {
    server = await startTestServer({ allowUpdate: true, token: TOKEN, timeoutMs: 10_000 }, null);
    // The suites know nothing of tokens: like a configured client, every request to the server carries it.
    globalThis.fetch = (input: string | URL | Request, init: RequestInit = {}) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url.startsWith(server.base))
        init = { ...init, headers: { ...Object.fromEntries(new Headers(init.headers ?? {})), authorization: `Bearer ${TOKEN}` } };
      return realFetch(input, init);
    };
  });
  after(async () => {
    globalThis.fetch = realFetch;
    await server.stop();
  });

  it('pass, but for the tests listed as expected failures', async (t) => {
    const { TestSuiteRunner } = require('rdf-test-suite') as {
      TestSuiteRunner: new () => { runManifest(url: string, engine: unknown, config: unknown): Promise<TestResult[]> };
    };
    const engine = {
      parse: () => Promise.reject(new Error('protocol tests only')),
      query: () => Promise.reject(new Error('protocol tests only')),
    };
    const results: TestResult[] = [];
    for (const [manifest, endpoint] of [
      ['protocol/manifest.ttl', { protocolEndpoint: `${server.base}/sparql` }],
      ['graph-store-protocol/manifest.ttl', { graphStoreEndpoint: `${server.base}/store` }],
      ['service-description/manifest.ttl', { serviceDescriptionEndpoint: `${server.base}/sparql` }],
    ] as const) {
      results.push(
        ...(await new TestSuiteRunner().runManifest(BASE + manifest, engine, {
          customEngingeOptions: endpoint,
          urlToFileMapping: `${BASE}~${SUITES}/`,
          timeOutDuration: 15_000,
        })),
      );
    }
    const name = (r: TestResult) => r.test.uri.replace(/.*#/, '');
    const failed = results.filter((r) => !r.ok && !r.skipped);
    for (const r of failed) t.diagnostic(`W3C FAIL ${name(r)}: ${r.error?.message?.split('\n')[0]}`);
    t.diagnostic(
      `W3C suites: ${results.filter((r) => r.ok).length} passed, ${failed.length} failed, ${results.filter((r) => r.skipped).length} skipped of ${results.length}`,
    );
    assert.equal(results.length, 50, 'all 50 listed tests ran (34 protocol, 13 graph store, 3 service description)');
    assert.deepEqual(failed.map(name).sort(), expectedFailures());
  });
});
