import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { openSessionGraphs } from '../../src/cli/open.ts';
import { ingest } from '../../src/ingest.ts';
import { readManifest, type Manifest } from '../../src/store/manifest.ts';
import type { OxStore } from '../../src/store/store.ts';
import { lockStore, openStoreForWriting } from '../../src/store/writer.ts';
import { usageRowsOutput } from '../../src/usage/derivation.ts';
import { preparedReport, readPreparedUsage } from '../../src/usage/prepared.ts';
import { loadPrices, type PriceTable } from '../../src/usage/prices.ts';
import { buildReport } from '../../src/usage/graphs.ts';
import type { ReportKind, ReportOptions } from '../../src/usage/report.ts';
import type { SessionUsage } from '../../src/usage/rows.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * `weave usage` from the prepared rows (one JSON file per session, derived at ingest) gives the
 * very reports the usage SPARQL gives over the session graphs: every report, every filter, on
 * every fixture (a resumed session's copied calls, split calls, sub-agents, broken lines, odd
 * values among them).
 */

const KINDS: ReportKind[] = ['daily', 'weekly', 'monthly', 'session', 'blocks'];
const OPTIONS: ReportOptions[] = [
  {},
  { since: '2026-01-01' },
  { until: '2025-11-02' },
  { model: 'opus' },
  { model: 'haiku', since: '2026-11-02' },
  { project: 'weave' },
  { project: 'dev-api', model: 'sonnet' },
  { order: 'desc' },
  { startOfWeek: 1 },
  { sessionLength: 2 },
  { project: 'no such project' },
];
const NOW = new Date('2027-01-01T00:00:00Z');

describe('weave usage from prepared rows, against SPARQL over the session graphs', () => {
  let dir: string;
  let manifest: Manifest;
  let store: OxStore;
  let prices: PriceTable;
  let prepared: SessionUsage[];
  before(async () => {
    dir = await tempDir();
    await ingest([FIXTURES], { storeDir: dir, soul: 'local' });
    manifest = (await readManifest(dir))!;
    store = await openSessionGraphs(dir);
    prices = await loadPrices();
    prepared = (await readPreparedUsage(dir, manifest))!;
  });
  after(() => removeDir(dir));

  test('every report with every filter: the same report, field for field and in the same order', () => {
    assert.ok(prepared, 'every session has its prepared rows');
    let calls = 0;
    for (const kind of KINDS)
      for (const options of OPTIONS) {
        const o = { ...options, now: NOW };
        const old = buildReport(store, kind, prices, o);
        const ours = preparedReport(prepared, kind, prices, o);
        const text = (r: typeof old) => JSON.stringify({ report: r.report, titles: [...r.extras.titles], unpriced: r.extras.unpriced });
        assert.equal(text(ours), text(old), `${kind} ${JSON.stringify(options)}`);
        if (kind === 'daily' && !Object.keys(options).length) calls = JSON.parse(text(ours)).report.daily.length;
      }
    assert.ok(calls > 5, 'the fixtures hold calls on several days');
  });

  test('a resumed session holds copies of its parent calls: each counts once, in the first session by id', async () => {
    const resumed = Object.values(manifest.files ?? {}).filter((f) => f.file.startsWith('usage/rows/'));
    assert.equal(resumed.length, Object.values(manifest.graphs).filter((g) => g.sessionId && !g.reader).length);
    const rows = await Promise.all(resumed.map(async (f) => JSON.parse(await readFile(join(dir, f.file), 'utf8')) as SessionUsage));
    const keys = rows.flatMap((r) => r.calls.map((c) => c.key));
    const copied = keys.filter((k, i) => keys.indexOf(k) !== i);
    assert.ok(copied.length > 0, 'some call sits in two session graphs');
    const daily = preparedReport(prepared, 'daily', prices).report as { daily: { modelBreakdowns: unknown[] }[] };
    const counted = JSON.parse(JSON.stringify(buildReport(store, 'daily', prices).report));
    assert.deepEqual(daily, counted);
  });

  test('a session without current rows: no prepared answer, so the graphs answer', async () => {
    const [name] = Object.keys(manifest.files ?? {}).filter((n) => n.startsWith('usage/rows/'));
    const files = { ...manifest.files };
    delete files[name];
    assert.equal(await readPreparedUsage(dir, { ...manifest, files }), undefined);
    const older = { ...manifest.files, [name]: { ...manifest.files![name], builtWith: 'usage/rows@0' } };
    assert.equal(await readPreparedUsage(dir, { ...manifest, files: older }), undefined);
    const session = manifest.files![name].sessionId!;
    assert.equal(usageRowsOutput(session).file, name);
  });

  test('the CLI answers the same from the prepared rows as from the graphs, for every report and --json', async () => {
    const run = promisify(execFile);
    const weave = join(REPO, 'bin', 'weave');
    for (const kind of KINDS.filter((k) => k !== 'blocks')) {
      const { stdout } = await run(weave, ['usage', kind, '--json', '--store', dir]);
      assert.equal(stdout, `${JSON.stringify(buildReport(store, kind, prices).report, null, 2)}\n`, kind);
    }
    // A store ingested before the rows were prepared: the command asks the graphs, and says the same.
    const bare = `${dir}-bare`;
    await cp(dir, bare, { recursive: true });
    try {
      const lock = await lockStore(bare);
      const writer = await openStoreForWriting(bare, manifest.soul);
      for (const name of Object.keys(manifest.files ?? {})) if (name.startsWith('usage/rows/')) await writer.removeFile(name);
      await writer.close();
      await lock.release();
      assert.equal(await readPreparedUsage(bare, (await readManifest(bare))!), undefined);
      for (const args of [
        ['session', '--json'],
        ['monthly', '--breakdown', '--wide'],
      ])
        assert.equal(
          (await run(weave, ['usage', ...args, '--store', bare])).stdout,
          (await run(weave, ['usage', ...args, '--store', dir])).stdout,
        );
    } finally {
      await removeDir(bare);
    }
  });
});

