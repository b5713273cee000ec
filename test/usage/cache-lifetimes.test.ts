import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { openSessionGraphs } from '../../src/cli/open.ts';
import { ingest } from '../../src/ingest.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import type { OxStore } from '../../src/store/store.ts';
import { buildReport, graphsReport } from '../../src/usage/graphs.ts';
import { preparedReport, readPreparedUsage } from '../../src/usage/prepared.ts';
import { loadPrices, type PriceTable } from '../../src/usage/prices.ts';
import type { ReportKind, UsageReport } from '../../src/usage/report.ts';
import type { SessionUsage } from '../../src/usage/rows.ts';
import { REPO, removeDir, select, tempDir } from '../helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from '../store/virtuoso.ts';

/**
 * Cache writes by lifetime: Anthropic bills a 5-minute write at 1.25× the input price and a
 * one-hour write at 2×. Claude Code splits `cache_creation_input_tokens` into
 * `cache_creation.ephemeral_5m_input_tokens` and `ephemeral_1h_input_tokens`; an older record has
 * only the total, all of it 5-minute writes. One hand-written session, every cost by hand
 * (µ$ = tokens × USD per million tokens):
 *
 *   2026-11-20  msg_c1  opus-4-5-20251101 (opus-4-5: 5/25, writes 6.25 and 10, reads 0.5)
 *               1000 in, 200 out, 30000 written (10000 5-minute, 20000 one-hour), 50000 read
 *               5000 + 5000 + 62500 + 200000 + 25000 = 297500 µ$
 *   2026-11-20  msg_c2  sonnet-4-5 (3/15, writes 3.75 and 6), two fragments, the last one counts:
 *               2000 in, 300 out, 4000 written (all one-hour)
 *               6000 + 4500 + 24000 = 34500 µ$
 *   2026-11-21  msg_c3  haiku-4-5 (1/5, writes 1.25 and 2, reads 0.1), an old record (no split):
 *               100 in, 50 out, 8000 written (so 5-minute), 1000 read
 *               100 + 250 + 10000 + 100 = 10450 µ$
 *   2026-11-21  msg_c4  haiku-4-5, a record saying 500 one-hour writes of 100 written in all:
 *               no more than the 100 are one-hour writes, 100 × 2 = 200 µ$
 *
 * At the 5-minute rate alone (as before) msg_c1 cost 222500 µ$, msg_c2 25500 and msg_c4 125.
 */

const SESSION = '55555555-5555-4555-8555-555555555555';
const PROJECT = '-home-lin-cache-demo';

function assistant(n: number, id: string, model: string, time: string, usage: object): string {
  return JSON.stringify({
    parentUuid: n > 1 ? `c-${n - 1}` : 'u-1',
    isSidechain: false,
    type: 'assistant',
    requestId: `req_${id}`,
    message: { id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text: `reply ${n}` }], usage },
    uuid: `c-${n}`,
    timestamp: time,
    sessionId: SESSION,
    cwd: '/home/lin/cache-demo',
    version: '2.1.119',
  });
}

const split = (fiveMinute: number, oneHour: number) => ({
  cache_creation_input_tokens: fiveMinute + oneHour,
  cache_creation: { ephemeral_5m_input_tokens: fiveMinute, ephemeral_1h_input_tokens: oneHour },
});

const LINES = [
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content: 'Warm the cache' },
    uuid: 'u-1',
    timestamp: '2026-11-20T08:00:00.000Z',
    sessionId: SESSION,
    cwd: '/home/lin/cache-demo',
    version: '2.1.119',
  }),
  assistant(1, 'msg_c1', 'claude-opus-4-5-20251101', '2026-11-20T08:00:05.000Z', {
    input_tokens: 1000,
    output_tokens: 200,
    ...split(10000, 20000),
    cache_read_input_tokens: 50000,
  }),
  assistant(2, 'msg_c2', 'claude-sonnet-4-5', '2026-11-20T08:01:00.000Z', {
    input_tokens: 2000,
    output_tokens: 1,
    ...split(0, 4000),
    cache_read_input_tokens: 0,
  }),
  assistant(3, 'msg_c2', 'claude-sonnet-4-5', '2026-11-20T08:01:09.000Z', {
    input_tokens: 2000,
    output_tokens: 300,
    ...split(0, 4000),
    cache_read_input_tokens: 0,
  }),
  assistant(4, 'msg_c3', 'claude-haiku-4-5', '2026-11-21T09:00:00.000Z', {
    input_tokens: 100,
    output_tokens: 50,
    cache_creation_input_tokens: 8000,
    cache_read_input_tokens: 1000,
  }),
  assistant(5, 'msg_c4', 'claude-haiku-4-5', '2026-11-21T09:30:00.000Z', {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 100,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 500 },
    cache_read_input_tokens: 0,
  }),
];

const OPUS = {
  modelName: 'claude-opus-4-5-20251101',
  inputTokens: 1000,
  outputTokens: 200,
  cacheCreationTokens: 30000,
  cacheReadTokens: 50000,
  cost: 0.2975,
};
const SONNET = {
  modelName: 'claude-sonnet-4-5',
  inputTokens: 2000,
  outputTokens: 300,
  cacheCreationTokens: 4000,
  cacheReadTokens: 0,
  cost: 0.0345,
};
const HAIKU = {
  modelName: 'claude-haiku-4-5',
  inputTokens: 100,
  outputTokens: 50,
  cacheCreationTokens: 8100,
  cacheReadTokens: 1000,
  cost: 0.01065,
};

