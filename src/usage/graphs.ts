import type oxigraph from 'oxigraph';
import { openSessionGraphs } from '../cli/open.ts';
import { runQuery } from '../query/run.ts';
import { openQueries, selectRows } from '../store/queries.ts';
import { readRemoteConfig } from '../store/remote/config.ts';
import type { JsonResults } from '../query/table.ts';
import type { PriceTable } from './prices.ts';
import {
  reportFromRows,
  reportQuery,
  type ReportExtras,
  type ReportKind,
  type ReportOptions,
  type Row,
  type UsageReport,
} from './report.ts';

/**
 * A report by SPARQL over session graphs loaded in this thread: what answers a store whose
 * sessions lack prepared rows (prepared.ts), and what the prepared rows are proven against.
 */

function select(store: oxigraph.Store, query: string): Row[] {
  const json = JSON.parse(runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string) as JsonResults;
  return (json.results?.bindings ?? []).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v.value)])));
}

export function buildReport(
  store: oxigraph.Store,
  kind: ReportKind,
  prices: PriceTable,
  options: ReportOptions = {},
): { report: UsageReport; extras: ReportExtras } {
  return reportFromRows(kind, select(store, reportQuery(kind, prices, options)), prices, options);
}

/**
 * A report from the session graphs of the store in `dir`, loaded into a store of its own; for an
 * external store, by the same query there (it holds every machine's sessions, this directory only
 * this machine's).
 */
export async function graphsReport(dir: string, kind: ReportKind, prices: PriceTable, options: ReportOptions = {}) {
  if (await readRemoteConfig(dir))
    return reportFromRows(kind, await selectRows(await openQueries(dir), reportQuery(kind, prices, options)), prices, options);
  return buildReport(await openSessionGraphs(dir), kind, prices, options);
}
