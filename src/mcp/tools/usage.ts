import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { storeEmitterNotice } from '../../store/emitter.ts';
import { loadPrices } from '../../usage/prices.ts';
import { reportFromRows, reportQuery, type UsageReport } from '../../usage/report.ts';
import { reportRequest } from '../../usage/request.ts';
import type { McpContext } from '../context.ts';
import { answer } from '../fit.ts';

/**
 * `usage`: `weave usage --json` for an agent: the same SPARQL and the same folding
 * (src/usage/report.ts), run where the other tools' queries run; the newest `limit` periods,
 * with the totals over all of them.
 */

const DESCRIPTION = `Tokens and cost (USD) of past Claude Code sessions, per day, week, month, session or 5-hour block, as ccusage reports them (its JSON shape).
Each API call counts once, with the usage of its last fragment; prices from Weave's price table; days are UTC.
Filter by date (since/until, YYYY-MM-DD), model (text in its id, e.g. "opus") or project (text in the project folder's name). The newest \`limit\` periods are returned; totals cover all.`;

const DAY = /^\d{4}-?\d{2}-?\d{2}$/;

export function registerUsage(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'usage',
    {
      title: 'Tokens and cost',
      description: DESCRIPTION,
      inputSchema: {
        report: z.enum(['daily', 'weekly', 'monthly', 'session', 'blocks']).default('daily').describe('the period each row covers'),
        since: z.string().regex(DAY).optional().describe('from this day on (YYYY-MM-DD)'),
        until: z.string().regex(DAY).optional().describe('up to this day (YYYY-MM-DD)'),
        model: z.string().optional().describe('only models whose id contains this text'),
        project: z.string().optional().describe('only sessions whose project folder name contains this text'),
        breakdown: z.boolean().default(false).describe('keep the per-model figures of each row'),
        limit: z.number().int().min(1).max(500).default(31).describe('most rows (the newest) to return'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ report, since, until, model, project, breakdown, limit }) => {
      const prices = await loadPrices();
      // Read as `weave usage` and /usage read their words: the same checks (a date that is none is the tool's error), the same defaults.
      const { kind, options } = reportRequest({ report, since, until, model, project });
      const rows = await ctx.graph.rows(reportQuery(kind, prices, options));
      const { report: folded, extras } = reportFromRows(kind, rows, prices, options);
      // Figures from graphs an older Weave built are that Weave's: said beside them, as weave usage says it.
      const notice = await storeEmitterNotice(ctx.storeDir);
      return answer({
        ...newest(folded, kind, limit, breakdown, extras.titles),
        ...(extras.unpriced.length ? { unpriced: extras.unpriced } : {}),
        ...(notice ? { notice } : {}),
      });
    },
  );
}

/** The report's newest `limit` rows (sessions come newest first, the rest oldest first), titled, with how many were left out. */
function newest(report: UsageReport, kind: string, limit: number, breakdown: boolean, titles: Map<string, string>) {
  const key = Object.keys(report).find((k) => k !== 'totals') as string;
  const all = (report as unknown as Record<string, Record<string, unknown>[]>)[key];
  const kept = (kind === 'session' ? all.slice(0, limit) : all.slice(-limit)).map((row) => {
    const { modelBreakdowns, ...rest } = row;
    const title = typeof row.sessionId === 'string' ? titles.get(row.sessionId) : undefined;
    return { ...rest, ...(title ? { title } : {}), ...(breakdown && modelBreakdowns ? { modelBreakdowns } : {}) };
  });
  return { ...report, [key]: kept, leftOut: all.length - kept.length };
}
