import { print } from '../client/served.ts';
import { parseStatusArgs, STATUS_HELP, statusHere } from '../client/status.ts';
import { printHelp } from './help.ts';

/** `weave status`: looked at here (client/status.ts); the light entry answers it first. */
export async function main(args: string[]): Promise<number> {
  const request = await parseStatusArgs(args);
  if (!request) {
    printHelp(STATUS_HELP);
    return 0;
  }
  return print(await statusHere(request));
}
