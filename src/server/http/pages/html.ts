/** HTML text and links, for every page this server writes. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
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
