/** HTML text and links, for every page this server writes. */

import { printable } from '../../../terminal.ts';

/**
 * Text as HTML: markup escaped, and what a browser would hide or obey shown as an escape, as every
 * command prints it (src/terminal.ts): a control character (a transcript's `\x1b[1m` drew as a box
 * and "[1m") and the direction overrides that make text read other than it is (`\u202e`).
 * Newlines and tabs stay.
 */
export function escapeHtml(text: string): string {
  return printable(text, { form: 'data' }).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** A session's compactions (`weave:Compaction`s but microcompactions) and microcompactions, from overview/session.ts's facts. */
export interface Compactions {
  compactions: number;
  microcompactions: number;
}

/**
 * A session's compactions as the session page and the conversation page both say them: "2
 * compactions", "1 compaction, 1 microcompaction". A compaction begins a new context epoch; a
 * microcompaction clears old tool output in place, and is named only where there is one.
 */
export function compactionsText({ compactions, microcompactions }: Compactions): string {
  const count = (v: number, word: string) => `${v.toLocaleString('en')} ${v === 1 ? word : `${word}s`}`;
  return count(compactions, 'compaction') + (microcompactions ? `, ${count(microcompactions, 'microcompaction')}` : '');
}

export function describeHref(iri: string, format?: string): string {
  return `/describe?iri=${encodeURIComponent(iri)}${format ? `&format=${format}` : ''}`;
}

/**
 * A cost in US dollars as a page shows it: cents from a dollar up, four places below, "$0" for
 * nothing and "<$0.0001" for a cost too small for four places (never a "$0.0000" that hides one).
 */
export function usd(value: number): string {
  if (value === 0) return '$0';
  if (value < 0.00005) return '<$0.0001';
  return `$${value >= 1 ? value.toFixed(2) : value.toFixed(4)}`;
}
