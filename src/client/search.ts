import { cut, cutNote } from '../query/fit.ts';
import { printable } from '../terminal.ts';
import { copiesOf } from '../search/copies.ts';
import type { Hit } from '../search/index.ts';
import { shortened } from '../search/snippet.ts';
import { OTHERS_DOCUMENTS, SERVED_LIMIT, SearchRequestError, searchKinds } from '../search/request.ts';
import { CliError, COMMON_HELP, outputWidth, parse, storeDir, WIDE_HELP, WIDE_OPTION } from '../cli/options.ts';
import { NO_DAEMON_HELP, noDaemon } from './daemon.ts';
import type { Printed, ServedCommand } from './served.ts';
import { externalStore } from './external.ts';
import { askServer, selectRows, ServerError } from './server.ts';
import { readManifest, sessionsHere } from '../store/manifest.ts';
import { sessionOfGraph } from '../rdf/iri.ts';

/**
 * `weave search` without the store: its arguments, its listing, and its hits from a server
 * (`/search?format=json`, the same index and the same ranking as cli/search.ts reads here).
 */

export const SEARCH_HELP = `usage: weave search TEXT [options]

Full-text search over what people and the model wrote in turns, tool inputs and tool results,
ranked (BM25): every word must match (the last as a prefix; a typo is forgiven in long words),
else any word. Each hit names its session (title and id), when, what kind of text, a snippet,
and the turn's IRI (its page in weave serve: /describe?iri=…). The index sits in the store
(search/), kept current by weave ingest; a store built before it is indexed on first search.

options:
  --limit N          hits to print (default 10)
  --kind K           only text, tool-input or tool-result (repeatable)
  --session ID       only this session (an id or a unique prefix of one)
  --json             the hits as JSON
${WIDE_HELP}
${NO_DAEMON_HELP}
${COMMON_HELP}
`;

export interface SearchRequest {
  storeDir: string;
  text: string;
  limit: number;
  /** `--kind` as typed (text, tool-input, tool-result). */
  kinds?: string[];
  /** `--session` as typed: an id or a prefix of one. */
  session?: string;
  json: boolean;
  /** `--wide`: lines uncut, whatever the terminal's width. */
  wide: boolean;
  noDaemon: boolean;
}

export async function parseSearchArgs(args: string[]): Promise<SearchRequest | undefined> {
  const { values, positionals } = parse(args, {
    limit: { type: 'string' },
    kind: { type: 'string', multiple: true },
    session: { type: 'string' },
    json: { type: 'boolean' },
    'no-daemon': { type: 'boolean' },
    ...WIDE_OPTION,
  });
  if (values.help) return undefined;
  const text = positionals.join(' ').trim();
  if (!text) throw new CliError('give the text to search for', 2);
  const limit = values.limit === undefined ? 10 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit must be a positive whole number', 2);
  try {
    searchKinds(values.kind);
  } catch (e) {
    if (e instanceof SearchRequestError) throw new CliError(e.message, 2);
    throw e;
  }
  return {
    storeDir: storeDir(values),
    text,
    limit,
    kinds: values.kind,
    session: values.session,
    json: !!values.json,
    wide: !!values.wide,
    noDaemon: noDaemon(values),
  };
}

/** What `weave search` prints for its hits, found in `millis`; it ends 1 when there is none. */
export function searchText(request: SearchRequest, found: { hits: Hit[]; total: number; millis: number }): Printed {
  const { hits, total, millis } = found;
  if (request.json)
    return {
      stdout: `${JSON.stringify({ query: request.text, total, millis: Math.round(millis * 10) / 10, hits }, null, 2)}\n`,
      form: 'code',
    };
  return { stdout: render(hits, total, millis, outputWidth(request)), code: hits.length ? 0 : 1 };
}

