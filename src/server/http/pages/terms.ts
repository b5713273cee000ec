import { definition, glossaryEntry, plainName } from '../../../model/plain.ts';
import { escapeHtml } from './html.ts';

/**
 * A model term on a page, for a reader who has not met it: its plain name beside it (or, with
 * `instead`, in its place), the term's definition on hover, and a link to the row of /glossary that
 * tells it.
 * The words are model/plain.ts's, as `weave conversation` prints them.
 */
export function termHtml(term: string, shown = term, options: { instead?: boolean } = {}): string {
  // Shown in plain words already (`tool calls`): nothing to add beside it.
  const named = plainName(term);
  const plain = named && !shown.startsWith(named) ? named : undefined;
  const meaning = definition(term);
  const title = escapeHtml(meaning ? `${term}: ${meaning}` : term);
  const text =
    named && options.instead
      ? escapeHtml(named)
      : `${escapeHtml(shown)}${plain ? ` <span class="plain">(${escapeHtml(plain)})</span>` : ''}`;
  return `<a class="term" href="/glossary#term-${escapeHtml(encodeURIComponent(glossaryEntry(term)))}" title="${title}">${text}</a>`;
}
