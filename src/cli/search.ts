import { SEARCH, SEARCH_HELP, parseSearchArgs, searchText, unindexedNote, withNote } from '../client/search.ts';
import { print, served } from '../client/served.ts';
import { stampOf } from '../derive/derivation.ts';
import { deriveStored } from '../derive/stored.ts';
import { searchDocuments, searchIndex } from '../search/derivation.ts';
import { indexIsCurrent, SearchIndex } from '../search/index.ts';
import { SearchRequestError, searchKinds, searchSession } from '../search/request.ts';
import { readManifest } from '../store/manifest.ts';
import { externalQueries, selectRows } from '../store/queries.ts';
import { RemoteStore } from '../store/remote/client.ts';
import { readRemoteConfig } from '../store/remote/config.ts';
import { CliError, requireStore, sayEmitter } from './options.ts';
import { printHelp } from './help.ts';

/**
 * `weave search`: an index that lags behind the store is brought up to date first (a derivation,
 * under the store lock); then asked of the store's server (client/search.ts), else read here.
 */
export async function main(args: string[]): Promise<number> {
  const request = await parseSearchArgs(args);
  if (!request) {
    printHelp(SEARCH_HELP);
    return 0;
  }
  await sayEmitter(request.storeDir);
  const known = await readManifest(request.storeDir).catch(() => undefined);
  if (known && !(await indexIsCurrent(request.storeDir, known, stampOf(searchIndex)))) await catchUp(request.storeDir, known.soul);
  const answer = await served(SEARCH, request);
  if (answer) return print(answer);

  const manifest = await requireStore(request.storeDir);
  const index = await SearchIndex.open(request.storeDir, manifest);
  let session: string | undefined;
  try {
    session = request.session === undefined ? undefined : searchSession(manifest, request.session);
  } catch (e) {
    if (e instanceof SearchRequestError) throw new CliError(e.message);
    throw e;
  }
  const t0 = performance.now();
  const found = await index.search(request.text, { limit: request.limit, kinds: searchKinds(request.kinds), session });
  const printed = searchText(request, { ...found, millis: performance.now() - t0 });
  return print(withNote(printed, await unindexedHere(request.storeDir)));
}

/** What the index lacks of an external store, asked of the store itself as a server would ask it; nothing when it cannot be asked (the hits stand). */
async function unindexedHere(dir: string): Promise<string | undefined> {
  const config = await readRemoteConfig(dir).catch(() => undefined);
  if (!config) return undefined;
  const queries = externalQueries(new RemoteStore(config));
  return unindexedNote(dir, async (query) => (await selectRows(queries, query)).map((r) => r.g)).catch(() => undefined);
}

/** Derives what the index lacks (a store an older Weave built, an ingest that could not keep it), when the store is not being written. */
async function catchUp(dir: string, soul: string): Promise<void> {
  const started = performance.now();
  try {
    const report = await deriveStored(dir, soul, [searchDocuments, searchIndex]);
    const read = report.ran[searchDocuments.name]?.runs ?? 0;
    // No session new to it, yet the index made again: the one there was of a form this Weave does not read, or gone.
    const remade = !read && report.ran[searchIndex.name]?.why['version changed'];
    const did = remade ? "made the index again from the sessions' documents" : `indexed ${read} session(s) the index did not have yet`;
    process.stderr.write(`weave search: ${did} (${Math.round(performance.now() - started)} ms)\n`);
  } catch (e) {
    process.stderr.write(
      `weave search: the index lags behind the store and could not be brought up to date (${(e as Error).message}); searching what it holds\n`,
    );
  }
}
