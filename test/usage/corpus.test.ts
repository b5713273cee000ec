import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { discoverSessions } from '../../src/acquire/discover.ts';
import { transcriptsOf, type FoundSession as SessionSource } from '../../src/dialect/dialect.ts';
import { openSessionGraphs } from '../../src/cli/open.ts';
import type { OxStore } from '../../src/store/store.ts';
import { loadPrices, priceOf, type PriceTable } from '../../src/usage/prices.ts';
import { buildReport } from '../../src/usage/graphs.ts';
import { type CorpusStore, corpusStore, releaseCorpusStore } from '../corpus-store.ts';
import { CORPUS, HAS_CORPUS, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * `weave usage` over the real corpus equals, figure by figure, a plain JSON scan that keeps the
 * last fragment of each call; and the scan says how far first fragments (ccusage's way) fall short.
 */

const CCUSAGE = join(REPO, 'node_modules', '.bin', 'ccusage');
const exec = promisify(execFile);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Call {
  key: string;
  session: string;
  model: string;
  time: string;
  input: number;
  output: number;
  cacheCreation: number;
  /** cache_creation.ephemeral_1h_input_tokens: the part of cacheCreation billed at the one-hour rate. */
  cacheCreation1h: number;
  cacheRead: number;
  firstOutput: number;
}

/**
 * One session's calls by plain JSON: records in file order, a uuid seen before in the session
 * skipped (the first copy stands), the first and the last assistant record of each message.id;
 * the call is keyed by message.id and the last record's requestId; <synthetic> is no model output.
 */
function scanSession(session: SessionSource): Call[] {
  const seen = new Set<string>();
  const first = new Map<string, Json>();
  const last = new Map<string, Json>();
  for (const source of transcriptsOf(session))
    for (const line of readFileSync(source.path, 'utf8').split('\n')) {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isObject(record) || typeof record.type !== 'string') continue;
      if (typeof record.uuid === 'string' && record.uuid) {
        if (seen.has(record.uuid)) continue;
        seen.add(record.uuid);
      }
      if (record.type !== 'assistant' || !isObject(record.message)) continue;
      const id = typeof record.message.id === 'string' && record.message.id ? record.message.id : `uuid:${record.uuid}`;
      if (!first.has(id)) first.set(id, record);
      last.set(id, record);
    }
  const calls: Call[] = [];
  for (const [id, record] of last) {
    const message = record.message as Json;
    const usage = message.usage;
    if (message.model === '<synthetic>' || typeof message.model !== 'string' || !message.model) continue;
    if (typeof record.timestamp !== 'string' || !isObject(usage)) continue;
    const n = (u: unknown, key: string) => (isObject(u) && typeof u[key] === 'number' ? Math.trunc(u[key] as number) : 0);
    calls.push({
      key: `${id} ${typeof record.requestId === 'string' ? record.requestId : ''}`,
      session: session.sessionId,
      model: message.model,
      time: new Date(record.timestamp).toISOString(),
      input: n(usage, 'input_tokens'),
      output: n(usage, 'output_tokens'),
      cacheCreation: n(usage, 'cache_creation_input_tokens'),
      cacheCreation1h: n(usage.cache_creation, 'ephemeral_1h_input_tokens'),
      cacheRead: n(usage, 'cache_read_input_tokens'),
      firstOutput: n((first.get(id)!.message as Json).usage, 'output_tokens'),
    });
  }
  return calls;
}

/** A call's USD by the price table, priced here: its one-hour cache writes at their rate, the rest of its writes at the 5-minute rate. */
function pricedBy(prices: PriceTable): (c: Call) => number {
  return (c) => {
    const p = priceOf(prices, c.model);
    if (!p) return 0;
    const fiveMinute = c.cacheCreation - c.cacheCreation1h;
    return (
      (c.input * p.input +
        c.output * p.output +
        fiveMinute * p.cacheWrite +
        c.cacheCreation1h * p.cacheWrite1h +
        c.cacheRead * p.cacheRead) /
      1e6
    );
  };
}

/** Each call once across sessions: in the first session by id, each figure the largest copy's. */
function onePerCall(calls: Call[]): Call[] {
  const byKey = new Map<string, Call>();
  for (const c of calls) {
    const had = byKey.get(c.key);
    if (!had) byKey.set(c.key, { ...c });
    else {
      had.session = c.session < had.session ? c.session : had.session;
      had.model = c.model > had.model ? c.model : had.model;
      had.time = c.time > had.time ? c.time : had.time;
      for (const k of ['input', 'output', 'cacheCreation', 'cacheCreation1h', 'cacheRead', 'firstOutput'] as const)
        had[k] = Math.max(had[k], c[k]);
    }
  }
  return [...byKey.values()];
}

describe('weave usage on the corpus against a plain scan', { skip: HAS_CORPUS ? false : 'no corpus at ../shared/corpus' }, () => {
  let corpus: CorpusStore | undefined;
  let dir: string;
  let store: OxStore;
  let prices: PriceTable;
  let calls: Call[];
  before(async () => {
    corpus = await corpusStore();
    dir = corpus.dir;
    store = await openSessionGraphs(dir);
    prices = await loadPrices();
    calls = onePerCall((await discoverSessions([CORPUS])).flatMap(scanSession));
  });
  after(() => releaseCorpusStore(corpus));

  test('daily --json: every day, model, token count and cost equal the scan', (t) => {
    const priced = pricedBy(prices);
    const expected = new Map<
      string,
      { inputTokens: number; outputTokens: number; cacheCreationTokens: number; cacheReadTokens: number; cost: number }
    >();
    for (const c of calls) {
      const key = `${c.time.slice(0, 10)} ${c.model}`;
      const e = expected.get(key) ?? { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, cost: 0 };
      e.inputTokens += c.input;
      e.outputTokens += c.output;
      e.cacheCreationTokens += c.cacheCreation;
      e.cacheReadTokens += c.cacheRead;
      e.cost += Math.round(priced(c) * 1e8);
      expected.set(key, e);
    }
    const { report } = buildReport(store, 'daily', prices);
    assert.ok('daily' in report);
    const actual = new Map(
      report.daily.flatMap((d) =>
        d.modelBreakdowns.map(({ modelName, ...figures }): [string, typeof figures] => [`${d.date} ${modelName}`, figures]),
      ),
    );
    assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
    for (const [key, e] of expected) assert.deepEqual(actual.get(key), { ...e, cost: e.cost / 1e8 }, key);
    assert.ok(actual.size > 50, `only ${actual.size} day × model rows`);

    const output = calls.reduce((n, c) => n + c.output, 0);
    const firstOutput = calls.reduce((n, c) => n + c.firstOutput, 0);
    assert.equal(report.totals.outputTokens, output);
    assert.equal(
      report.totals.inputTokens,
      calls.reduce((n, c) => n + c.input, 0),
    );
    assert.equal(report.totals.totalCost, report.daily.reduce((n, d) => n + Math.round(d.totalCost * 1e8), 0) / 1e8);
    // First fragments carry the output streamed so far, usually a handful of tokens.
    assert.ok(firstOutput < output / 2, `first fragments ${firstOutput}, last ${output}`);
    t.diagnostic(
      `${calls.length} calls; output tokens: ${output} from last fragments, ${firstOutput} from first; ${calls.reduce((n, c) => n + c.cacheCreation1h, 0)} one-hour cache-write tokens; cost $${report.totals.totalCost.toFixed(2)}`,
    );
  });

  test('session --json: every session equals the scan', () => {
    const expected = new Map<string, string>();
    const add = (session: string, c: Call) => {
      const [i, o, w, r] = (expected.get(session) ?? '0 0 0 0').split(' ').map(Number);
      expected.set(session, `${i + c.input} ${o + c.output} ${w + c.cacheCreation} ${r + c.cacheRead}`);
    };
    for (const c of calls) add(c.session, c);
    const { report } = buildReport(store, 'session', prices);
    assert.ok('sessions' in report);
    const actual = new Map(
      report.sessions.map((s) => [s.sessionId, `${s.inputTokens} ${s.outputTokens} ${s.cacheCreationTokens} ${s.cacheReadTokens}`]),
    );
    assert.deepEqual(actual, expected);
    assert.ok(report.sessions.every((s) => s.projectPath && s.projectPath !== 'Unknown Project'));
  });

  test("every report has ccusage 18's JSON shape, key for key, as ccusage itself writes it on the corpus", {
    skip: existsSync(CCUSAGE) ? false : 'no ccusage in node_modules',
  }, async (t) => {
    // ccusage reads <CLAUDE_CONFIG_DIR>/projects: the corpus, by a link. Offline: its bundled prices.
    const config = await tempDir();
    await mkdir(config, { recursive: true });
    await symlink(CORPUS, join(config, 'projects'));
    try {
      for (const [kind, list] of [
        ['daily', 'daily'],
        ['weekly', 'weekly'],
        ['monthly', 'monthly'],
        ['session', 'sessions'],
        ['blocks', 'blocks'],
      ] as const) {
        const { stdout } = await exec(CCUSAGE, [kind, '--json', '--offline', '--timezone', 'UTC'], {
          env: { ...process.env, CLAUDE_CONFIG_DIR: config },
          maxBuffer: 64e6,
        });
        const theirs = JSON.parse(stdout);
        const ours = buildReport(store, kind, prices).report as unknown as Record<string, unknown>;
        assert.deepEqual(shape(ours), shape(theirs), kind);
        assert.ok((theirs[list] as unknown[]).length > 0 && (ours[list] as unknown[]).length > 0, kind);
        if (kind === 'daily')
          t.diagnostic(
            `ccusage daily: output ${theirs.totals.outputTokens}, input ${theirs.totals.inputTokens}, cost $${theirs.totals.totalCost.toFixed(2)}`,
          );
      }
    } finally {
      await removeDir(config);
    }
  });
});

/** The keys of a JSON value, in order, down through objects and the first element of each array. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => [k, shape(v)]);
  return typeof value;
}
