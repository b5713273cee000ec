import { CONTENT_KINDS, contentPolicy, DEFAULT_POLICY, type ContentPolicy } from '../emit/content.ts';
import { CliError } from './options.ts';

/** The content-policy options of `weave ingest`. */
export const CONTENT_OPTIONS = {
  content: { type: 'string', multiple: true },
  'text-limit': { type: 'string' },
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
                     SHA-256 (default ${DEFAULT_POLICY.textLimit}, 128 KiB; 0: no limit)`;

export function policyFrom(values: { content?: string[]; 'text-limit'?: string }): ContentPolicy {
  const limit = values['text-limit'];
  if (limit !== undefined && !/^\d+$/.test(limit)) throw new CliError(`--text-limit must be a number of bytes, not "${limit}"`, 2);
  try {
    return contentPolicy(values.content ?? [], limit === undefined ? undefined : Number(limit));
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
}
