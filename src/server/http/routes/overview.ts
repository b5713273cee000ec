import { COMPACTIONS, FILES, MCP_SERVERS, SESSIONS, TOOLS } from '../../../overview/queries.ts';
import { instanceIri } from '../../../rdf/iri.ts';
import { loadPrices } from '../../../usage/prices.ts';
import { preparedSolutions, preparedUsage } from '../../../usage/prepared.ts';
import { reportFromRows, reportQuery, type ReportKind } from '../../../usage/report.ts';
import { routePlugin } from '../context.ts';
import { renderOverviewPage, type OverviewData, type OverviewSession, type ToolRow } from '../pages/overview.ts';
import { selectRows } from '../select.ts';

/**
 * /overview: sessions, tokens and cost per day per model, tool use and failures, compactions and
 * the files edited most, each one SPARQL query run by the workers. The page is kept until the
 * store changes (its quad count or its manifest), as the queries take seconds on a large store.
 */
export default routePlugin('weave-routes-overview', async (app) => {
  const ctx = app.weave;
  let cached: { key: string; html: Promise<string> } | undefined;

  app.get('/overview', async (request, reply) => {
    const { graphs, sessions } = await ctx.summary.get();
    const built = await ctx.summary.built();
    // A rebuild by this Weave may leave the counts as they were: the notice is part of the key.
    const key = `${ctx.pool.quads} ${graphs} ${sessions} ${built}`;
    if (!cached || cached.key !== key) {
      const html = overview().then(renderOverviewPage);
      cached = { key, html };
      html.catch(() => (cached = undefined));
    }
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await cached.html);

    async function overview(): Promise<OverviewData> {
      const started = performance.now();
      const prices = await loadPrices();
      const queries = {
        usage: reportQuery('daily', prices),
        sessions: SESSIONS,
        tools: TOOLS,
        servers: MCP_SERVERS,
        compactions: COMPACTIONS,
        files: FILES,
      };
      const perSession = reportQuery('session', prices);
      // Tokens and cost from the sessions' prepared usage rows where the store has them: the same solutions, without a query.
      const prepared = await preparedUsage(ctx.config.storeDir);
      const usageRows = (kind: ReportKind, query: string) =>
        prepared ? Promise.resolve(preparedSolutions(prepared, kind, prices)) : selectRows(ctx, query, request);
      const [daily, bySession, sessionRows, tools, servers, compactions, files] = await Promise.all([
        usageRows('daily', queries.usage),
        usageRows('session', perSession),
        ...[queries.sessions, queries.tools, queries.servers, queries.compactions, queries.files].map((q) => selectRows(ctx, q, request)),
      ]);
      const { report, extras } = reportFromRows('daily', daily, prices);
      const usage = reportFromRows('session', bySession, prices).report;
      const spent = new Map('sessions' in usage ? usage.sessions.map((s) => [s.sessionId, s]) : []);
      const calls = new Map<string, number>();
      for (const r of bySession) calls.set(r.period, (calls.get(r.period) ?? 0) + Number(r.calls));
      const toolRow =
        (key: string) =>
        (r: Record<string, string>): ToolRow => ({ name: r[key], calls: +r.calls, errors: +r.errors, failureRate: +r.failureRate });
      return {
        daily: 'daily' in report ? report.daily : [],
        totals:
          'totals' in report
            ? report.totals
            : { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, totalCost: 0, totalTokens: 0 },
        sessions: sessionRows.map(
          (r): OverviewSession => ({
            id: r.session,
            transcript: instanceIri(ctx.config.soul, 'Transcript', r.session).slice(1, -1),
            title: r.title || undefined,
            project: r.project,
            start: r.start,
            end: r.end,
            turns: +r.turns,
            calls: calls.get(r.session) ?? 0,
            tokens: spent.get(r.session)?.totalTokens ?? 0,
            cost: spent.get(r.session)?.totalCost ?? 0,
          }),
        ),
        tools: tools.map(toolRow('tool')),
        servers: servers.map(toolRow('server')),
        compactions: compactions.map((r) => ({ day: r.day, kind: r.kind, count: +r.compactions })),
        files: files.map((r) => ({ path: r.path, edits: +r.edits, sessions: +r.sessions })),
        queries,
        unpriced: extras.unpriced,
        built,
        millis: performance.now() - started,
      };
    }
  });
});
