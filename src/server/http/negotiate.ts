/**
 * Content negotiation (RFC 9110 §12.5.1): the server offers media types in its own order of
 * preference; the client's Accept ranges, with q-values, choose among them. The most specific
 * range that matches an offer decides that offer's quality; ties go to the server's order.
 */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** Parses an Accept header; malformed members are skipped, as a browser would. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header?.trim()) return [];
  const ranges: MediaRange[] = [];
  for (const member of header.split(',')) {
    const [range, ...rawParams] = member.split(';').map((s) => s.trim());
    const m = /^([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)$/i.exec(range ?? '');
    if (!m) continue;
    // Parameters other than q (charset, a JSON-LD profile) do not narrow the match here.
    let q = 1;
    for (const p of rawParams) {
      const m = /^q\s*=\s*(.*)$/i.exec(p);
      if (!m) continue;
      const n = Number(m[1]);
      q = m[1] !== '' && Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
    }
    const type = m[1].toLowerCase();
    const subtype = m[2].toLowerCase();
    if (type === '*' && subtype !== '*') continue;
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** How closely a range matches an offer: -1 when it does not. */
function specificity(range: MediaRange, offer: string): number {
  const [type, subtype] = offer.split('/');
  if (range.type === '*') return 0;
  if (range.type !== type) return -1;
  if (range.subtype === '*') return 1;
  return range.subtype === subtype ? 2 : -1;
}

/** The quality the client gives an offer (0 when unacceptable). */
function quality(ranges: MediaRange[], offer: string): number {
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const s = specificity(range, offer);
    if (s > best) {
      best = s;
      q = range.q;
    } else if (s === best && s >= 0) q = Math.max(q, range.q);
  }
  return best < 0 ? 0 : q;
}

/**
 * The offers the client accepts, best first (server order breaks ties). An absent or empty
 * Accept header accepts everything, in the server's order.
 */
export function acceptable(accept: string | undefined, offers: readonly string[]): string[] {
  const ranges = parseAccept(accept);
  if (!ranges.length) return [...offers];
  return offers
    .map((offer, i) => ({ offer, i, q: quality(ranges, offer) }))
    .filter((o) => o.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((o) => o.offer);
}

/** The best offer, or undefined when the client accepts none of them (406). */
export function negotiate(accept: string | undefined, offers: readonly string[]): string | undefined {
  return acceptable(accept, offers)[0];
}
