import { findSecrets, type SecretMatch } from './secret/exposure.ts';
import { codePoints } from './text.ts';

/**
 * Readers quote transcript text (a prompt, an error line, the context around a span), and
 * transcripts hold secrets. Every text a reader stores goes through here: each span the secret
 * reader's patterns find is replaced by `[redacted <kind>, <n> chars]`, so the graph says what
 * was there and how long it was, never what it was.
 */

/** The text of `text` between UTF-16 indices `from` and `to`, with `secrets` (found in all of `text`) redacted. */
export function excerpt(text: string, from: number, to: number, secrets: readonly SecretMatch[] = findSecrets(text)): string {
  let out = '';
  let at = from;
  for (const s of secrets) {
    if (s.end <= from || s.start >= to) continue;
    const start = Math.max(s.start, from);
    const end = Math.min(s.end, to);
    out += text.slice(at, start) + marker(s.kind, codePoints(text.slice(start, end)));
    at = end;
  }
  return out + text.slice(at, to);
}

/** A whole string, redacted. */
export function redact(text: string): string {
  return excerpt(text, 0, text.length);
}

export function marker(kind: string, length: number): string {
  return `[redacted ${kind}, ${length} chars]`;
}
