import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { openSessionGraphs } from '../../src/cli/open.ts';
import { render } from '../../src/client/usage.ts';
import type { OxStore } from '../../src/store/store.ts';
import type { Block } from '../../src/usage/blocks.ts';
import { loadPrices, type PriceTable } from '../../src/usage/prices.ts';
import { buildReport } from '../../src/usage/graphs.ts';
import type { ReportOptions, UsageReport } from '../../src/usage/report.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * `weave usage` on three fixture projects, every figure worked out by hand from the JSONL.
 *
 * Calls (message.id; the last fragment's usage in:out:cacheWrite:cacheRead; day, model):
 *   -home-ada-weave-demo, session 1111…, 2026-11-02
 *     msg_0001  100:42:10:2000  opus-4-7    (three fragments; the first says 5 output tokens)
 *     msg_0002  200:20:0:2100   opus-4-7
 *     msg_0003  300:30:0:2200   opus-4-7
 *     msg_0004  400:60:0:2300   opus-4-7    (two fragments; the first says 1)
 *     msg_0010  50:10           haiku-4-5   (sub-agent)
 *     msg_0011  60:5            haiku-4-5   (sub-agent)
 *     msg_0020  70:8            haiku-4-5   (workflow agent)
 *   -home-ada-weave-demo, session 2222…, 2025-10-01 (three lines broken on purpose)
 *     msg_0030  10:2, msg_0031  20:9          sonnet-4-5
 *   -home-dev-api, session 2000…0001, 2026-05-05, sonnet-4-5-20250929 (priced as sonnet-4-5)
 *     msg_api_01  100:180:0:5000 (three fragments; the first says 1), msg_api_02  120:60:0:5300,
 *     msg_api_03  130:25:0:5400; and one <synthetic> response, which is no model output
 *   -home-grace-weave-server: session 3333…, 2025-11-02, opus-4-1: msg_s1 12:20, msg_s2 40:9;
 *     session 4444…, 2025-11-03, opus-4-1: msg_t1 8:3
 *
 * Prices, USD per million tokens (in/out/cache write/cache read): opus-4-7 5/25/6.25/0.5,
 * haiku-4-5 1/5/1.25/0.1, sonnet-4-5 3/15/3.75/0.3, opus-4-1 15/75/18.75/1.5.
 */

const PROJECTS = ['spine/-home-ada-weave-demo', 'model/split-call/-home-dev-api', 'server/-home-grace-weave-server'].map((p) =>
  join(FIXTURES, p),
);
const WEAVE = join(REPO, 'bin', 'weave');

// Per model and day: tokens and cost worked out from the list above.
const OPUS47 = {
  modelName: 'claude-opus-4-7',
  inputTokens: 1000,
  outputTokens: 152,
  cacheCreationTokens: 10,
  cacheReadTokens: 8600,
  cost: 0.0131625,
}; // 5000 + 3800 + 62.5 + 4300 µ$
const HAIKU = {
  modelName: 'claude-haiku-4-5',
  inputTokens: 180,
  outputTokens: 23,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
  cost: 0.000295,
}; // 180 + 115
const SONNET = {
  modelName: 'claude-sonnet-4-5',
  inputTokens: 30,
  outputTokens: 11,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
  cost: 0.000255,
}; // 90 + 165
const SONNET_API = {
  modelName: 'claude-sonnet-4-5-20250929',
  inputTokens: 350,
  outputTokens: 265,
  cacheCreationTokens: 0,
  cacheReadTokens: 15700,
  cost: 0.009735,
}; // 1050 + 3975 + 4710
const OPUS41_S = {
  modelName: 'claude-opus-4-1',
  inputTokens: 52,
  outputTokens: 29,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
  cost: 0.002955,
}; // 780 + 2175
const OPUS41_T = {
  modelName: 'claude-opus-4-1',
  inputTokens: 8,
  outputTokens: 3,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
  cost: 0.000345,
}; // 120 + 225

type Breakdown = typeof OPUS47;
function entry(breakdowns: Breakdown[]) {
  const sum = (f: (b: Breakdown) => number) => breakdowns.reduce((n, b) => n + f(b), 0);
  const [i, o, w, r] = [
    sum((b) => b.inputTokens),
    sum((b) => b.outputTokens),
    sum((b) => b.cacheCreationTokens),
    sum((b) => b.cacheReadTokens),
  ];
  return {
    inputTokens: i,
    outputTokens: o,
    cacheCreationTokens: w,
    cacheReadTokens: r,
    totalTokens: i + o + w + r,
    totalCost: Math.round(sum((b) => b.cost) * 1e8) / 1e8,
    modelsUsed: breakdowns.map((b) => b.modelName).sort(),
    modelBreakdowns: breakdowns,
  };
}
const merged = (a: Breakdown, b: Breakdown): Breakdown => ({
  modelName: a.modelName,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cost: Math.round((a.cost + b.cost) * 1e8) / 1e8,
});

// 1620 input, 483 output (the first fragments would say 483 − 37 − 59 − 179 = 208), 10, 24300.
const TOTALS = {
  inputTokens: 1620,
  outputTokens: 483,
  cacheCreationTokens: 10,
  cacheReadTokens: 24300,
  totalCost: 0.0267475,
  totalTokens: 26413,
};

describe('weave usage on the fixtures, by hand', () => {
  let dir: string;
  let store: OxStore;
  let prices: PriceTable;
  const report = (kind: Parameters<typeof buildReport>[1], options: ReportOptions = {}): UsageReport =>
    buildReport(store, kind, prices, options).report;

  before(async () => {
    dir = await tempDir();
    await ingest(PROJECTS, { storeDir: dir, soul: 'local' });
    store = await openSessionGraphs(dir);
    prices = await loadPrices();
  });
  after(() => removeDir(dir));

  test('daily: each call once, its last fragment, priced per model; oldest day first', () => {
    assert.deepEqual(report('daily'), {
      daily: [
        { date: '2025-10-01', ...entry([SONNET]) },
        { date: '2025-11-02', ...entry([OPUS41_S]) },
        { date: '2025-11-03', ...entry([OPUS41_T]) },
        { date: '2026-05-05', ...entry([SONNET_API]) },
        { date: '2026-11-02', ...entry([OPUS47, HAIKU]) },
      ],
      totals: TOTALS,
    });
  });

  test('weekly (from Sunday, or another day), monthly, and newest first', () => {
    assert.deepEqual(report('weekly'), {
      weekly: [
        { week: '2025-09-28', ...entry([SONNET]) },
        { week: '2025-11-02', ...entry([merged(OPUS41_S, OPUS41_T)]) }, // Sunday the 2nd and Monday the 3rd
        { week: '2026-05-03', ...entry([SONNET_API]) },
        { week: '2026-11-01', ...entry([OPUS47, HAIKU]) },
      ],
      totals: TOTALS,
    });
    const mondays = report('weekly', { startOfWeek: 1 }) as { weekly: { week: string }[] };
    assert.deepEqual(
      mondays.weekly.map((w) => w.week),
      ['2025-09-29', '2025-10-27', '2025-11-03', '2026-05-04', '2026-11-02'],
    );
    assert.deepEqual(report('monthly', { order: 'desc' }), {
      monthly: [
        { month: '2026-11', ...entry([OPUS47, HAIKU]) },
        { month: '2026-05', ...entry([SONNET_API]) },
        { month: '2025-11', ...entry([merged(OPUS41_S, OPUS41_T)]) },
        { month: '2025-10', ...entry([SONNET]) },
      ],
      totals: TOTALS,
    });
  });

  test('session: id, project folder, last day, newest first (as ccusage); titles beside', () => {
    const { report: r, extras } = buildReport(store, 'session', prices);
    const session = (sessionId: string, lastActivity: string, projectPath: string, breakdowns: Breakdown[]) => {
      const { totalTokens, totalCost, modelsUsed, modelBreakdowns, ...tokens } = entry(breakdowns);
      return { sessionId, ...tokens, totalTokens, totalCost, lastActivity, modelsUsed, modelBreakdowns, projectPath };
    };
    assert.deepEqual(r, {
      sessions: [
        session('11111111-1111-4111-8111-111111111111', '2026-11-02', '-home-ada-weave-demo', [OPUS47, HAIKU]),
        session('20000000-0000-4000-8000-000000000001', '2026-05-05', '-home-dev-api', [SONNET_API]),
        session('44444444-4444-4444-8444-444444444444', '2025-11-03', '-home-grace-weave-server', [OPUS41_T]),
        session('33333333-3333-4333-8333-333333333333', '2025-11-02', '-home-grace-weave-server', [OPUS41_S]),
        session('22222222-2222-4222-8222-222222222222', '2025-10-01', '-home-ada-weave-demo', [SONNET]),
      ],
      totals: TOTALS,
    });
    assert.equal(extras.titles.get('22222222-2222-4222-8222-222222222222'), 'Legacy demo');
  });

  test('blocks: five hours from the hour of a first call, gaps between, ccusage fields', () => {
    const { blocks } = report('blocks', { now: new Date('2027-01-01T00:00:00Z') }) as { blocks: Block[] };
    const brief = blocks.map(
      (b) => `${b.id} ${b.endTime} ${b.actualEndTime} ${b.entries} ${JSON.stringify(b.tokenCounts)} ${b.costUSD} ${b.models.join(',')}`,
    );
    const counts = (i: number, o: number, w: number, r: number) =>
      JSON.stringify({ inputTokens: i, outputTokens: o, cacheCreationInputTokens: w, cacheReadInputTokens: r });
    assert.deepEqual(brief, [
      `2025-10-01T10:00:00.000Z 2025-10-01T15:00:00.000Z 2025-10-01T10:00:03.000Z 2 ${counts(30, 11, 0, 0)} 0.000255 claude-sonnet-4-5`,
      `gap-2025-10-01T15:00:03.000Z 2025-11-02T09:00:02.000Z null 0 ${counts(0, 0, 0, 0)} 0 `,
      `2025-11-02T09:00:00.000Z 2025-11-02T14:00:00.000Z 2025-11-02T09:00:05.000Z 2 ${counts(52, 29, 0, 0)} 0.002955 claude-opus-4-1`,
      `gap-2025-11-02T14:00:05.000Z 2025-11-03T10:00:01.000Z null 0 ${counts(0, 0, 0, 0)} 0 `,
      `2025-11-03T10:00:00.000Z 2025-11-03T15:00:00.000Z 2025-11-03T10:00:01.000Z 1 ${counts(8, 3, 0, 0)} 0.000345 claude-opus-4-1`,
      `gap-2025-11-03T15:00:01.000Z 2026-05-05T10:00:04.000Z null 0 ${counts(0, 0, 0, 0)} 0 `,
      `2026-05-05T10:00:00.000Z 2026-05-05T15:00:00.000Z 2026-05-05T10:00:09.000Z 3 ${counts(350, 265, 0, 15700)} 0.009735 claude-sonnet-4-5-20250929`,
      `gap-2026-05-05T15:00:09.000Z 2026-11-02T09:00:04.000Z null 0 ${counts(0, 0, 0, 0)} 0 `,
      `2026-11-02T09:00:00.000Z 2026-11-02T14:00:00.000Z 2026-11-02T09:00:31.000Z 7 ${counts(1180, 175, 10, 8600)} 0.0134575 claude-opus-4-7,claude-haiku-4-5`,
    ]);
    assert.deepEqual(Object.keys(blocks[0]), [
      'id',
      'startTime',
      'endTime',
      'actualEndTime',
      'isActive',
      'isGap',
      'entries',
      'tokenCounts',
      'totalTokens',
      'costUSD',
      'models',
      'burnRate',
      'projection',
    ]);
    assert.equal(blocks[8].totalTokens, 1180 + 175 + 10 + 8600);
    assert.ok(blocks.every((b) => b.isActive === false && b.burnRate === null && b.projection === null));
    // Seen from inside the last block, it is active: 31 s of calls, 9,965 tokens, 4h59m left.
    const live = report('blocks', { now: new Date('2026-11-02T09:01:00Z') }) as { blocks: Block[] };
    const last = live.blocks[live.blocks.length - 1];
    assert.equal(last.isActive, true);
    assert.deepEqual(last.projection, {
      totalTokens: Math.round(9965 + (9965 / (27 / 60)) * 299),
      totalCost: Math.round((0.0134575 + (0.0134575 / (27 / 60)) * 299) * 100) / 100,
      remainingMinutes: 299,
    });
  });

  test('blocks at 80 columns keep the duration, which tells a gap from a block', () => {
    const lines = render(report('blocks', { now: new Date('2027-01-01T00:00:00Z') }), new Map(), { breakdown: false, width: 80 }).split(
      '\n',
    );
    // The widest duration is the gap of 2025-11-03 15:00:01 to 2026-05-05 10:00:04: 182d 19h 00m.
    // Left out before the models were, Total Tokens fits again once they are (62 + 14 columns).
    assert.deepEqual(lines.slice(0, 4), [
      'Block Start (UTC)  Duration          Input  Output  Total Tokens  Cost (USD)',
      '-----------------  ----------------  -----  ------  ------------  ----------',
      '2025-10-01 10:00   0h 00m               30      11            41       $0.00',
      '2025-10-01 15:00   gap 31d 18h 00m',
    ]);
    // 41 + 81 + 11 + (350 + 265 + 15,700) + 9,965 tokens.
    assert.equal(lines[12], 'Total              5 blocks          1,620     483        26,413       $0.03');
    assert.equal(lines[14], '(3 columns hidden to fit 80 columns; --wide shows all)');
  });

  test('--since/--until, --model and --project narrow the calls before they are summed', () => {
    const days = (r: UsageReport) =>
      'daily' in r ? r.daily.map((d) => `${d.date} ${d.inputTokens}:${d.outputTokens} ${d.totalCost}`) : [];
    assert.deepEqual(days(report('daily', { since: '2025-11-02', until: '2025-11-03' })), [
      '2025-11-02 52:29 0.002955',
      '2025-11-03 8:3 0.000345',
    ]);
    assert.deepEqual(days(report('daily', { model: 'haiku' })), ['2026-11-02 180:23 0.000295']);
    assert.deepEqual(days(report('daily', { project: 'dev-api' })), ['2026-05-05 350:265 0.009735']);
    assert.deepEqual(days(report('daily', { project: 'weave-demo', model: 'sonnet' })), ['2025-10-01 30:11 0.000255']);
    assert.deepEqual(report('daily', { since: '2030-01-01' }), {
      daily: [],
      totals: { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, totalCost: 0, totalTokens: 0 },
    });
  });

  test('the CLI: ccusage JSON field for field; a table that fits 80 columns, and --wide', async () => {
    const run = promisify(execFile);
    const { stdout } = await run(WEAVE, ['usage', 'daily', '--json', '--store', dir]);
    const json = JSON.parse(stdout);
    assert.deepEqual(Object.keys(json), ['daily', 'totals']);
    assert.deepEqual(Object.keys(json.daily[0]), [
      'date',
      'inputTokens',
      'outputTokens',
      'cacheCreationTokens',
      'cacheReadTokens',
      'totalTokens',
      'totalCost',
      'modelsUsed',
      'modelBreakdowns',
    ]);
    assert.deepEqual(Object.keys(json.daily[0].modelBreakdowns[0]), [
      'modelName',
      'inputTokens',
      'outputTokens',
      'cacheCreationTokens',
      'cacheReadTokens',
      'cost',
    ]);
    assert.deepEqual(Object.keys(json.totals), [
      'inputTokens',
      'outputTokens',
      'cacheCreationTokens',
      'cacheReadTokens',
      'totalCost',
      'totalTokens',
    ]);
    assert.deepEqual(json.totals, TOTALS);
    const sessions = JSON.parse((await run(WEAVE, ['usage', 'session', '--json', '--store', dir])).stdout);
    assert.deepEqual(Object.keys(sessions.sessions[0]), [
      'sessionId',
      'inputTokens',
      'outputTokens',
      'cacheCreationTokens',
      'cacheReadTokens',
      'totalTokens',
      'totalCost',
      'lastActivity',
      'modelsUsed',
      'modelBreakdowns',
      'projectPath',
    ]);

    const narrow = (await run(WEAVE, ['usage', 'session', '--store', dir], { env: { ...process.env, COLUMNS: '80' } })).stdout.split('\n');
    assert.ok(
      narrow.every((l) => l.length <= 80),
      narrow.find((l) => l.length > 80),
    );
    assert.match(narrow[0], /^Session +Title +.*Input +Output +Cost \(USD\)$/);
    assert.match(narrow.find((l) => l.startsWith('2222'))!, / Legacy demo +.* 30 +11 +\$0\.00$/);
    assert.match(narrow.find((l) => l.startsWith('Total'))!, / 1,620 +483 +\$0\.03$/);
    const wide = (
      await run(WEAVE, ['usage', 'session', '--wide', '--store', dir], { env: { ...process.env, COLUMNS: '80' } })
    ).stdout.split('\n');
    assert.match(
      wide[0],
      /^Session +Title +Project +Models +Input +Output +Cache Create +Cache Read +Total Tokens +Cost \(USD\) +Last Activity$/,
    );
    assert.ok(wide.some((l) => l.startsWith('11111111-1111-4111-8111-111111111111  ')));
    assert.match(wide.find((l) => l.startsWith('Total'))!, / 1,620 +483 +10 +24,300 +26,413 +\$0\.03$/);
  });
});
