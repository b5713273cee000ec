import { CONTENT_KINDS, contentPolicy, DEFAULT_POLICY, type ContentPolicy } from '../emit/content.ts';
import { CliError } from './options.ts';

/** The content-policy options of `weave ingest`. */
export const CONTENT_OPTIONS = {
  content: { type: 'string', multiple: true },
  'text-limit': { type: 'string' },
  'redact-secrets': { type: 'boolean' },
} as const;

const DEFAULTS = CONTENT_KINDS.filter((k) => DEFAULT_POLICY.modes[k] !== 'keep')
  .map((k) => `${k}=${DEFAULT_POLICY.modes[k]}`)
  .join(', ');

export const CONTENT_HELP = `  --content KIND=MODE
                     how much of one kind of text to store, repeatable. MODE: keep (store it,
                     cut at the text limit), hash (only its length and SHA-256) or omit (not
                     carried; its length and SHA-256 stay). KIND: ${CONTENT_KINDS.slice(0, 4).join(', ')},
                     ${CONTENT_KINDS.slice(4).join(', ')}.
                     Default: keep, except ${DEFAULTS}
  --text-limit BYTES store texts longer than this cut to it, with their full length and
                     SHA-256 (default ${DEFAULT_POLICY.textLimit}, 128 KiB; 0: no limit)
  --redact-secrets   store no secret at all: every text of every line is stored
                     with the secrets the secret reader finds replaced by
                     [redacted <kind>, <n> chars], and no archive is kept (it is the
                     transcript byte for byte); weave verify redacts the source the
                     same way before it compares`;

export function policyFrom(values: { content?: string[]; 'text-limit'?: string; 'redact-secrets'?: boolean }): ContentPolicy {
  const limit = values['text-limit'];
  if (limit !== undefined && !/^\d+$/.test(limit)) throw new CliError(`--text-limit must be a number of bytes, not "${limit}"`, 2);
  try {
    const policy = contentPolicy(values.content ?? [], limit === undefined ? undefined : Number(limit));
    return values['redact-secrets'] ? { ...policy, redactSecrets: true } : policy;
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
}
