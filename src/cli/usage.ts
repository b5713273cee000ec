import { sayEmitter } from './options.ts';
import { print, served } from '../client/served.ts';
import { groupsText, USAGE, USAGE_HELP, usageText, parseUsageArgs, type UsageRequest } from '../client/usage.ts';
import { loadPrices, type PriceTable } from '../usage/prices.ts';
import { preparedReport, preparedUsage } from '../usage/prepared.ts';
import type { ReportKind, ReportOptions } from '../usage/report.ts';
import { printHelp } from './help.ts';

/**
 * `weave usage`: from the store's prepared rows where every session has them (no store opened),
 * else asked of the store's server (client/usage.ts), else by SPARQL over the session graphs
 * loaded here.
 */
export async function main(args: string[]): Promise<number> {
  const request = await parseUsageArgs(args);
  if (!request) {
    printHelp(USAGE_HELP);
    return 0;
  }
  await sayEmitter(request.storeDir);
  const prices = await loadPrices();
  // Every soul's sessions are in the store, not in this machine's prepared rows.
  if (request.by) return print(await byGroup(request, prices));
  const prepared = await fromRows(request, prices);
  if (prepared) return print(prepared);
  const answer = await served(USAGE, request);
  if (answer) return print(answer);
  const { report, extras } = await fromGraphs(request.storeDir, request.kind, prices, request.options);
  return print(usageText(request, report, extras));
}

/**
 * The report from the store's prepared rows, without tsx (src/cli/launch.mjs runs a compiled
 * copy of this module, and names the price table, which the copy cannot find beside itself);
 * undefined when the full command must answer: help, an option it must explain, no store, or
 * sessions without current prepared rows.
 */
export async function answerQuickly(args: string[], pricesFile: URL): Promise<number | undefined> {
  try {
    const request = await parseUsageArgs(args);
    if (request) await sayEmitter(request.storeDir);
    const answer = request && (await fromRows(request, await loadPrices(pricesFile)));
    return answer ? await print(answer) : undefined;
  } catch {
    return undefined; // the full command says what is wrong, in its words
  }
}

async function fromRows(request: UsageRequest, prices: PriceTable) {
  if (request.by) return undefined;
  const rows = await preparedUsage(request.storeDir);
  if (!rows) return undefined;
  const { report, extras } = preparedReport(rows, request.kind, prices, request.options);
  return usageText(request, report, extras);
}

// The store's queries, here or external, and the SPARQL path are loaded when first asked for: the
// light copy of this module (src/cli/compiled.mjs) leaves them out, and Oxigraph with them.
async function byGroup(request: UsageRequest, prices: PriceTable) {
  const { groupReport } = await import('../usage/group-report.ts');
  const { report, extras } = await groupReport(request.storeDir, request.by!, prices, request.options);
  return groupsText(request, report, extras);
}

async function fromGraphs(dir: string, kind: ReportKind, prices: PriceTable, options: ReportOptions) {
  const { graphsReport } = await import('../usage/graphs.ts');
  return graphsReport(dir, kind, prices, options);
}
