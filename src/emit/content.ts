import { createHash } from 'node:crypto';
import { jsonLiteral, jsonText } from '../rdf/json.ts';
import { contentIri } from '../rdf/iri.ts';
import { int, str, type Term, type Triple } from '../rdf/terms.ts';
import { a, weave } from '../rdf/vocab.ts';

/**
 * Content states: every stored text of a transcript (message text, thinking, signatures, tool
 * input and output, attachment payloads, media) has a state from the glossary's states saying how
 * much of it the graph holds. Whatever the policy keeps, the byte length of the original and, for
 * anything not kept whole, its SHA-256 stay in the graph, with a JSON Pointer to where the
 * original sits in its record, so `weave verify` can prove them against the source. They are
 * stated on a Content node, except for a text stored whole where its dialect's conventions put
 * it: its state, length and pointer then follow from the graph (queries/stored-texts.rq).
 */

/** The glossary's content states, with the individual each is in the ontology. */
export const CONTENT_STATES = {
  available: 'ContentAvailable',
  truncated: 'ContentTruncated',
  hash_only: 'ContentHashOnly',
  size_only: 'ContentSizeOnly',
  omitted: 'ContentOmitted',
  unavailable: 'ContentUnavailable',
  redacted: 'ContentRedacted',
} as const;

/** What kind of content a text is, for the policy. */
export const CONTENT_KINDS = [
  'text', //          message text, notices, summaries and titles, hook output, file and memory text, malformed lines
  'thinking', //      thinking text
  'signature', //     thinking signatures
  'redacted', //      redacted thinking payloads
  'media', //         image and document bytes
  'toolInput', //     tool_use input JSON, and a sub-agent's .meta.json, which restates it
  'toolOutput', //    tool_result content: what the model was shown
  'toolUseResult', // the structured toolUseResult JSON beside it
  'payload', //       attachment and progress payload JSON
] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

/** keep: store it (cut at the text limit); hash: only length and digest; omit: deliberately not carried. */
const CONTENT_MODES = ['keep', 'hash', 'omit'] as const;
type ContentMode = (typeof CONTENT_MODES)[number];

export interface ContentPolicy {
  /**
   * Texts longer than this many UTF-8 bytes are stored cut to it (0: no limit). Media kept by
   * choice are never cut: half an image is no image.
   */
  textLimit: number;
  modes: Record<ContentKind, ContentMode>;
  /**
   * `--redact-secrets`: every string of every line is stored with its secrets redacted, as
   * reader quotes are (readers/redact.ts), and no archive is kept (it would be the transcript
   * byte for byte).
   */
  redactSecrets?: boolean;
}

/**
 * 128 KiB. Claude Code cuts the tool output it shows the model at 30,000 characters, which is at
 * most 120,000 UTF-8 bytes, so no text the model actually read is ever cut by default; what is
 * longer is whole-file copies inside `toolUseResult` (Edit's `originalFile`, Write's content) and
 * pasted dumps, which a graph is rarely asked for and whose length and digest stay. In the
 * shared corpus one text of 24,000 is over it.
 */
const DEFAULT_TEXT_LIMIT = 128 * 1024;

/**
 * The default policy: everything kept up to the limit, except thinking signatures and redacted
 * thinking (opaque provider blobs, an eighth of transcript bytes) which are omitted with their
 * size and digest, and images and documents, whose digest is the join surface with other graphs.
 */
export const DEFAULT_POLICY: ContentPolicy = {
  textLimit: DEFAULT_TEXT_LIMIT,
  modes: {
    text: 'keep',
    thinking: 'keep',
    signature: 'omit',
    redacted: 'omit',
    media: 'hash',
    toolInput: 'keep',
    toolOutput: 'keep',
    toolUseResult: 'keep',
    payload: 'keep',
  },
};

