import { openQueries, selectRows } from '../store/queries.ts';
import { groupedReport, type Grouping } from './groups.ts';
import type { PriceTable } from './prices.ts';
import type { ReportOptions } from './report.ts';

/**
 * `weave usage --by`, asked of the store itself (an external store: every soul's sessions, not
 * only this machine's prepared rows).
 */
export async function groupReport(dir: string, by: Grouping, prices: PriceTable, options: ReportOptions) {
  const queries = await openQueries(dir);
  return groupedReport((query) => selectRows(queries, query), by, prices, options);
}