const DAILY = {
  daily: [
    {
      date: '2026-11-20',
      inputTokens: 3000,
      outputTokens: 500,
      cacheCreationTokens: 34000,
      cacheReadTokens: 50000,
      totalTokens: 87500,
      totalCost: 0.332,
      modelsUsed: ['claude-opus-4-5-20251101', 'claude-sonnet-4-5'],
      modelBreakdowns: [OPUS, SONNET],
    },
    {
      date: '2026-11-21',
      inputTokens: 100,
      outputTokens: 50,
      cacheCreationTokens: 8100,
      cacheReadTokens: 1000,
      totalTokens: 9250,
      totalCost: 0.01065,
      modelsUsed: ['claude-haiku-4-5'],
      modelBreakdowns: [HAIKU],
    },
  ],
  totals: {
    inputTokens: 3100,
    outputTokens: 550,
    cacheCreationTokens: 42100,
    cacheReadTokens: 51000,
    totalCost: 0.34265,
    totalTokens: 96750,
  },
};

/** A temp dir holding the session under projects/<project>/. */
async function writeSession(): Promise<string> {
  const home = await tempDir();
  await mkdir(join(home, 'projects', PROJECT), { recursive: true });
  await writeFile(join(home, 'projects', PROJECT, `${SESSION}.jsonl`), `${LINES.join('\n')}\n`);
  return home;
}

describe('one-hour cache writes are priced at their own rate', () => {
  let home: string;
  let dir: string;
  let store: OxStore;
  let prices: PriceTable;
  let prepared: SessionUsage[];
  before(async () => {
    home = await writeSession();
    dir = join(home, 'store');
    await ingest([join(home, 'projects')], { storeDir: dir, soul: 'local' });
    store = await openSessionGraphs(dir);
    prices = await loadPrices();
    prepared = (await readPreparedUsage(dir, (await readManifest(dir))!))!;
  });
  after(() => removeDir(home));

  test('the graph states the one-hour part where the record splits its writes, and only there', () => {
    const rows = select(
      store,
      `PREFIX weave: <https://repolex.ai/ontology/weave#>
       SELECT ?id ?all ?hour WHERE { GRAPH ?g { ?turn weave:messageId ?id ; weave:hasUsage ?u . ?u weave:cacheCreationInputTokens ?all
         OPTIONAL { ?u weave:cacheCreation1hInputTokens ?hour } } } ORDER BY ?id ?hour`,
    );
    assert.deepEqual(
      [...new Set(rows.map((r) => `${r.id} ${r.all} ${r.hour ?? '-'}`))],
      ['msg_c1 30000 20000', 'msg_c2 4000 4000', 'msg_c3 8000 -', 'msg_c4 100 500'],
    );
  });

  test('daily, by the query over the graphs and from the prepared rows', () => {
    assert.ok(prepared, 'the session has its prepared rows');
    assert.deepEqual(JSON.parse(JSON.stringify(buildReport(store, 'daily', prices).report)), DAILY);
    assert.deepEqual(JSON.parse(JSON.stringify(preparedReport(prepared, 'daily', prices).report)), DAILY);
  });

  test('session and blocks: the same cost, each call priced by its writes', () => {
    const now = new Date('2027-01-01T00:00:00Z');
    for (const kind of ['session', 'blocks'] as ReportKind[]) {
      const byQuery = buildReport(store, kind, prices, { now }).report;
      const byRows = preparedReport(prepared, kind, prices, { now }).report;
      assert.deepEqual(JSON.parse(JSON.stringify(byRows)), JSON.parse(JSON.stringify(byQuery)), kind);
      const costs = (r: UsageReport) =>
        'blocks' in r ? r.blocks.filter((b) => !b.isGap).map((b) => b.costUSD) : 'sessions' in r ? r.sessions.map((s) => s.totalCost) : [];
      // Blocks: the 20th's two calls (0.2975 + 0.0345) and the 21st's (0.01045 + 0.002).
      assert.deepEqual(costs(byQuery), kind === 'blocks' ? [0.332, 0.01065] : [0.34265], kind);
    }
  });

  test('weave usage --json says the true cost', async () => {
    const { stdout } = await promisify(execFile)(join(REPO, 'bin', 'weave'), ['usage', '--json', '--store', dir]);
    assert.deepEqual(JSON.parse(stdout), DAILY);
  });
});

describe('one-hour cache writes over an external store (Virtuoso): the same usage query, the same cost', {
  skip: virtuosoMissing(),
}, () => {
  let virtuoso: Virtuoso;
  let home: string;
  before(async () => {
    virtuoso = await startVirtuoso();
    home = await writeSession();
  });
  after(async () => {
    await virtuoso?.stop();
    if (home) await removeDir(home);
  });

  test('daily, by the usage SPARQL run in Virtuoso', async () => {
    const dir = remoteStoreDir(virtuoso.endpoint, join(home, 'store'));
    await ingest([join(home, 'projects')], { storeDir: dir, soul: 'local' });
    const { report } = await graphsReport(dir, 'daily', await loadPrices());
    assert.deepEqual(JSON.parse(JSON.stringify(report)), DAILY);
  });
});
