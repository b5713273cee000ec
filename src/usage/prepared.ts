import { readFile } from 'node:fs/promises';
import { exists } from '../acquire/files.ts';
import { join } from 'node:path';
import { staleness, stampOf } from '../derive/derivation.ts';
import { graphStamp } from '../derive/graph-input.ts';
import { REMOTE_FILE } from '../store/layout.ts';
import { readManifest, type Manifest } from '../store/manifest.ts';
import { usageRows, usageRowsOutput } from './derivation.ts';
import { cacheWrites, centsPerMillion, priceOf, type PriceTable } from './prices.ts';
import type { UsageFilter } from './query.ts';
import { callsFilter, reportFromRows, type ReportKind, type ReportOptions, type Row } from './report.ts';
import { type CallRow, compareText, compareTime, larger, later, smaller, type SessionFacts, type SessionUsage } from './rows.ts';

/**
 * `weave usage` from the prepared rows (derivation.ts): each session's calls read from its file,
 * merged across sessions by call and summed here, giving the very solutions the usage SPARQL
 * (query.ts) gives over the session graphs, which report.ts turns into a report. A call copied
 * into several sessions counts once: in the first of them by id, each figure its largest copy's.
 */

/**
 * The prepared rows of every session graph of the store, or undefined when one is missing or older
 * than its graph, or the store is an external one: it may hold sessions other machines wrote, of
 * which this directory has no rows, so the report is its SPARQL over the whole store there.
 */
export async function readPreparedUsage(dir: string, manifest: Manifest): Promise<SessionUsage[] | undefined> {
  if (await exists(join(dir, REMOTE_FILE))) return undefined;
  const files: string[] = [];
  for (const entry of Object.values(manifest.graphs)) {
    if (entry.sessionId === undefined || entry.reader) continue;
    const rows = manifest.files?.[usageRowsOutput(entry.sessionId).file];
    if (!rows || rows.builtWith !== stampOf(usageRows) || staleness(rows, usageRows, await graphStamp(dir, entry))) return undefined;
    files.push(rows.file);
  }
  try {
    return await Promise.all(files.map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as SessionUsage));
  } catch {
    return undefined; // a file gone or damaged since the manifest named it: the graphs still answer.
  }
}

/** The prepared rows of the store in `dir`, or undefined where it has none to read (a remote store, an older one). */
export async function preparedUsage(dir: string): Promise<SessionUsage[] | undefined> {
  // An external store has none (above): its manifest, large on a big store, is not read for nothing.
  if (await exists(join(dir, REMOTE_FILE))) return undefined;
  const manifest = await readManifest(dir).catch(() => undefined);
  return manifest && readPreparedUsage(dir, manifest);
}

/** A report from prepared rows: the same as `buildReport` over the session graphs. */
export function preparedReport(usage: SessionUsage[], kind: ReportKind, prices: PriceTable, options: ReportOptions = {}) {
  return reportFromRows(kind, preparedSolutions(usage, kind, prices, options), prices, options);
}

/** One API call across sessions, as the query's inner SELECT groups it: a session's row, and that session. */
type Call = Omit<CallRow, 'at'> & { session: string };

/** Each call once: copies merged by key, only copies in transcripts of a matching project when one is asked. */
function callsOf(usage: SessionUsage[], project: string | undefined): Call[] {
  const calls = new Map<string, Call>();
  for (const { places, calls: rows } of usage) {
    const kept = places.map((p) => project === undefined || !!p.project?.includes(project));
    for (const row of rows) {
      let session: string | undefined;
      for (const i of row.at) if (kept[i]) session = session === undefined ? places[i].session : smaller(session, places[i].session);
      if (session === undefined) continue;
      const had = calls.get(row.key);
      if (!had) {
        calls.set(row.key, {
          key: row.key,
          session,
          model: row.model,
          time: row.time,
          in: row.in,
          out: row.out,
          cw: row.cw,
          ch: row.ch,
          cr: row.cr,
        });
        continue;
      }
      had.session = smaller(had.session, session);
      had.model = larger(had.model, row.model);
      had.time = later(had.time, row.time);
      had.in = Math.max(had.in, row.in);
      had.out = Math.max(had.out, row.out);
      had.cw = Math.max(had.cw, row.cw);
      had.ch = Math.max(had.ch, row.ch);
      had.cr = Math.max(had.cr, row.cr);
    }
  }
  return [...calls.values()];
}

