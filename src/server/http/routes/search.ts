import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { copiesOf } from '../../../search/copies.ts';
import { HeldIndex, type Hit, type SearchIndex } from '../../../search/index.ts';
import { MANIFEST_FILE } from '../../../store/layout.ts';
import { readManifest } from '../../../store/manifest.ts';
import type { DocKind } from '../../../search/docs.ts';
import { WORD_CHARACTER } from '../../../search/snippet.ts';
import { SERVED_LIMIT, SearchRequestError, searchKinds, searchSession } from '../../../search/request.ts';
import { HttpError } from '../../errors.ts';
import { routePlugin } from '../context.ts';
import { negotiate } from '../negotiate.ts';
import { page, topBar } from '../pages/chrome.ts';
import { describeHref, escapeHtml } from '../pages/html.ts';
import { vary } from '../vary.ts';

/**
 * /search?q=TEXT: the store's full-text index (src/search/), held in this thread and read again
 * when ingest rewrites it. HTML for a browser (hits linking to the turn's page), JSON otherwise.
 * `kind=` (text, tool-input, tool-result; repeatable), `session=` (an id or a unique prefix) and
 * `limit=` narrow it as `weave search`'s options of the same names do.
 * The index is a derivation of every ingest (src/search/derivation.ts), so the server's own ingest
 * keeps it current; `weave search` brings a lagging one up to date before it asks.
 */
export default routePlugin('weave-routes-search', async (app) => {
  const ctx = app.weave;
  const manifestPath = join(ctx.config.storeDir, MANIFEST_FILE);
  const held = new HeldIndex(ctx.config.storeDir);
  let seen: { mtimeMs: number; index?: Promise<SearchIndex> } = { mtimeMs: -1 };

  /** The index as the manifest names it now, looked at again whenever the manifest changes (HeldIndex). */
  async function current(): Promise<SearchIndex> {
    const mtimeMs = await stat(manifestPath).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (mtimeMs === seen.mtimeMs && seen.index) return seen.index;
    const index = held.at(await readManifest(ctx.config.storeDir).catch(() => undefined));
    seen = { mtimeMs, index };
    return index;
  }

  // Read once the store is open, so the first search does not wait for it (0.8 s on the corpus).
  void ctx.pool
    .whenReady()
    .then(current)
    .catch(() => undefined);

  app.get('/search', async (request, reply) => {
    const params = request.searchParams;
    const q = (params.get('q') ?? '').trim();
    const html = params.get('format') !== 'json' && negotiate(request.headers.accept, ['text/html', 'application/json']) === 'text/html';
    vary(reply, 'Accept');
    // A page lists a hundred at most; a client asking for JSON (weave search) may take more.
    const limit = Math.min(html ? 100 : SERVED_LIMIT, Math.max(1, Math.floor(Number(params.get('limit'))) || 20));
    if (!q && !html) throw new HttpError(400, 'give the text to search for as ?q=');
    let kinds: DocKind[] | undefined;
    let session: string | undefined;
    try {
      kinds = params.has('kind') ? searchKinds(params.getAll('kind')) : undefined;
      const named = params.get('session');
      if (named !== null) {
        const manifest = await readManifest(ctx.config.storeDir);
        if (!manifest) throw new SearchRequestError(`no session ${named} in the store`);
        session = searchSession(manifest, named);
      }
    } catch (e) {
      if (e instanceof SearchRequestError) throw new HttpError(400, e.message.replace(/^--kind/, 'kind'));
      throw e;
    }
    const started = performance.now();
    const found = q ? await (await current()).search(q, { limit, kinds, session }) : { hits: [], total: 0 };
    const millis = performance.now() - started;
    if (!html)
      return reply
        .header('cache-control', 'no-cache')
        .send({ query: q, total: found.total, millis: Math.round(millis * 10) / 10, hits: found.hits });
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(renderSearchPage(q, found.hits, found.total, millis));
  });
});

/** The matched terms marked where they stand as words: `git`, not the start of "github". */
export function highlight(snippet: string, terms: string[]): string {
  const words = [...new Set(terms)].filter(Boolean).sort((a, b) => b.length - a.length);
  if (!words.length) return escapeHtml(snippet);
  const alternatives = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`(?<!${WORD_CHARACTER})(${alternatives})(?!${WORD_CHARACTER})`, 'giu');
  return snippet
    .split(pattern)
    .map((part, i) => (i % 2 ? `<mark>${escapeHtml(part)}</mark>` : escapeHtml(part)))
    .join('');
}

function renderSearchPage(q: string, hits: Hit[], total: number, millis: number): string {
  const items = hits.map((h) => {
    const what = h.kind === 'text' ? `${h.role ?? ''} text`.trim() : `${h.kind}${h.tool ? ` · ${h.tool}` : ''}`;
    const copies = copiesOf(h)
      .map((c) => ` · ${c}`)
      .join('');
    return `<li class="hit"><a class="turn" href="${escapeHtml(describeHref(h.event))}">${escapeHtml(h.title ?? '(untitled session)')}</a>
<span class="meta">${escapeHtml((h.time ?? '').slice(0, 16).replace('T', ' '))} · ${escapeHtml(what)} · session <code>${escapeHtml(h.session.slice(0, 8))}</code>${escapeHtml(copies)}</span>
<p class="snippet">${highlight(h.snippet, h.terms)}</p></li>`;
  });
  const summary = q
    ? `${hits.length} of ${total} hits for “${escapeHtml(q)}” · ${millis.toFixed(0)} ms`
    : 'Type words to find in turns, tool inputs and tool results.';
  const body = `${topBar('search', q)}
<main class="search-results"><p class="summary">${summary}</p>
${hits.length ? `<ol class="hits">${items.join('\n')}</ol>` : q ? '<p class="muted">No hits.</p>' : ''}
</main>`;
  return page(q ? `${q} · search` : 'Search', 'search', body);
}
