import { findSecrets, type SecretMatch } from './secret/exposure.ts';
import { codePoints } from './text.ts';
import { jsonText, longNumbers, whileEmitting } from '../rdf/json.ts';

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

/**
 * A transcript line with every string in it redacted (`weave ingest --redact-secrets`): a record's
 * strings each through `redact`, and the record written back as JSON (numbers as the line wrote
 * them); a line that is not JSON, redacted as text. A line without a secret is returned as it is.
 */
export function redactLine(text: string): string {
  if (!findSecrets(text).length && !text.includes('\\')) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return redact(text);
  }
  let changed = false;
  const redacted = mapStrings(value, (s) => {
    const r = redact(s);
    if (r !== s) changed = true;
    return r;
  });
  return changed ? whileEmitting(longNumbers(text), () => jsonText(redacted)) : text;
}

/** `value` with each string in it (not the keys) mapped, walked with a stack of its own: a record may nest deep. */
function mapStrings(value: unknown, map: (s: string) => string): unknown {
  const root = { value };
  const stack: [Record<string, unknown> | unknown[], string | number][] = [[root, 'value']];
  while (stack.length) {
    const [holder, key] = stack.pop()!;
    const v = (holder as Record<string | number, unknown>)[key];
    if (typeof v === 'string') (holder as Record<string | number, unknown>)[key] = map(v);
    else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push([v, i]);
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) stack.push([v as Record<string, unknown>, k]);
  }
  return root.value;
}
