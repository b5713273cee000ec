import { openQueries, selectRows } from '../store/queries.ts';
import { groupSessions, OWNERS_QUERY, ownersOf, type Grouping } from './groups.ts';
import type { PriceTable } from './prices.ts';
import { reportFromRows, reportQuery, type ReportOptions, type SessionEntry, type Totals } from './report.ts';

/**
 * `weave usage --by`: the session report and each session's owner, both asked of the store (an
 * external store: every soul's sessions, not only this machine's prepared rows), folded.
 */
export async function groupReport(dir: string, by: Grouping, prices: PriceTable, options: ReportOptions) {
  const queries = await openQueries(dir);
  const rows = await selectRows(queries, reportQuery('session', prices, options));
  const { report, extras } = reportFromRows('session', rows, prices, options);
  const { sessions, totals } = report as { sessions: SessionEntry[]; totals: Totals };
  const owners = by === 'person' ? ownersOf(await selectRows(queries, OWNERS_QUERY)) : new Map();
  return { report: groupSessions(sessions, totals, by, owners), extras };
}
