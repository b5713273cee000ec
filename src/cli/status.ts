import { print, served } from '../client/served.ts';
import { parseStatusArgs, STATUS, STATUS_HELP, statusHere } from '../client/status.ts';

/** `weave status`: asked of the store's server when one runs (client/status.ts), else looked at here. */
export async function main(args: string[]): Promise<number> {
  const request = await parseStatusArgs(args);
  if (!request) {
    process.stdout.write(STATUS_HELP);
    return 0;
  }
  return print((await served(STATUS, request)) ?? (await statusHere(request)));
}
