import { preparedReport, preparedUsage } from '../../../usage/prepared.ts';
import { loadPrices } from '../../../usage/prices.ts';
import { GROUPINGS, groupedReport, type Grouping } from '../../../usage/groups.ts';
import { reportFromRows, reportQuery } from '../../../usage/report.ts';
import { ReportRequestError, reportRequest, type ReportWords } from '../../../usage/request.ts';
import { HttpError } from '../../errors.ts';
import { routePlugin } from '../context.ts';
import { negotiate } from '../negotiate.ts';
import { selectRows } from '../select.ts';
import { vary } from '../vary.ts';

/**
 * /usage?report=daily|weekly|monthly|session|blocks and the options of `weave usage` by their
 * names (since, until, model, project, order, start-of-week, session-length): the report in
 * ccusage's JSON shape (with by=person|project: one row per person or project, as `weave usage --by`), with the session titles and the models the price table lacks. The same
 * rows or the same query and fold as the command runs on a store it opens (the query by the workers).
 * A browser asking for the daily report as it stands, with no options, is sent to the overview's
 * usage part, which draws those very figures; a report it cannot show stays JSON.
 */
const WORDS: (keyof ReportWords)[] = ['report', 'since', 'until', 'model', 'project', 'order', 'start-of-week', 'session-length'];

export default routePlugin('weave-routes-usage', async (app) => {
  const ctx = app.weave;
  app.get('/usage', async (request, reply) => {
    vary(reply, 'Accept');
    if (overviewShows(request.searchParams) && negotiate(request.headers.accept, ['application/json', 'text/html']) === 'text/html')
      return reply.code(303).header('location', '/overview#usage').send();
    const words: ReportWords = {};
    for (const name of WORDS) {
      const value = request.searchParams.get(name);
      if (value !== null) words[name] = value;
    }
    let asked: ReturnType<typeof reportRequest>;
    try {
      asked = reportRequest(words);
    } catch (e) {
      if (e instanceof ReportRequestError) throw new HttpError(400, e.message.replace(/--/g, ''));
      throw e;
    }
    const prices = await loadPrices();
    const by = request.searchParams.get('by');
    if (by !== null) {
      // One row per person or project: the session report and its owners, asked of the store (every soul's sessions).
      if (!GROUPINGS.includes(by as Grouping)) throw new HttpError(400, `by must be ${GROUPINGS.join(' or ')}, not "${by}"`);
      const { report, extras } = await groupedReport((query) => selectRows(ctx, query, request), by as Grouping, prices, asked.options);
      return reply.header('cache-control', 'no-store').send({ report, titles: {}, unpriced: extras.unpriced });
    }
    // The prepared rows where every session has them; else the query, on the workers' copy.
    const prepared = await preparedUsage(ctx.config.storeDir);
    const { report, extras } = prepared
      ? preparedReport(prepared, asked.kind, prices, asked.options)
      : reportFromRows(asked.kind, await selectRows(ctx, reportQuery(asked.kind, prices, asked.options), request), prices, asked.options);
    return reply.header('cache-control', 'no-store').send({ report, titles: Object.fromEntries(extras.titles), unpriced: extras.unpriced });
  });
});

/** Whether the overview's usage part shows the report asked for: the daily one, of every day, every model and project. */
function overviewShows(params: URLSearchParams): boolean {
  return [...params.keys()].every((name) => name === 'report') && params.getAll('report').every((kind) => kind === 'daily');
}
