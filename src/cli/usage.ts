import { USAGE, USAGE_HELP, usageText, parseUsageArgs } from '../client/usage.ts';
import { print, served } from '../client/served.ts';
import { loadPrices } from '../usage/prices.ts';
import { buildReport } from '../usage/report.ts';
import { openSessionGraphs } from './open.ts';

/** `weave usage`: asked of the store's server (client/usage.ts), else answered from the session graphs loaded here. */
export async function main(args: string[]): Promise<number> {
  const request = await parseUsageArgs(args);
  if (!request) {
    process.stdout.write(USAGE_HELP);
    return 0;
  }
  const answer = await served(USAGE, request);
  if (answer) return print(answer);
  const [store, prices] = await Promise.all([openSessionGraphs(request.storeDir), loadPrices()]);
  const { report, extras } = buildReport(store, request.kind, prices, request.options);
  return print(usageText(request, report, extras));
}
