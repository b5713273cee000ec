/**
 * Reading SPARQL text without parsing it, on either thread: what the scanners here (the update
 * dataset rewrite in the worker, the query depth guard on the main thread) must skip whole, so
 * that a brace, a `;` or a keyword inside a comment, a string or an IRI does not count. Each
 * step is linear in what it skips, so a scan of the largest body is linear too.
 */

/** Past the comment, string or IRI that starts at `i`, whose braces and `;` do not count; `i` when none does. */
export function skipOpaque(text: string, i: number): number {
  const c = text[i];
  if (c === '#') {
    const nl = text.indexOf('\n', i);
    return nl < 0 ? text.length : nl + 1;
  }
  if (c === '"' || c === "'") return skipString(text, i);
  if (c === '<') return skipIri(text, i);
  return i;
}

function skipString(text: string, i: number): number {
  const q = text[i];
  const long = text.startsWith(q.repeat(3), i);
  let j = i + (long ? 3 : 1);
  while (j < text.length) {
    if (text[j] === '\\') j += 2;
    else if (long ? text.startsWith(q.repeat(3), j) : text[j] === q) return j + (long ? 3 : 1);
    else if (!long && text[j] === '\n') return j;
    else j++;
  }
  return j;
}

// Sticky, so a match is tried at `i` without copying the text after it; it stops at the next `<`.
const IRI = /<[^<>"{}|^`\\\x00-\x20]*>/y;

/** An IRI reference, or a lone `<` (a comparison), which is one character. */
function skipIri(text: string, i: number): number {
  IRI.lastIndex = i;
  return IRI.test(text) ? IRI.lastIndex : i + 1;
}

/** Whether `iri` can be written as a SPARQL IRI reference as it is (no character IRIREF forbids). */
export function writableIri(iri: string): boolean {
  return !/[<>"{}|^`\\\x00-\x20]/.test(iri);
}

/** A VALUES block binding `variable` to each of `iris`, leaving out any that cannot be written as an IRI. */
export function iriValues(variable: string, iris: Iterable<string>): string {
  return `VALUES ${variable} { ${[...iris]
    .filter(writableIri)
    .map((iri) => `<${iri}>`)
    .join(' ')} }`;
}