/** The policy from `--content KIND=MODE` settings and `--text-limit`, on top of the default. */
export function contentPolicy(settings: string[] = [], textLimit?: number): ContentPolicy {
  const policy: ContentPolicy = { textLimit: textLimit ?? DEFAULT_TEXT_LIMIT, modes: { ...DEFAULT_POLICY.modes } };
  if (!Number.isSafeInteger(policy.textLimit) || policy.textLimit < 0)
    throw new Error(`the text limit must be a whole number of bytes, not "${textLimit}"`);
  for (const setting of settings) {
    const [kind, mode] = setting.split('=');
    if (!(CONTENT_KINDS as readonly string[]).includes(kind))
      throw new Error(`unknown content kind "${kind}" in "${setting}"; kinds are ${CONTENT_KINDS.join(', ')}`);
    if (!(CONTENT_MODES as readonly string[]).includes(mode))
      throw new Error(`unknown content mode "${mode}" in "${setting}"; modes are ${CONTENT_MODES.join(', ')}`);
    policy.modes[kind as ContentKind] = mode as ContentMode;
  }
  return policy;
}

/** A short stable text naming a policy, so a store built under another one is rebuilt. */
export function contentPolicyKey(policy: ContentPolicy = DEFAULT_POLICY): string {
  const secrets = policy.redactSecrets ? `;${SECRETS_REDACTED}` : '';
  return `content(limit=${policy.textLimit};${CONTENT_KINDS.map((k) => `${k}=${policy.modes[k]}`).join(';')}${secrets})`;
}

/** In a graph's stamp: built with `--redact-secrets` (verify redacts the source the same way before it compares). */
export const SECRETS_REDACTED = 'secrets=redacted';

/**
 * How a content's bytes are measured: a string's UTF-8 bytes, a JSON value's serialization
 * (`jsonText`, which is what its literal holds), or the bytes a base64 string decodes to.
 */
type Encoding = 'utf8' | 'json' | 'base64';

/** The property each content lives under fixes how its bytes are measured. */
const ENCODING: Record<string, Encoding> = {
  toolInput: 'json',
  toolUseResult: 'json',
  attachmentJson: 'json',
  progressJson: 'json',
  mediaData: 'base64',
  agentMetaJson: 'json',
};

export function encodingOf(propertyLocal: string): Encoding {
  return ENCODING[propertyLocal] ?? 'utf8';
}

/** The bytes of a value as `encoding` measures them; undefined when the value is of another shape. */
export function measure(value: unknown, encoding: Encoding): Buffer | undefined {
  if (encoding === 'json') return value === undefined ? undefined : Buffer.from(jsonText(value), 'utf8');
  if (typeof value !== 'string') return undefined;
  return encoding === 'base64' ? Buffer.from(value, 'base64') : Buffer.from(value.isWellFormed() ? value : value.toWellFormed(), 'utf8');
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Where texts that are no record's field are declared: a malformed line's text is its line whole
 * (pointer ""), compared with the line as it is, not parsed; a side file's texts (a sub-agent's
 * `.meta.json`) are declared at line 0 of their transcript, with pointers into the side file.
 */
export const WHOLE_LINE = '';
export const SIDE_FILE_LINE = 0;

/** RFC 6901: one reference token of a JSON Pointer. */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The value a JSON Pointer names in `root`, or undefined. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let at: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at)) at = at[Number(token)];
    else if (at && typeof at === 'object') at = (at as Record<string, unknown>)[token];
    else return undefined;
  }
  return at;
}

/** The local name of a weave: property term. */
export function localName(property: Term): string {
  return property.slice(property.lastIndexOf('#') + 1, -1);
}

export interface ContentSpec {
  kind: ContentKind;
  /** Where the value sits in its record (RFC 6901), for verify. */
  pointer: string;
  /** Several values of one property on one subject are told apart by index. */
  index?: number;
  /**
   * The pointer is the one the dialect's conventions give this property on this subject (see
   * queries/stored-texts.rq): a text stored whole there needs no Content node, since its state
   * (available), its byte length (its literal's) and its pointer all follow from the graph.
   */
  conventional?: boolean;
}