function kept(call: Call, filter: UsageFilter): boolean {
  const day = call.time.slice(0, 10);
  return (
    (!filter.since || day >= filter.since) &&
    (!filter.until || day <= filter.until) &&
    (!filter.model || call.model.includes(filter.model)) &&
    (!filter.session || call.session === filter.session)
  );
}

/**
 * A call's cost in whole 1e-8 USD (US cents per million tokens × tokens): integers, so sums are
 * exact, as the query's decimals are. Each model's price looked up once.
 */
function pricer(prices: PriceTable): (call: Call) => number {
  const cents = new Map<string, ReturnType<typeof centsPerMillion> | undefined>();
  return (call) => {
    if (!cents.has(call.model)) {
      const price = priceOf(prices, call.model);
      cents.set(call.model, price && centsPerMillion(price));
    }
    const c = cents.get(call.model);
    if (!c) return 0;
    const writes = cacheWrites(call.cw, call.ch);
    return (
      call.in * c.input + call.out * c.output + writes.fiveMinute * c.cacheWrite + writes.oneHour * c.cacheWrite1h + call.cr * c.cacheRead
    );
  };
}

/** A cost in 1e-8 USD as the query's decimal text. */
const usd = (units: number) => String(units / 1e8);

/** The solutions of `reportQuery(kind, prices, options)`, from the prepared rows. */
export function preparedSolutions(usage: SessionUsage[], kind: ReportKind, prices: PriceTable, options: ReportOptions = {}): Row[] {
  const filter = callsFilter(kind, options);
  const calls = callsOf(usage, options.project).filter((c) => kept(c, filter));
  const costUnits = pricer(prices);
  if (kind === 'blocks')
    return calls
      .sort((a, b) => compareTime(a.time, b.time) || compareText(a.key, b.key))
      .map((c) => ({
        key: c.key,
        session: c.session,
        model: c.model,
        time: c.time,
        in: String(c.in),
        out: String(c.out),
        cw: String(c.cw),
        cr: String(c.cr),
        cost: usd(costUnits(c)),
      }));
  const periodOf = (c: Call) => (kind === 'session' ? c.session : kind === 'monthly' ? c.time.slice(0, 7) : c.time.slice(0, 10));
  const groups = new Map<string, { period: string; model: string; calls: number; sums: number[]; cost: number; lastTime: string }>();
  for (const c of calls) {
    const period = periodOf(c);
    const id = `${period}\n${c.model}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { period, model: c.model, calls: 0, sums: [0, 0, 0, 0], cost: 0, lastTime: c.time }));
    g.calls++;
    g.sums[0] += c.in;
    g.sums[1] += c.out;
    g.sums[2] += c.cw;
    g.sums[3] += c.cr;
    g.cost += costUnits(c);
    g.lastTime = later(g.lastTime, c.time);
  }
  const facts = kind === 'session' ? sessionFacts(usage) : new Map<string, SessionFacts>();
  return [...groups.values()]
    .sort((a, b) => compareText(a.period, b.period) || compareText(a.model, b.model))
    .map((g) => ({
      period: g.period,
      ...(facts.has(g.period) ? facts.get(g.period) : {}),
      model: g.model,
      calls: String(g.calls),
      input: String(g.sums[0]),
      output: String(g.sums[1]),
      cacheCreation: String(g.sums[2]),
      cacheRead: String(g.sums[3]),
      cost: usd(g.cost),
      lastTime: g.lastTime,
    }));
}

/** Each session id's project (the smallest folder) and title (the largest), over every session graph. */
function sessionFacts(usage: SessionUsage[]): Map<string, SessionFacts> {
  const facts = new Map<string, SessionFacts>();
  for (const { sessions } of usage)
    for (const [id, f] of Object.entries(sessions)) {
      const had = facts.get(id);
      facts.set(id, had ? { project: smaller(had.project, f.project), title: larger(had.title, f.title) } : f);
    }
  return facts;
}
