import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSessionGraphs } from '../../src/cli/open.ts';
import { ingest } from '../../src/ingest.ts';
import { readManifest } from '../../src/store/manifest.ts';
import type { OxStore } from '../../src/store/store.ts';
import { buildReport } from '../../src/usage/graphs.ts';
import { preparedReport, readPreparedUsage } from '../../src/usage/prepared.ts';
import { loadPrices, type PriceTable } from '../../src/usage/prices.ts';
import type { ReportKind, ReportOptions, UsageReport } from '../../src/usage/report.ts';
import type { SessionUsage } from '../../src/usage/rows.ts';
import { removeDir, tempDir } from '../helpers.ts';

/**
 * `weave usage blocks --since/--until` choose blocks by the day they start, and a chosen block
 * keeps all its calls, as ccusage does. One session late at night, sonnet-4-5 (USD per million
 * tokens 3 in, 15 out, 0.3 cache read), each call in:out:cacheRead:
 *   msg_n1 2026-03-01 23:10  100:10:1000
 *   msg_n2 2026-03-01 23:50  200:20:2000
 *   msg_n3 2026-03-02 00:30  300:30:3000   (same block: 23:00 to 04:00)
 *   msg_n4 2026-03-02 10:00  400:40:4000   (after a gap from 05:30, a block of its own)
 * Block of 23:00: 600:60:6000, 1800 + 900 + 1800 µ$ = $0.0045; block of 10:00: 1200 + 600 + 1200 µ$ = $0.003.
 */

const SESSION = '5e551000-0000-4000-8000-000000000001';
const CALLS: [string, string, number][] = [
  ['msg_n1', '2026-03-01T23:10:00.000Z', 1],
  ['msg_n2', '2026-03-01T23:50:00.000Z', 2],
  ['msg_n3', '2026-03-02T00:30:00.000Z', 3],
  ['msg_n4', '2026-03-02T10:00:00.000Z', 4],
];

function transcript(): string {
  const base = { sessionId: SESSION, version: '2.0.10', cwd: '/home/ada/night', isSidechain: false, userType: 'external' };
  const lines: object[] = [
    {
      ...base,
      type: 'user',
      uuid: 'u0',
      parentUuid: null,
      timestamp: '2026-03-01T23:09:50.000Z',
      message: { role: 'user', content: 'go' },
    },
  ];
  let parent = 'u0';
  for (const [id, timestamp, n] of CALLS) {
    const uuid = `a${n}`;
    lines.push({
      ...base,
      type: 'assistant',
      uuid,
      parentUuid: parent,
      timestamp,
      requestId: `req_n${n}`,
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: `reply ${n}` }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 100 * n, output_tokens: 10 * n, cache_creation_input_tokens: 0, cache_read_input_tokens: 1000 * n },
      },
    });
    parent = uuid;
  }
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}

const NOW = new Date('2027-01-01T00:00:00Z');

/** A block as the assertions read it: start, end of its last call (or of the gap), calls, input, output, cache reads, cost. */
const brief = (report: UsageReport) =>
  'blocks' in report
    ? report.blocks.map((b) => [
        b.id,
        b.actualEndTime ?? b.endTime,
        b.entries,
        b.tokenCounts.inputTokens,
        b.tokenCounts.outputTokens,
        b.tokenCounts.cacheReadInputTokens,
        b.costUSD,
      ])
    : assert.fail('a blocks report');

const LATE = ['2026-03-01T23:00:00.000Z', '2026-03-02T00:30:00.000Z', 3, 600, 60, 6000, 0.0045];
const GAP = ['gap-2026-03-02T05:30:00.000Z', '2026-03-02T10:00:00.000Z', 0, 0, 0, 0, 0];
const MORNING = ['2026-03-02T10:00:00.000Z', '2026-03-02T10:00:00.000Z', 1, 400, 40, 4000, 0.003];

describe('weave usage blocks --since/--until: whole blocks, chosen by the day they start', () => {
  let dir: string;
  let store: OxStore;
  let prices: PriceTable;
  let prepared: SessionUsage[];
  before(async () => {
    dir = await tempDir();
    const project = join(dir, 'projects', '-home-ada-night');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, `${SESSION}.jsonl`), transcript());
    await ingest([project], { storeDir: join(dir, 'store'), soul: 'local' });
    store = await openSessionGraphs(join(dir, 'store'));
    prices = await loadPrices();
    prepared = (await readPreparedUsage(join(dir, 'store'), (await readManifest(join(dir, 'store')))!))!;
  });
  after(() => removeDir(dir));

  const both = (kind: ReportKind, options: ReportOptions) => {
    const o = { ...options, now: NOW };
    const graphs = buildReport(store, kind, prices, o).report;
    assert.deepEqual(preparedReport(prepared, kind, prices, o).report, graphs, 'the prepared rows answer as the graphs');
    return graphs;
  };

  test('unfiltered: the block of 23:00 holds the call after midnight', () => {
    assert.deepEqual(brief(both('blocks', {})), [LATE, GAP, MORNING]);
  });

  test('--until the day before midnight: the block of 23:00 whole, with its call of 00:30', () => {
    assert.deepEqual(brief(both('blocks', { until: '2026-03-01' })), [LATE]);
  });

  test('--since the day after midnight: no block made up at 00:00, the gap and the block of 10:00', () => {
    assert.deepEqual(brief(both('blocks', { since: '2026-03-02' })), [GAP, MORNING]);
    assert.deepEqual(brief(both('blocks', { since: '2026-03-02', until: '2026-03-02' })), [GAP, MORNING]);
  });

  test('daily still counts each call on its own day', () => {
    const report = both('daily', { since: '2026-03-02' });
    assert.ok('daily' in report);
    assert.deepEqual(
      report.daily.map((d) => [d.date, d.inputTokens, d.outputTokens, d.cacheReadTokens]),
      [['2026-03-02', 700, 70, 7000]],
    );
  });
});
