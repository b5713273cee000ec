import type { FileEntry, Manifest } from '../store/manifest.ts';
import type { DocKind } from './docs.ts';

/**
 * A search asked for, read alike from `weave search`'s options and `/search`'s parameters of
 * the same names: which kinds of text (`--kind` / `kind=`), and which session (`--session` /
 * `session=`, an id or a unique prefix of one), with the command's messages.
 */

export const SEARCH_KINDS: Record<string, DocKind> = { text: 'text', 'tool-input': 'tool input', 'tool-result': 'tool result' };

/** The most hits a server sends for one search (a page shows a hundred); a command wanting more searches by itself. */
export const SERVED_LIMIT = 10_000;

/** The derivation writing other machines' documents into an external store's index (others.ts), named here for the light client. */
export const OTHERS_DOCUMENTS = 'search/others';

/** A search that cannot be asked: what is wrong, in the command's words. */
export class SearchRequestError extends Error {}

export function searchKinds(names: string[] | undefined): DocKind[] | undefined {
  return names?.map((k) => {
    if (!Object.hasOwn(SEARCH_KINDS, k)) throw new SearchRequestError(`--kind must be ${Object.keys(SEARCH_KINDS).join(', ')}, not "${k}"`);
    return SEARCH_KINDS[k];
  });
}

/** Each session's documents file as the manifest names it (`search/documents/<session>`), with its session. */
export function documentsFiles(manifest: Manifest): [string, FileEntry][] {
  return Object.entries(manifest.files ?? {}).flatMap(([name, entry]) =>
    name.startsWith('search/documents/') && entry.sessionId ? [[entry.sessionId, entry] as [string, FileEntry]] : [],
  );
}

/** The session an id or a unique prefix names in the store, or in the index (another machine's, in an external store). */
export function searchSession(manifest: Manifest, id: string): string {
  const ids = [
    ...new Set([
      ...Object.values(manifest.graphs).flatMap((e) => (e.sessionId && !e.reader ? [e.sessionId] : [])),
      ...documentsFiles(manifest).map(([session]) => session),
    ]),
  ];
  const matches = ids.includes(id) ? [id] : ids.filter((s) => s.startsWith(id));
  if (matches.length === 1) return matches[0];
  throw new SearchRequestError(
    matches.length ? `"${id}" names ${matches.length} sessions; give more of the id` : `no session ${id} in the store`,
  );
}
