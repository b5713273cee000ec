import type { Term } from './terms.ts';

/**
 * N-Quads lines split into their terms, as N-Triples text. Graph files are N-Quads the emitter
 * wrote, so a line is read without building term objects: each term stays the exact text that
 * was stored, and only its kind is told apart (IRI, blank node, literal, triple term).
 */

/** The terms of one statement as N-Triples text; `g` is absent in the default graph. */
export interface QuadText {
  s: string;
  p: string;
  o: string;
  g?: string;
}

export class NQuadsSyntaxError extends Error {}

/**
 * Subject, predicate and object of one line of a graph file Weave wrote, `<s> <p> o <g> .`, where
 * subject, predicate and graph are IRIs (which hold no space); undefined for any other line.
 */
export function splitQuad(line: string): [Term, Term, Term] | undefined {
  if (!line.startsWith('<') || !line.endsWith('> .')) return undefined;
  const s = line.indexOf('> ');
  const p = line.indexOf('> ', s + 2);
  const g = line.lastIndexOf(' <');
  if (s === -1 || p === -1 || g <= p + 2 || line[s + 2] !== '<') return undefined;
  return [line.slice(0, s + 1) as Term, line.slice(s + 2, p + 1) as Term, line.slice(p + 2, g) as Term];
}

/** Whether a term's text is an RDF 1.2 triple term `<<( s p o )>>`. */
export function isTripleTerm(term: string): boolean {
  return term.startsWith('<<(');
}

/**
 * The terms of one N-Quads (or N-Triples) line, or undefined for a blank or comment line.
 * Throws `NQuadsSyntaxError` naming the column for anything else that is not a statement.
 */
export function parseQuadLine(line: string): QuadText | undefined {
  const terms: string[] = [];
  let i = skipSpace(line, 0);
  while (i < line.length && line[i] !== '.' && line[i] !== '#') {
    const end = termEnd(line, i);
    terms.push(line.slice(i, end));
    i = skipSpace(line, end);
  }
  if (!terms.length && (i >= line.length || line[i] === '#')) return undefined;
  if (line[i] !== '.') throw new NQuadsSyntaxError(`column ${i + 1}: a statement ends with "."`);
  const rest = skipSpace(line, i + 1);
  if (rest < line.length && line[rest] !== '#') throw new NQuadsSyntaxError(`column ${rest + 1}: text after the final "."`);
  if (terms.length !== 3 && terms.length !== 4) throw new NQuadsSyntaxError(`a statement has 3 or 4 terms, not ${terms.length}`);
  return { s: terms[0], p: terms[1], o: terms[2], g: terms[3] };
}

/** The three terms inside a triple term `<<( s p o )>>`. */
export function tripleTermParts(term: string): [string, string, string] {
  if (!isTripleTerm(term) || !term.endsWith(')>>')) throw new NQuadsSyntaxError(`not a triple term: ${describe(term)}`);
  const inner = term.slice(3, -3);
  const parts: string[] = [];
  let i = skipSpace(inner, 0);
  while (i < inner.length) {
    const end = termEnd(inner, i);
    parts.push(inner.slice(i, end));
    i = skipSpace(inner, end);
  }
  if (parts.length !== 3) throw new NQuadsSyntaxError(`a triple term holds 3 terms, not ${parts.length}`);
  return parts as [string, string, string];
}

/** One N-Quads line from terms (the graph left out for the default graph). */
export function quadLine(q: QuadText): string {
  return q.g ? `${q.s} ${q.p} ${q.o} ${q.g} .\n` : `${q.s} ${q.p} ${q.o} .\n`;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  return i;
}

/** The index just past the term that starts at `i`. */
function termEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '<') {
    if (text.startsWith('<<(', i)) {
      let j = skipSpace(text, i + 3);
      for (let k = 0; k < 3; k++) j = skipSpace(text, termEnd(text, j));
      if (!text.startsWith(')>>', j)) throw new NQuadsSyntaxError(`column ${j + 1}: a triple term ends with ")>>"`);
      return j + 3;
    }
    const close = text.indexOf('>', i + 1);
    if (close === -1) throw new NQuadsSyntaxError(`column ${i + 1}: an IRI is not closed`);
    return close + 1;
  }
  if (c === '"') {
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    if (j >= text.length) throw new NQuadsSyntaxError(`column ${i + 1}: a literal is not closed`);
    j++;
    if (text[j] === '@') {
      j++;
      while (j < text.length && /[A-Za-z0-9-]/.test(text[j])) j++;
    } else if (text.startsWith('^^<', j)) {
      const close = text.indexOf('>', j + 3);
      if (close === -1) throw new NQuadsSyntaxError(`column ${j + 1}: a datatype IRI is not closed`);
      j = close + 1;
    }
    return j;
  }
  if (text.startsWith('_:', i)) {
    let j = i + 2;
    while (
      j < text.length &&
      text[j] !== ' ' &&
      text[j] !== '\t' &&
      text[j] !== ')' &&
      !(text[j] === '.' && (j + 1 >= text.length || text[j + 1] === ' '))
    )
      j++;
    return j;
  }
  throw new NQuadsSyntaxError(`column ${i + 1}: no term starts with ${JSON.stringify(c ?? 'the end of the line')}`);
}

/** A term named in an error: its kind only, never its text (literals hold transcript content). */
function describe(term: string): string {
  return term.startsWith('"') ? 'a literal' : term.startsWith('<') ? 'an IRI' : 'a term';
}
