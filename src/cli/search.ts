import { cut, terminalWidth } from '../query/fit.ts';
import type { DocKind } from '../search/docs.ts';
import { stampOf } from '../derive/derivation.ts';
import { deriveStored } from '../derive/stored.ts';
import { searchDocuments, searchIndex } from '../search/derivation.ts';
import { indexIsCurrent, SearchIndex, type Hit } from '../search/index.ts';
import { CliError, COMMON_HELP, parse, requireStore, storeDir } from './options.ts';

const HELP = `usage: weave search TEXT [options]

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
${COMMON_HELP}
`;

const KINDS: Record<string, DocKind> = { text: 'text', 'tool-input': 'tool input', 'tool-result': 'tool result' };

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    limit: { type: 'string' },
    kind: { type: 'string', multiple: true },
    session: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const text = positionals.join(' ').trim();
  if (!text) throw new CliError('give the text to search for', 2);
  const limit = values.limit === undefined ? 10 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit must be a positive whole number', 2);
  const kinds = values.kind?.map((k) => {
    if (!KINDS[k]) throw new CliError(`--kind must be ${Object.keys(KINDS).join(', ')}, not "${k}"`, 2);
    return KINDS[k];
  });

  const dir = storeDir(values);
  const manifest = await requireStore(dir);
  if (!(await indexIsCurrent(dir, manifest, stampOf(searchIndex)))) await catchUp(dir, manifest.soul);
  const index = await SearchIndex.open(dir);
  const session = values.session === undefined ? undefined : sessionOf(manifest, values.session);
  const t0 = performance.now();
  const { hits, total } = await index.search(text, { limit, kinds, session });
  const millis = performance.now() - t0;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ query: text, total, millis: Math.round(millis * 10) / 10, hits }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(render(hits, total, millis, terminalWidth()));
  return hits.length ? 0 : 1;
}

/** Derives what the index lacks (a store an older Weave built, an ingest that could not keep it), when the store is not being written. */
async function catchUp(dir: string, soul: string): Promise<void> {
  const started = performance.now();
  try {
    const report = await deriveStored(dir, soul, [searchDocuments, searchIndex]);
    const read = report.ran[searchDocuments.name]?.runs ?? 0;
    process.stderr.write(
      `weave search: indexed ${read} session(s) the index did not have yet (${Math.round(performance.now() - started)} ms)\n`,
    );
  } catch (e) {
    process.stderr.write(
      `weave search: the index lags behind the store and could not be brought up to date (${(e as Error).message}); searching what it holds\n`,
    );
  }
}

function sessionOf(manifest: Awaited<ReturnType<typeof requireStore>>, id: string): string {
  const ids = [...new Set(Object.values(manifest.graphs).flatMap((e) => (e.sessionId && !e.reader ? [e.sessionId] : [])))];
  const matches = ids.includes(id) ? [id] : ids.filter((s) => s.startsWith(id));
  if (matches.length === 1) return matches[0];
  throw new CliError(matches.length ? `"${id}" names ${matches.length} sessions; give more of the id` : `no session ${id} in the store`);
}

function render(hits: Hit[], total: number, millis: number, width: number): string {
  if (!hits.length) return `no hits (${millis.toFixed(0)} ms)\n`;
  const fit = (line: string) => cut(line, width);
  const out: string[] = [];
  hits.forEach((h, i) => {
    const what = h.kind === 'text' ? `${h.role ?? ''} text`.trim() : `${h.kind}${h.tool ? ` (${h.tool})` : ''}`;
    const when = h.time ? h.time.slice(0, 16).replace('T', ' ') : '';
    const copies = h.alsoIn ? ` (also in ${h.alsoIn} other session${h.alsoIn > 1 ? 's' : ''})` : '';
    out.push(fit(`${i + 1}. ${h.title ?? '(untitled)'} · ${h.session.slice(0, 8)} · ${when} · ${what}${copies}`));
    out.push(fit(`   ${h.snippet}`));
    out.push(fit(`   ${h.event}`));
  });
  out.push(`${hits.length} of ${total} hits · ${millis.toFixed(0)} ms`);
  return `${out.join('\n')}\n`;
}
