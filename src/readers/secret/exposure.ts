import { createHmac } from 'node:crypto';
import type { Finding, ReadContext, Reader } from '../reader.ts';
import {
  authoredSites,
  type LineSite,
  malformedLineSites,
  toolInputSites,
  toolResultSites,
  toolUseOf,
  toolUses,
  type SessionSpine,
  type TextSite,
} from '../spine.ts';
import { codePoints } from '../text.ts';

/**
 * secret/exposure: credentials in a session's texts: a prompt a person typed or pasted, the
 * model's text, a tool's input (a command line, a file written) and its output (a file read, an
 * environment dump), and the raw text of a line that is not a record. Found by well-known formats; the
 * body keeps the kind, the length and a short digest keyed with the store's key (so the same
 * secret is recognisable across the store's sessions, but a digest cannot be checked against
 * guesses without the key) and never the secret: the annotation has a position selector but no
 * quote. The same patterns redact every quote every reader stores (../redact.ts).
 */
export const secretExposure: Reader = {
  name: 'secret/exposure',
  // 3: prompts and the model's texts are read too, not only tool input and output. 4: malformed lines too.
  version: '4',
  description:
    'Finds API keys, tokens, private keys and passwords in prompts, texts, tool input and output and malformed lines by well-known patterns; records kind and digest only.',
  read(spine: SessionSpine, { secretKey }: ReadContext): Finding[] {
    const findings: Finding[] = [];
    const add = (site: TextSite | LineSite, toolName: string | undefined, used: string[] | undefined) => {
      for (const s of findSecrets(site.text)) {
        const secret = site.text.slice(s.start, s.end);
        findings.push({
          site,
          start: s.start,
          end: s.end,
          quote: false,
          body: { secretKind: s.kind, secretDigest: secretDigest(secret, secretKey), secretLength: codePoints(secret), toolName },
          used,
          confidence: s.confidence,
        });
      }
    };
    for (const site of toolResultSites(spine)) {
      const use = toolUseOf(spine, site.result!);
      add(site, use?.toolName, use ? [use.iri] : undefined);
    }
    for (const use of toolUses(spine)) for (const site of toolInputSites(use)) add(site, use.toolName, undefined);
    for (const site of authoredSites(spine)) add(site, undefined, undefined);
    for (const site of malformedLineSites(spine)) add(site, undefined, undefined);
    return findings;
  },
};

/**
 * `hmac-sha256:` and the first 16 hex digits of the secret's HMAC under the store's key: equal
 * secrets match within the store; without the key, a digest confirms no guess (an unkeyed hash
 * of a short password is checked offline in moments).
 */
export function secretDigest(secret: string, key: Buffer): string {
  return `hmac-sha256:${createHmac('sha256', key).update(secret).digest('hex').slice(0, 16)}`;
}

export interface SecretMatch {
  kind: string;
  start: number;
  end: number;
  confidence: number;
}

interface Pattern {
  kind: string;
  regex: RegExp;
  /** The capture group holding the secret itself (0: the whole match). */
  group: number;
  confidence: number;
  /** Text the pattern cannot match without: a quick look for it spares the pattern's slow scan of most texts. */
  requires?: RegExp;
}

/** The names a password-like value is assigned to end in one of these (any case). */
const PASSWORD_KEYWORDS = 'password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key';

/**
 * Formats, most specific first: a match overlapping an earlier one is dropped, so a key in an
 * `API_KEY=…` assignment is reported once, as what it is.
 */
