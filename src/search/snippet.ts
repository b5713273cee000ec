/**
 * A hit's snippet: the window of its text where the matched terms are. Its own module, as the
 * command line's light client cuts a snippet to the terminal by the same rule without the index.
 */

/** A character of a word: a term stands as a word where none is before it (and, on the page, after it). */
export const WORD_CHARACTER = '[\\p{L}\\p{N}_]';
const IN_WORD = new RegExp(WORD_CHARACTER, 'u');

/**
 * Some 160 characters on one line, where the most of the matched terms are: a window opening on
 * the first place it holds that many. A term counts where a word begins with it (`git` in "git
 * worktree", not in "github"), else anywhere, as the index matched it.
 */
export function snippet(text: string, terms: string[], width = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = sameLength(flat);
  const at = densest(placesOf(lower, terms), width - Math.floor(width / 3));
  // A third of the width before the first term, less where the text ends sooner: the width filled.
  const start = Math.max(0, Math.min(at - Math.floor(width / 3), flat.length - width));
  const end = Math.min(flat.length, start + width);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

/** `text` in lower case, place for place: a character whose lower case is longer (`İ`) is kept as it is. */
function sameLength(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  return Array.from(text, (c) => {
    const l = c.toLowerCase();
    return l.length === c.length ? l : c;
  }).join('');
}

/**
 * Where each term is in `lower`, as [place, family] in text order: at word starts, or anywhere for
 * a term found at none. Terms that are forms of one word (`worktree`, `worktrees`, "`worktree")
 * are one family, so a window counts the query's words, not their forms.
 */
function placesOf(lower: string, terms: string[]): [number, number][] {
  const places: [number, number][] = [];
  const family = families(terms);
  terms.forEach((term, t) => {
    const word = term.toLowerCase();
    if (!word) return;
    const found: number[] = [];
    const inside: number[] = [];
    // A long text's first thousand places of a term are enough to choose from.
    for (let i = lower.indexOf(word), n = 0; i >= 0 && n < 1000; i = lower.indexOf(word, i + 1), n++)
      (i === 0 || !IN_WORD.test(lower[i - 1]) ? found : inside).push(i);
    for (const i of found.length ? found : inside.slice(0, 1)) places.push([i, family[t]]);
  });
  return places.sort((x, y) => x[0] - y[0]);
}

/** Each term's family: the shortest of the terms its bare word (no punctuation around it) begins with. */
function families(terms: string[]): number[] {
  const bare = terms.map((t) => t.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
  return bare.map((word, t) => {
    let root = t;
    bare.forEach((other, o) => {
      if (other && word.startsWith(other) && other.length < bare[root].length) root = o;
    });
    return root;
  });
}

/** The first place from which `span` characters hold the most families of terms; 0 when there is none. */
function densest(places: [number, number][], span: number): number {
  let best = 0;
  let at = places[0]?.[0] ?? 0;
  const inWindow = new Map<number, number>();
  for (let first = 0, last = 0; first < places.length; first++) {
    for (; last < places.length && places[last][0] < places[first][0] + span; last++)
      inWindow.set(places[last][1], (inWindow.get(places[last][1]) ?? 0) + 1);
    if (inWindow.size > best) [best, at] = [inWindow.size, places[first][0]];
    const term = places[first][1];
    const n = inWindow.get(term)! - 1;
    if (n) inWindow.set(term, n);
    else inWindow.delete(term);
  }
  return at;
}

/**
 * A snippet cut to `width` characters where its terms are, the ellipses of the text it came from
 * kept: what a terminal of that width shows of a hit.
 */
export function shortened(shown: string, terms: string[], width: number): string {
  if (shown.length <= width) return shown;
  const [before, after] = [shown.startsWith('…'), shown.endsWith('…')];
  const inner = shown.slice(before ? 1 : 0, after ? -1 : undefined);
  let cut = snippet(inner, terms, Math.max(1, width - 2));
  if (before && !cut.startsWith('…')) cut = `…${cut}`;
  if (after && !cut.endsWith('…')) cut = `${cut}…`;
  return cut;
}
