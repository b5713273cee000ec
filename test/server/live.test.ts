import assert from 'node:assert/strict';
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { eventually, select, SERVER_FIXTURES, SESSION_A, SESSION_B, startTestServer, TURN } from './helpers.ts';

/**
 * The server keeps the store current: a session file written while it runs shows up in queries,
 * and so does a line appended to a session it has already read, with no restart.
 */

const PROJECT = '-home-grace-weave-server';

describe('a running server', () => {
  it('sees new sessions and new lines as they are written', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weave-live-'));
    const project = join(root, PROJECT);
    await mkdir(project);
    await copyFile(join(SERVER_FIXTURES, PROJECT, `${SESSION_A}.jsonl`), join(project, `${SESSION_A}.jsonl`));
    const server = await startTestServer({}, [root]);
    try {
      const turns = async () => Number((await select(server.base, 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }'))[0].n);
      assert.equal(await turns(), 4);
      // The ingest thread looks again every refresh; this server was started with none, so ask.
      const refresh = () => server.ctx.ingester!.run();

      await copyFile(join(SERVER_FIXTURES, PROJECT, `${SESSION_B}.jsonl`), join(project, `${SESSION_B}.jsonl`));
      await refresh();
      await eventually(async () => (await turns()) === 6, 5000, 'the new session');

      const line = JSON.parse((await readFile(join(SERVER_FIXTURES, PROJECT, `${SESSION_B}.jsonl`), 'utf8')).split('\n')[1]);
      const next = {
        ...line,
        parentUuid: '7e55e55e-0000-4000-8000-000000000002',
        uuid: '7e55e55e-0000-4000-8000-000000000003',
        timestamp: '2025-11-03T10:00:09.000Z',
        message: { ...line.message, id: 'msg_t3', content: [{ type: 'text', text: 'Anything else?' }] },
      };
      await appendFile(join(project, `${SESSION_B}.jsonl`), `${JSON.stringify(next)}\n{ not json\n`);
      await refresh();
      await eventually(async () => (await turns()) === 7, 5000, 'the appended turn');
      // The broken line after it is logged by file and line, the file named from its source folder (never its content).
      assert.deepEqual(
        server.lines.filter((l) => l.startsWith('ingest: ')),
        [`ingest: ${PROJECT}/${SESSION_B}.jsonl:4: malformed`],
      );
      assert.deepEqual(
        await select(
          server.base,
          `SELECT ?text WHERE { <${TURN('7e55e55e-0000-4000-8000-000000000003')}> weave:hasContentBlock/weave:text ?text }`,
        ),
        [{ text: 'Anything else?' }],
      );

      // The readers ran too, as weave ingest runs them: each session has reader graphs.
      const readerGraphs = await select(
        server.base,
        `SELECT DISTINCT ?session WHERE { GRAPH ?g { } BIND(REPLACE(STR(?g), "^.*/graph/([^/]+)/reader/.*$", "$1") AS ?session) FILTER(?session != STR(?g)) } ORDER BY ?session`,
      );
      assert.deepEqual(readerGraphs, [{ session: SESSION_A }, { session: SESSION_B }]);

      const status = (await (await fetch(`${server.base}/status`)).json()) as {
        ingest: { state: string; runs: number; last: { sessions: number; skipped: number } };
      };
      assert.equal(status.ingest.state, 'ready');
      assert.equal(status.ingest.runs, 3);
      assert.deepEqual([status.ingest.last.sessions, status.ingest.last.skipped], [1, 1], 'the last run re-read only the grown session');
    } finally {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refreshes on its own every --refresh (here without the readers)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weave-live-'));
    const project = join(root, PROJECT);
    await mkdir(project);
    await copyFile(join(SERVER_FIXTURES, PROJECT, `${SESSION_A}.jsonl`), join(project, `${SESSION_A}.jsonl`));
    const server = await startTestServer({ ingest: { paths: [root], refreshMs: 200, detect: false } }, [root]);
    try {
      await copyFile(join(SERVER_FIXTURES, PROJECT, `${SESSION_B}.jsonl`), join(project, `${SESSION_B}.jsonl`));
      await eventually(
        async () => (await select(server.base, 'SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }'))[0].n === '6',
        5000,
        'the refresh',
      );
      // --no-detect: no reader graph.
      assert.deepEqual(await select(server.base, 'SELECT (COUNT(?g) AS ?n) WHERE { GRAPH ?g { } FILTER(CONTAINS(STR(?g), "/reader/")) }'), [
        { n: '0' },
      ]);
    } finally {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('a running server, a transcript edited in place', () => {
  it('reads again a transcript edited past its first 4 KiB at the same size, and logs that the old lines are kept in the archive (issue 25)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weave-live-'));
    const project = join(root, '-home-ada-records-demo');
    await mkdir(project);
    const S4 = '44444444-4444-4444-8444-444444444444';
    const path = join(project, `${S4}.jsonl`);
    await copyFile(join(SERVER_FIXTURES, '..', 'records', '-home-ada-records-demo', `${S4}.jsonl`), path);
    const server = await startTestServer({}, [root]);
    try {
      const texts = async (words: string) =>
        Number(
          (
            await select(server.base, `SELECT (COUNT(?b) AS ?n) WHERE { ?b weave:text ?t FILTER(CONTAINS(?t, ${JSON.stringify(words)})) }`)
          )[0].n,
        );
      assert.deepEqual([await texts('README.md and src.'), await texts('XXXXXXXXX and src.')], [1, 0]);
      // Line 14's text, past the first 4 KiB, blanked at the same length.
      const text = await readFile(path, 'utf8');
      await writeFile(path, text.replace('Two entries: README.md and src.', 'Two entries: XXXXXXXXX and src.'));
      await server.ctx.ingester!.run();
      await eventually(async () => (await texts('XXXXXXXXX and src.')) === 1, 5000, 'the edited text');
      assert.equal(await texts('README.md and src.'), 0);
      assert.ok(
        server.lines.some((l) => l.endsWith(`${path}: rewritten; the 18 lines read before are kept in the archive as version 1`)),
        server.lines.join('\n'),
      );
    } finally {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});