const PATTERNS: Pattern[] = [
  {
    kind: 'private-key',
    regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/dg,
    group: 0,
    confidence: 0.95,
    requires: /-----BEGIN /,
  },
  { kind: 'anthropic-api-key', regex: /\bsk-ant-[a-z]{3,8}\d{2}-[A-Za-z0-9_-]{20,}/dg, group: 0, confidence: 0.95, requires: /sk-ant-/ },
  // OpenAI keys carry "T3BlbkFJ", base64 of "OpenAI".
  {
    kind: 'openai-api-key',
    regex: /\bsk-[A-Za-z0-9_-]{0,80}T3BlbkFJ[A-Za-z0-9_-]{16,}/dg,
    group: 0,
    confidence: 0.95,
    requires: /T3BlbkFJ/,
  },
  {
    kind: 'github-token',
    regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})/dg,
    group: 0,
    confidence: 0.95,
    requires: /gh[pousr]_|github_pat_/,
  },
  { kind: 'gitlab-token', regex: /\bglpat-[A-Za-z0-9_-]{20,}/dg, group: 0, confidence: 0.95, requires: /glpat-/ },
  { kind: 'stripe-key', regex: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/dg, group: 0, confidence: 0.95, requires: /k_(?:live|test)_/ },
  { kind: 'slack-token', regex: /\bxox[abposr]-[A-Za-z0-9-]{10,}/dg, group: 0, confidence: 0.9, requires: /xox[abposr]-/ },
  {
    kind: 'slack-webhook',
    regex: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]+/dg,
    group: 0,
    confidence: 0.9,
    requires: /hooks\.slack\.com/,
  },
  {
    kind: 'aws-access-key-id',
    regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/dg,
    group: 0,
    confidence: 0.9,
    requires: /AKIA|ASIA|ABIA|ACCA/,
  },
  { kind: 'google-api-key', regex: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/dg, group: 0, confidence: 0.9, requires: /AIza/ },
  { kind: 'npm-token', regex: /\bnpm_[A-Za-z0-9]{36}\b/dg, group: 0, confidence: 0.9, requires: /npm_/ },
  { kind: 'jwt', regex: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/dg, group: 0, confidence: 0.7, requires: /eyJ/ },
  {
    kind: 'url-credentials',
    regex: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/"'<>]+:([^\s@/"'<>]{3,})@[^\s"'<>]/dg,
    group: 1,
    confidence: 0.8,
    requires: /:\/\//,
  },
  { kind: 'bearer-token', regex: /\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)/dg, group: 1, confidence: 0.7, requires: /Bearer/ },
  // `password = "…"`, `API_KEY: …`, `"client_secret": "…"`: the name must end in the keyword.
  {
    kind: 'password',
    regex: new RegExp(`\\b[A-Za-z0-9_.-]*?(?:${PASSWORD_KEYWORDS})["']?[ \\t]*(?:=|:=|:)[ \\t]*["']?([^\\s"'\`<>,;(){}[\\]]{8,})`, 'dgi'),
    group: 1,
    confidence: 0.6,
    requires: new RegExp(PASSWORD_KEYWORDS, 'i'),
  },
];

/** Values that name or stand in for a secret rather than being one, whole or in part. */
const PLACEHOLDER =
  /^(?:\*+|x+|\.+|•+|\$\{?[A-Za-z_][\w.]*\}?|%[A-Za-z_]+%|null|none|undefined|true|false)$|your[-_ ]|[-_]here$|xxxx|<[^>]*>|\{\{|placeholder|example|changeme|dummy|redacted|\*{3}/i;

export function findSecrets(text: string): SecretMatch[] {
  const found: SecretMatch[] = [];
  for (const { kind, regex, group, confidence, requires } of PATTERNS) {
    if (requires && !requires.test(text)) continue;
    // matchAll works on a copy, so the shared pattern objects keep no state between calls.
    for (const m of text.matchAll(regex)) {
      const value = m[group];
      if (!value) continue;
      const [start, end] = m.indices![group]!;
      if (PLACEHOLDER.test(value) || (kind === 'password' && !looksSecret(value))) continue;
      if (found.some((f) => f.start < end && start < f.end)) continue;
      found.push({ kind, start, end, confidence });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** A generic value must mix letters with digits or symbols: `getToken` or `self.password` is code. */
function looksSecret(value: string): boolean {
  return /[A-Za-z]/.test(value) && /[0-9!#$%&*+=?@^~]/.test(value) && !/^[A-Za-z_][\w]*\.[\w.]+$/.test(value);
}
