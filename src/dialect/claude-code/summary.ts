import type { ContentBlock } from './records.ts';

/**
 * The texts of a compaction, as Claude Code writes them: a summariser (`agent-acompact-<hex>.jsonl`)
 * answers with its analysis, then the summary between `<summary>` tags; the main stream's
 * isCompactSummary record carries the summary again, its tags rewritten into headings and a
 * preamble added, but the body as written. The model compares the two (src/model/compactions.ts).
 */

/** The text of a message: a string, or its text blocks joined. */
export function messageText(content: string | ContentBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const b of content)
    if (b && typeof b === 'object' && b.type === 'text' && typeof (b as { text?: unknown }).text === 'string')
      text += (b as { text: string }).text;
  return text;
}

/** The summariser's own answer format: analysis, then the summary between `<summary>` tags. */
export function summaryBody(text: string): string | undefined {
  const open = text.lastIndexOf('<summary>');
  if (open < 0) return undefined;
  const close = text.indexOf('</summary>', open);
  if (close < 0) return undefined;
  const body = text.slice(open + '<summary>'.length, close).trim();
  return body || undefined;
}
