import { SEARCH, SEARCH_HELP, parseSearchArgs, searchText } from '../client/search.ts';
import { print, served } from '../client/served.ts';
import { SearchIndex } from '../search/index.ts';
import { SearchRequestError, searchKinds, searchSession } from '../search/request.ts';
import { CliError, requireStore } from './options.ts';

/** `weave search`: asked of the store's server (client/search.ts), else read from the index here. */
export async function main(args: string[]): Promise<number> {
  const request = await parseSearchArgs(args);
  if (!request) {
    process.stdout.write(SEARCH_HELP);
    return 0;
  }
  const answer = await served(SEARCH, request);
  if (answer) return print(answer);

  const manifest = await requireStore(request.storeDir);
  const index = await SearchIndex.open(request.storeDir);
  const started = performance.now();
  const read = await index.refresh(manifest);
  if (read) {
    process.stderr.write(
      `weave search: indexed ${read} session(s) the index did not have yet (${Math.round(performance.now() - started)} ms)\n`,
    );
    await index.save();
  }
  let session: string | undefined;
  try {
    session = request.session === undefined ? undefined : searchSession(manifest, request.session);
  } catch (e) {
    if (e instanceof SearchRequestError) throw new CliError(e.message);
    throw e;
  }
  const t0 = performance.now();
  const found = await index.search(request.text, { limit: request.limit, kinds: searchKinds(request.kinds), session });
  return print(searchText(request, { ...found, millis: performance.now() - t0 }));
}
