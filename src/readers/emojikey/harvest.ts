import type { Fields, Finding, Reader } from '../reader.ts';
import { authoredSites, isTool, toolInputSites, toolResultSites, toolUseOf, toolUses, type SessionSpine, type TextSite } from '../spine.ts';
import { findKeys, findUpdates, freeKey, type EmojiKey, type EmojiKeyUpdate, type Leg } from './parse.ts';

/**
 * emojikey/harvest: every emojikey in a session, wherever it was written: in authored text, in
 * tool results (get_emojikey, the history, initialize_conversation), and as the `emojikey`
 * input of a set_emojikey call, the most reliable live key. The initialize_conversation
 * preamble's own examples are marked quoted: they teach the format and say nothing of this
 * conversation. UPDATE statements (a change to one dimension path) are reported in the same
 * places as findings of their own type, emojikey/update; the bracketed legs of an update are
 * part of it, not a key of their own.
 */
export const emojikeyHarvest: Reader = {
  name: 'emojikey/harvest',
  version: '2',
  description:
    'Finds emojikeys (v1 free strings, v2, v3 numeric, summary, superkey and arrow forms) and UPDATE statements (as emojikey/update), and splits them into typed legs.',
  read(spine: SessionSpine): Finding[] {
    const findings: Finding[] = [];
    for (const site of authoredSites(spine)) {
      const { keys, updates } = scan(site.text);
      for (const key of keys) findings.push(finding(site, key, {}));
      for (const update of updates) findings.push(updateFinding(site, update, {}));
    }

    for (const site of toolResultSites(spine)) {
      const use = toolUseOf(spine, site.result!);
      const preambleEnd = isTool(use?.toolName, 'initialize_conversation') ? endOfPreamble(site.text) : -1;
      const { keys, updates } = scan(site.text);
      for (const key of keys) {
        const period = AGGREGATE_PERIOD[lineLabel(site.text, key.start)];
        findings.push(finding(site, key, { quoted: key.start < preambleEnd, period, used: use?.iri }));
      }
      for (const update of updates) findings.push(updateFinding(site, update, { quoted: update.start < preambleEnd, used: use?.iri }));
    }

    for (const use of toolUses(spine)) {
      if (!isTool(use.toolName, 'set_emojikey')) continue;
      for (const site of toolInputSites(use)) {
        if (site.pointer !== '/emojikey') continue;
        const { keys, updates } = scan(site.text);
        const free = keys.length || updates.length ? [] : [freeKey(site.text)].filter((k) => k !== undefined);
        for (const key of [...keys, ...free]) findings.push(finding(site, key, {}));
        for (const update of updates) findings.push(updateFinding(site, update, {}));
      }
    }
    return findings;
  },
};

/** The keys and UPDATE statements of a text; a key lying inside a statement is part of it. */
function scan(text: string): { keys: EmojiKey[]; updates: EmojiKeyUpdate[] } {
  const updates = findUpdates(text);
  const keys = findKeys(text).filter((k) => !updates.some((u) => u.start <= k.start && k.end <= u.end));
  return { keys, updates };
}

/** The lines initialize_conversation writes after its preamble, the first of which ends it. */
const AFTER_PREAMBLE = [
  'Latest Key (',
  'Aggregated Keys:',
  'Lifetime (all-time):',
  '90-day:',
  '30-day:',
  '7-day:',
  '24-hour:',
  'Legacy SuperKeys',
  'Legacy Recent Keys',
  'No keys yet',
  'Conversation ID:',
];

function endOfPreamble(text: string): number {
  const found = AFTER_PREAMBLE.map((m) => text.indexOf(m)).filter((i) => i >= 0);
  return found.length ? Math.min(...found) : text.length;
}

/** The labels initialize_conversation puts before each aggregated key. */
const AGGREGATE_PERIOD: Record<string, string> = {
  'Lifetime (all-time):': 'lifetime',
  '90-day:': '90d',
  '30-day:': '30d',
  '7-day:': '7d',
  '24-hour:': '24h',
};

/** The text between the start of the line and `index`, trimmed. */
function lineLabel(text: string, index: number): string {
  return text.slice(text.lastIndexOf('\n', index - 1) + 1, index).trim();
}

const SIGNATURE: Record<string, string> = { ME: 'sig_me', CONTENT: 'sig_content', YOU: 'sig_you', ABSTRACT: 'sig_abstract' };

function finding(site: TextSite, key: EmojiKey, context: { quoted?: boolean; period?: string; used?: string }): Finding {
  const body: Fields = {
    '@type': 'EmojikeyReading',
    keyText: site.text.slice(key.start, key.end),
    generation: key.generation,
    quoted: context.quoted ?? false,
    joiner: key.joiner,
    keyPeriod: key.period ?? context.period,
    superkeyCount: key.superkeyCount,
    legCount: key.legs.length,
  };
  for (const component of key.components) {
    const field = SIGNATURE[component.label];
    if (!field) continue;
    // A label written twice (rare) keeps both texts, in order.
    body[field] = body[field] === undefined ? component.text : `${body[field]}|${component.text}`;
  }
  if (key.legs.length) body.leg = key.legs.map(legFields);
  return { site, start: key.start, end: key.end, body, used: context.used ? [context.used] : undefined };
}

function legFields(leg: Leg, index: number): Fields {
  return {
    '@type': 'EmojikeyLeg',
    legIndex: index,
    component: leg.component,
    legText: leg.text,
    legForm: leg.form,
    dimension: leg.dimension,
    poles: leg.poles,
    poleA: leg.poleA,
    poleB: leg.poleB,
    magnitude: leg.magnitude,
    angle: leg.angle,
    legConfidence: leg.confidence,
    trend: leg.trend,
    direction: leg.direction,
    lean: leg.lean,
  };
}

/** An UPDATE statement: the path it changes, and either its before and after legs or its new legs. */
function updateFinding(site: TextSite, update: EmojiKeyUpdate, context: { quoted?: boolean; used?: string }): Finding {
  const body: Fields = {
    '@type': 'EmojikeyUpdate',
    updateText: site.text.slice(update.start, update.end),
    updatePath: update.path,
    updateForm: update.form,
    quoted: context.quoted ?? false,
    legBefore: update.before && legFields(update.before, 0),
    legAfter: update.after && legFields(update.after, 0),
  };
  if (update.legs.length) body.leg = update.legs.map(legFields);
  return { site, start: update.start, end: update.end, type: 'emojikey/update', body, used: context.used ? [context.used] : undefined };
}
