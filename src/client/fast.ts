import { failureCode, failureText } from '../cli/failure.ts';
import { sayEmitter } from '../cli/options.ts';
import { CONVERSATION } from './conversation.ts';
import { QUERY } from './query.ts';
import { SEARCH } from './search.ts';
import { isServed, print, served, type LightCommand, type ServedCommand } from './served.ts';
import { STATUS } from './status.ts';
import { USAGE } from './usage.ts';

/**
 * The light entry's work (src/cli/launch.mjs runs this module compiled, without tsx): a command
 * that reads the store answered by the store's server, found or started (client/daemon.ts).
 * Anything else, or any doubt, is left to the full CLI (undefined): help, bad arguments,
 * --no-daemon, no server to be had, an answer the server will not send whole.
 */

// biome-ignore lint/suspicious/noExplicitAny: each command's request is its own
const COMMANDS: Record<string, LightCommand<any> | ServedCommand<any>> = {
  query: QUERY,
  usage: USAGE,
  search: SEARCH,
  conversation: CONVERSATION,
  status: STATUS,
};

/** The commands answered here (by a server, or for status by this process): launch.mjs compiles this module only for them. */
export const SERVED_COMMANDS = Object.keys(COMMANDS);

/** `entry`: the command line's entry (launch.mjs), which a resident server is started with. */
export async function answerQuickly(argv: string[], entry?: string): Promise<number | undefined> {
  const command = Object.hasOwn(COMMANDS, argv[0]) ? COMMANDS[argv[0]] : undefined;
  if (!command) return undefined;
  let request: unknown;
  try {
    request = await command.parse(argv.slice(1));
  } catch {
    return undefined; // the full CLI says what is wrong, in its words
  }
  if (!request) return undefined;
  // Said here, before any server is asked: a resident server answers from the graphs it loaded.
  if (isServed(command)) await sayEmitter(command.storeDir(request));
  try {
    const answer = (isServed(command) ? await served(command, request, entry) : undefined) ?? (await command.here?.(request));
    return answer && (await print(answer));
  } catch (e) {
    // As the full CLI reports a failure (src/cli/main.ts).
    process.stderr.write(failureText(command.name, e, argv));
    return failureCode(e);
  }
}
