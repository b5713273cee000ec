/** HTML text and links, for every page this server writes. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function describeHref(iri: string, format?: string): string {
  return `/describe?iri=${encodeURIComponent(iri)}${format ? `&format=${format}` : ''}`;
}