/**
 * Stores `value` as `subject property …` under `policy`, with its Content node. `value` is a
 * string for utf8 and base64 properties and any JSON value for JSON ones.
 */
export function emitContent(out: Triple[], policy: ContentPolicy, subject: Term, property: Term, value: unknown, spec: ContentSpec): void {
  const local = localName(property);
  const encoding = encodingOf(local);
  const bytes = measure(value, encoding);
  if (!bytes) throw new Error(`content ${local} at ${spec.pointer} is not ${encoding === 'json' ? 'JSON' : 'a string'}`);
  const mode = policy.modes[spec.kind];
  const text = mode === 'keep' && encoding === 'json' ? jsonText(value) : (value as string);
  const limit = policy.textLimit;
  const whole = mode === 'keep' && (encoding === 'base64' || !limit || Buffer.byteLength(text, 'utf8') <= limit);
  if (whole && spec.conventional && encoding !== 'base64') {
    out.push({ s: subject, p: property, o: encoding === 'json' ? jsonLiteral(value) : str(text) });
    return;
  }
  const node = declare(out, subject, property, spec);
  out.push({ s: node, p: weave.byteLength, o: int(bytes.length) });
  if (mode !== 'keep') {
    out.push({ s: node, p: weave.contentState, o: weave[CONTENT_STATES[mode === 'hash' ? 'hash_only' : 'omitted']] });
    out.push({ s: node, p: weave.sha256, o: str(sha256(bytes)) });
    return;
  }
  if (whole) {
    out.push({ s: node, p: weave.contentState, o: weave[CONTENT_STATES.available] });
    out.push({ s: subject, p: property, o: encoding === 'json' ? jsonLiteral(value) : str(text) });
    return;
  }
  // Cut on a character boundary; a cut JSON text is no longer JSON, so it is stored as a string.
  const kept = cutUtf8(Buffer.from(text, 'utf8'), limit);
  out.push({ s: node, p: weave.contentState, o: weave[CONTENT_STATES.truncated] });
  out.push({ s: node, p: weave.sha256, o: str(sha256(bytes)) });
  out.push({ s: node, p: weave.storedByteLength, o: int(kept.length) });
  out.push({ s: subject, p: property, o: str(kept.toString('utf8')) });
}

/**
 * A content the runtime itself did not write whole: `unavailable` (never written, such as the
 * empty thinking text of newer versions), `redacted` (the provider withheld it), `size_only`
 * (only its length is recorded, such as a tool output persisted to a side file).
 */
export function emitAbsentContent(
  out: Triple[],
  subject: Term,
  property: Term,
  state: 'unavailable' | 'redacted' | 'size_only',
  spec: { pointer: string; index?: number },
  byteLength?: number,
): void {
  const node = declare(out, subject, property, spec);
  out.push({ s: node, p: weave.contentState, o: weave[CONTENT_STATES[state]] });
  if (byteLength !== undefined) out.push({ s: node, p: weave.byteLength, o: int(byteLength) });
}

function declare(out: Triple[], subject: Term, property: Term, spec: { pointer: string; index?: number }): Term {
  const node = contentIri(subject, localName(property), spec.index);
  out.push({ s: subject, p: weave.hasContent, o: node });
  out.push({ s: node, p: a, o: weave.Content });
  out.push({ s: node, p: weave.contentOf, o: property });
  out.push({ s: node, p: weave.jsonPointer, o: str(spec.pointer) });
  return node;
}

/** The longest prefix of `bytes` of at most `limit` bytes that ends on a character boundary. */
export function cutUtf8(bytes: Buffer, limit: number): Buffer {
  if (bytes.length <= limit) return bytes;
  let end = limit;
  // Step back over continuation bytes (10xxxxxx) to the start of the character cut in two.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}
