import { findServer } from '../store/running.ts';
import { answerFromServer, parseQueryArgs } from './query.ts';

/**
 * The light entry's work (src/cli/launch.mjs runs this module compiled, without tsx): `weave
 * query` answered by a running server. Anything else, or any doubt, is left to the full CLI
 * (undefined): help, bad arguments, no server, an answer the server will not send whole.
 */
export async function answerQuickly(argv: string[]): Promise<number | undefined> {
  if (argv[0] !== 'query') return undefined;
  let request: Awaited<ReturnType<typeof parseQueryArgs>>;
  try {
    request = await parseQueryArgs(argv.slice(1));
  } catch {
    return undefined; // the full CLI says what is wrong, in its words
  }
  if (!request) return undefined;
  const server = await findServer(request.storeDir);
  if (!server) return undefined;
  let text: string | undefined;
  try {
    text = await answerFromServer(server, request);
  } catch (e) {
    for (const warning of request.warnings) process.stderr.write(warning);
    process.stderr.write(`weave query: ${(e as Error).message}\n`);
    return 1;
  }
  if (text === undefined) return undefined;
  for (const warning of request.warnings) process.stderr.write(warning);
  await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  return 0;
}