export const SEARCH: ServedCommand<SearchRequest> = {
  name: 'search',
  parse: parseSearchArgs,
  storeDir: (request) => request.storeDir,
  answersHere: (request) => request.noDaemon || request.limit > SERVED_LIMIT,
  // It reads the search index alone.
  quickHere: true,
  async ask(server, request) {
    const params = new URLSearchParams({ q: request.text, format: 'json', limit: String(request.limit) });
    for (const kind of request.kinds ?? []) params.append('kind', kind);
    if (request.session !== undefined) params.set('session', request.session);
    // Looked up while the server searches: it reads the manifest, which takes a while on a large store.
    const unindexed = externalStore(request.storeDir).then(
      (remote) => remote && unindexedNote(request.storeDir, async (query) => (await selectRows(server, query)).map((r) => r.g)),
    );
    unindexed.catch(() => undefined); // awaited below unless the search fails first
    let text: string;
    try {
      ({ text } = await askServer(server, `search?${params}`, { headers: { accept: 'application/json' } }));
    } catch (e) {
      // A session the store does not name, said as the command says it.
      if (e instanceof ServerError && e.status === 400) throw new CliError(e.message.replace(/^400 Bad Request: /, ''));
      throw e;
    }
    const printed = searchText(request, JSON.parse(text) as { hits: Hit[]; total: number; millis: number });
    return withNote(printed, await unindexed);
  },
};

/** The session graphs of a store, asked of its server or of the external store itself (hence no prefix). */
export const SESSION_GRAPHS = 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s a <https://repolex.ai/ontology/weave#Session> } }';

/**
 * What an external store holds that the index of the store in `dir` does not: the index holds this
 * machine's sessions and, as of its last ingest, the other machines' (search/others.ts); a session
 * another machine wrote since is not searched until the next. Another soul's copy of a session held
 * here (both read it, or the copy here went on) is searched as this machine's own, never apart.
 * `sessionGraphs` answers SESSION_GRAPHS with the graphs' names.
 */
export async function unindexedNote(dir: string, sessionGraphs: (query: string) => Promise<string[]>): Promise<string | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest) return undefined;
  const indexed = new Set(Object.keys(manifest.graphs));
  for (const entry of Object.values(manifest.files ?? {}))
    if (entry.builtWith?.startsWith(`${OTHERS_DOCUMENTS}@`) && entry.sources?.[0]) indexed.add(entry.sources[0].path);
  const mine = sessionsHere(manifest);
  const graphs = await sessionGraphs(SESSION_GRAPHS);
  const searched = graphs.filter((g) => indexed.has(g)).length;
  const missing = graphs.filter((g) => !indexed.has(g) && !mine.has(sessionOfGraph(g) ?? '')).length;
  return missing
    ? `${missing} session(s) in the external store were written from other machines since this machine's last ingest and are not in its index yet (weave ingest adds them); these hits are from the ${searched} it holds`
    : undefined;
}

/** The hits printed with the note of what the index lacks, if any. */
export function withNote(printed: Printed, note: string | undefined): Printed {
  return note ? { ...printed, notes: `weave search: ${note}\n` } : printed;
}

export function render(hits: Hit[], total: number, millis: number, width: number): string {
  if (!hits.length) return `no hits (${millis.toFixed(0)} ms)\n`;
  // A transcript's text may hold a terminal's escape sequences: shown, never obeyed.
  let narrowed = false;
  const fit = (line: string) => {
    const shown = cut(printable(line), width);
    if (shown.length < printable(line).length) narrowed = true;
    return shown;
  };
  const out: string[] = [];
  hits.forEach((h, i) => {
    const what = h.kind === 'text' ? `${h.role ?? ''} text`.trim() : `${h.kind}${h.tool ? ` (${h.tool})` : ''}`;
    const when = h.time ? h.time.slice(0, 16).replace('T', ' ') : '';
    const copies = copiesOf(h)
      .map((c) => ` (${c})`)
      .join('');
    // Session, time and kind first: at 80 columns a long title is what is cut, not them.
    out.push(fit(`${i + 1}. ${h.session.slice(0, 8)} · ${when} · ${what}${copies} · ${h.title ?? '(untitled)'}`));
    out.push(fit(`   ${shortened(h.snippet, h.terms, width - 3)}`));
    out.push(fit(`   ${h.event}`));
  });
  out.push(`${hits.length} of ${total} hits · ${millis.toFixed(0)} ms`);
  if (narrowed) out.push(`(${cutNote(width)})`);
  return `${out.join('\n')}\n`;
}