/** A Claude Code record of session `session`: a prompt, or a fragment of call msg_fork (its usage's output tokens `out`). */
function record(session: string, n: number, time: string, out?: number): string {
  const base = {
    parentUuid: n > 1 ? `${session.slice(0, 8)}-0000-4000-8000-00000000000${n - 1}` : null,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/ada/fork',
    sessionId: session,
    version: '2.1.39',
    uuid: `${session.slice(0, 8)}-0000-4000-8000-00000000000${n}`,
    timestamp: time,
  };
  if (out === undefined) return JSON.stringify({ ...base, type: 'user', message: { role: 'user', content: 'Fork it.' } });
  const usage = { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: out };
  const message = {
    model: 'claude-opus-4-7',
    id: 'msg_fork',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: `part ${n}` }],
    usage,
  };
  return JSON.stringify({ ...base, type: 'assistant', requestId: 'req_fork', message });
}

test('a call copied into a fork that holds fewer of its fragments: once, in the first session by id, with the largest figures', async () => {
  const dir = await tempDir();
  try {
    const project = join(dir, 'projects', '-home-ada-fork');
    await mkdir(project, { recursive: true });
    const whole = '99999999-9999-4999-8999-999999999999';
    const fork = '11111111-1111-4111-8111-111111111111';
    // The whole session: the call's fragments say 1 then 40 output tokens; the fork holds only the first.
    await writeFile(
      join(project, `${whole}.jsonl`),
      `${[record(whole, 1, '2026-11-05T10:00:00.000Z'), record(whole, 2, '2026-11-05T10:00:01.000Z', 1), record(whole, 3, '2026-11-05T10:00:02.000Z', 40)].join('\n')}\n`,
    );
    await writeFile(
      join(project, `${fork}.jsonl`),
      `${[record(fork, 1, '2026-11-05T10:00:00.000Z'), record(fork, 2, '2026-11-05T10:00:01.000Z', 1)].join('\n')}\n`,
    );
    const store = join(dir, 'store');
    await ingest([join(dir, 'projects')], { storeDir: store, soul: 'local' });
    const prices = await loadPrices();
    const prepared = (await readPreparedUsage(store, (await readManifest(store))!))!;
    const { report } = preparedReport(prepared, 'session', prices);
    // 10 input, 40 output, 100 cache reads at claude-opus-4-7's 5/25/0.5 USD per million: 50 + 1000 + 50 µ$.
    assert.deepEqual(
      'sessions' in report
        ? report.sessions.map((s) => [s.sessionId, s.inputTokens, s.outputTokens, s.cacheReadTokens, s.totalCost, s.lastActivity])
        : [],
      [[fork, 10, 40, 100, 0.0011, '2026-11-05']],
    );
    const blocks = preparedReport(prepared, 'blocks', prices, { now: NOW }).report;
    assert.deepEqual('blocks' in blocks ? blocks.blocks.map((b) => [b.entries, b.actualEndTime]) : [], [[1, '2026-11-05T10:00:02.000Z']]);
    const graphs = await openSessionGraphs(store);
    for (const kind of KINDS)
      assert.equal(
        JSON.stringify(preparedReport(prepared, kind, prices, { now: NOW }).report),
        JSON.stringify(buildReport(graphs, kind, prices, { now: NOW }).report),
        kind,
      );

    // The fork grows: a later fragment of the call says 50 output tokens. The read carries on, and the rows follow.
    await appendFile(join(project, `${fork}.jsonl`), `${record(fork, 3, '2026-11-05T10:00:03.000Z', 50)}\n`);
    const again = await ingest([join(dir, 'projects')], { storeDir: store, soul: 'local' });
    assert.deepEqual(again.derived.ran['usage/rows'], { runs: 1, why: { 'input changed': 1 } });
    const grown = (await readPreparedUsage(store, (await readManifest(store))!))!;
    const after = preparedReport(grown, 'daily', prices).report;
    assert.deepEqual('daily' in after ? after.daily.map((d) => [d.date, d.outputTokens, d.totalCost]) : [], [['2026-11-05', 50, 0.00135]]);
    const regrown = await openSessionGraphs(store);
    assert.equal(JSON.stringify(after), JSON.stringify(buildReport(regrown, 'daily', prices).report));
  } finally {
    await removeDir(dir);
  }
});
