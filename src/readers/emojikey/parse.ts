import { graphemes, isEmoji } from '../text.ts';

/**
 * The emojikey grammar (see ../shared/docs/emojikey.md): finds every key in a text and splits
 * it into legs. Emoji are never matched by a regular expression: legs are cut at the ASCII
 * structure (`[`, `|`, `]`, `∠`, digits, `.`, `:`) and the poles left over are split into
 * grapheme clusters, so FE0F-qualified symbols and ZWJ families stay whole.
 */

type Generation = 'v1' | 'v2' | 'v2-superkey' | 'v3-numeric' | 'v3-arrow' | 'v3-summary' | 'v3-superkey';

export interface Leg {
  /** ME, CONTENT, YOU or ABSTRACT; for v2 keys the part's name (topic, approach, …, collab). */
  component: string;
  /** Place among the component's legs, from 0. */
  order: number;
  text: string;
  form: 'numeric' | 'arrow' | 'emoji';
  /** `cog` of `cog:7∠120`, `Cognitive` of `Cognitive.🧠➡️🔧`. */
  dimension?: string;
  poles?: string;
  poleA?: string;
  poleB?: string;
  magnitude?: number;
  angle?: number;
  /** 0–99, from superscript digits. */
  confidence?: number;
  trend?: string;
  /** Arrow legs: the arrow, and the lean it means (⬅️ −1, ↔️ 0, ➡️ +1). */
  direction?: string;
  lean?: number;
}

interface Component {
  label: string;
  /** The component's raw text: what follows its label inside the brackets. */
  text: string;
}

export interface EmojiKey {
  /** UTF-16 span in the scanned text. */
  start: number;
  end: number;
  generation: Generation;
  /** The separator between segments: `~`, `~~` or `|`. */
  joiner?: string;
  /** A summary wrapper's period (`60d` of `[[60d|…]]]`). */
  period?: string;
  /** A superkey's count (`7` of `[[×7…`). */
  superkeyCount?: number;
  components: Component[];
  legs: Leg[];
}

const LABELS = ['ME', 'CONTENT', 'YOU', 'ABSTRACT'];
const SUPERSCRIPT: Record<string, number> = { '⁰': 0, '¹': 1, '²': 2, '³': 3, '⁴': 4, '⁵': 5, '⁶': 6, '⁷': 7, '⁸': 8, '⁹': 9 };
// 🔄 ("fluctuating") is left out: v2 keys also use it as a pole (`⟨🔍🔄⟩`), and a pole is the safer reading.
const TRENDS = new Set(['↔', '↗', '↘', '→', '←', '↕', '⬆', '⬇', '↙', '↖']);
const DIRECTIONS: Record<string, number> = { '⬅': -1, '↔': 0, '➡': 1 };
const V2_PARTS = ['topic', 'approach', 'goal', 'tone', 'context', 'trust', 'style', 'humor', 'collab'];
/** Longest bracketed segment considered: keys are short, and this bounds work on huge texts. */
const MAX_SEGMENT = 2000;

const bare = (g: string) => g.replace(/\uFE0F/g, '');
const isTrend = (g: string) => TRENDS.has(bare(g));
const isEllipsis = (s: string) => /^(\.{2,}|…)$/.test(s.trim());

/** Every key in `text`, in order, none overlapping. */
export function findKeys(text: string): EmojiKey[] {
  // Every numeric, arrow or v2 key holds one of these; most texts hold none and cost one scan.
  if (!/[∠⟨⬅➡↔]/.test(text)) return [];
  const keys: EmojiKey[] = [];
  let from = 0;
  for (let i = text.indexOf('[', from); i >= 0; i = text.indexOf('[', from)) {
    const key = superkeyV3(text, i) ?? superkeyV2(text, i) ?? summary(text, i) ?? v2Key(text, i, 'v2') ?? chain(text, i, i + 1);
    if (key) {
      keys.push(key);
      from = key.end;
    } else from = i + 1;
  }
  return keys;
}

/** A v0/v1 key: a free run of emoji with no grammar, recognisable only as a set_emojikey input. */
export function freeKey(text: string): EmojiKey | undefined {
  const start = text.length - text.trimStart().length;
  const end = text.trimEnd().length;
  const body = text.slice(start, end);
  const clusters = graphemes(body.replace(/\s+/g, ''));
  if (!clusters.length || !clusters.some(isEmoji)) return undefined;
  return { start, end, generation: 'v1', components: [], legs: [] };
}

/** `[[×N:ME[…]|CONTENT[…]|YOU[…]|ABSTRACT[…]]]` */
function superkeyV3(text: string, at: number): EmojiKey | undefined {
  const head = /\[\[×(\d+):/y;
  head.lastIndex = at;
  const m = head.exec(text);
  if (!m) return undefined;
  const part = /(ME|CONTENT|YOU|ABSTRACT)\[([^[\]\n]{0,2000})\]/iy;
  const components: Component[] = [];
  const legs: Leg[] = [];
  let pos = head.lastIndex;
  for (;;) {
    part.lastIndex = pos;
    const p = part.exec(text);
    if (!p) return undefined;
    const label = p[1].toUpperCase();
    components.push({ label, text: p[2] });
    legs.push(...parseLegs(p[2].split('|'), label));
    pos = part.lastIndex;
    if (text.startsWith(']]', pos)) break;
    if (text[pos] !== '|') return undefined;
    pos++;
  }
  if (!legs.some((l) => l.form !== 'emoji')) return undefined;
  return { start: at, end: pos + 2, generation: 'v3-superkey', joiner: '|', superkeyCount: Number(m[1]), components, legs };
}

/** `[[×N[…]⟨…⟩[…]{…}➡️~[…]|…|]]` */
function superkeyV2(text: string, at: number): EmojiKey | undefined {
  const head = /\[\[×(\d+)(?=\[)/y;
  head.lastIndex = at;
  const m = head.exec(text);
  if (!m) return undefined;
  const body = v2Key(text, head.lastIndex, 'v2-superkey');
  if (!body || !text.startsWith(']]', body.end)) return undefined;
  return { ...body, start: at, end: body.end + 2, superkeyCount: Number(m[1]) };
}

/** `[topic]⟨approach⟩[goal]{tone}➡️~[context]|trust|style|humor|collab|` */
function v2Key(text: string, at: number, generation: Generation): EmojiKey | undefined {
  const shape =
    /\[([^[\]\n]{1,200})\]⟨([^⟨⟩\n]{1,200})⟩\[([^[\]\n]{1,200})\]\{([^{}\n]{1,200})\}(?:➡\uFE0F?)?~\[([^[\]\n]{1,200})\](\|(?:[^|\n[\]]{1,200}\|)+)?/y;
  shape.lastIndex = at;
  const m = shape.exec(text);
  if (!m) return undefined;
  const parts = [m[1], m[2], m[3], m[4], m[5], ...(m[6] ? m[6].slice(1, -1).split('|') : [])];
  const legs = parts.map((part, i): Leg => {
    const clusters = graphemes(part.replace(/\s+/g, ''));
    const trend = clusters.find(isTrend);
    const poles = clusters.filter((g) => !isTrend(g));
    return {
      component: V2_PARTS[i] ?? `part${i + 1}`,
      order: 0,
      text: part,
      form: 'emoji',
      poles: poles.join(''),
      ...(poles.length === 2 ? { poleA: poles[0], poleB: poles[1] } : {}),
      ...(trend ? { trend } : {}),
    };
  });
  return { start: at, end: shape.lastIndex, generation, components: [], legs };
}

/** `[[60d|ME|…]~~[CONTENT|…]~~[YOU|…]]]`: a period's summary key. */
function summary(text: string, at: number): EmojiKey | undefined {
  const head = /\[\[([^\s|[\]~×]{1,20})\|/y;
  head.lastIndex = at;
  const m = head.exec(text);
  if (!m) return undefined;
  const key = chain(text, at, head.lastIndex);
  if (!key?.components[0] || !LABELS.includes(labelOf(text, head.lastIndex) ?? '')) return undefined;
  const end = text.startsWith(']]', key.end) ? key.end + 2 : key.end;
  return { ...key, start: at, end, generation: 'v3-summary', period: m[1] };
}

function labelOf(text: string, contentStart: number): string | undefined {
  const bar = text.indexOf('|', contentStart);
  const label = bar < 0 ? '' : text.slice(contentStart, bar).trim().toUpperCase();
  return LABELS.includes(label) ? label : undefined;
}

/**
 * Segments `[LABEL|leg|…]` (or unlabelled `[leg|…]`) joined by `~`, `~~` or `|`. The first
 * segment's content starts at `contentStart` (after `[`, or after a summary's `[[period|`).
 */
function chain(text: string, at: number, contentStart: number): EmojiKey | undefined {
  const components: Component[] = [];
  const legs: Leg[] = [];
  let joiner: string | undefined;
  let end = -1;
  let start = contentStart;
  for (let index = 0; ; index++) {
    const close = text.indexOf(']', start);
    if (close < 0 || close - start > MAX_SEGMENT) break;
    const content = text.slice(start, close);
    if (content.includes('[') || content.includes('\n')) break;
    const parts = content.split('|');
    const label = LABELS.includes(parts[0].trim().toUpperCase()) ? parts[0].trim().toUpperCase() : undefined;
    const legTexts = label ? parts.slice(1) : parts;
    const concrete = legTexts.filter((l) => !isEllipsis(l));
    const parsed = parseLegs(legTexts, label ?? '');
    if (!label) {
      // Unlabelled brackets are everywhere in prose; take them only when every leg parses,
      // and an emoji-only one only as a trailing ABSTRACT after other segments.
      if (!concrete.length || parsed.length !== concrete.length) break;
      const emojiOnly = parsed.every((l) => l.form === 'emoji');
      if (emojiOnly && (index === 0 || parsed.length > 4)) break;
      const positional = emojiOnly ? 'ABSTRACT' : (LABELS[index] ?? `SEGMENT${index + 1}`);
      for (const leg of parsed) leg.component = positional;
      components.push({ label: positional, text: content });
    } else components.push({ label, text: legTexts.join('|') });
    legs.push(...parsed);
    end = close + 1;
    const sep = /[ \t]*(~~|~)[ \t]*\[|(\|)\[/y;
    sep.lastIndex = end;
    const s = sep.exec(text);
    if (!s) break;
    joiner ??= s[1] ?? s[2];
    start = sep.lastIndex;
  }
  if (end < 0 || !legs.some((l) => l.form !== 'emoji')) return undefined;
  const generation: Generation = legs.some((l) => l.form === 'numeric') ? 'v3-numeric' : 'v3-arrow';
  return { start: at, end, generation, ...(components.length > 1 && joiner ? { joiner } : {}), components, legs };
}

/** The legs of one component; placeholders (`…`) and text that is no leg are skipped. */
function parseLegs(texts: string[], component: string): Leg[] {
  const legs: Leg[] = [];
  for (const raw of texts) {
    if (isEllipsis(raw) || !raw.trim()) continue;
    const leg = numericLeg(raw, component) ?? arrowLeg(raw, component) ?? emojiLeg(raw, component);
    if (leg) legs.push({ ...leg, order: legs.length });
  }
  return legs;
}

/** `[abbr:]PoleA[(trend)]PoleB N∠A[conf][trend]`, e.g. `cog:7∠120⁸⁵↔️`, `🧠(⬆️)🎨8∠30`. */
function numericLeg(raw: string, component: string): Leg | undefined {
  const text = raw.trim();
  const angleMark = text.indexOf('∠');
  if (angleMark < 1) return undefined;
  const left = text.slice(0, angleMark).trimEnd();
  const magnitude = left.at(-1)!;
  if (!/[0-9]/.test(magnitude) || /[0-9]/.test(left.at(-2) ?? '')) return undefined;
  let poles = left.slice(0, -1).trim();
  let dimension: string | undefined;
  const abbr = /^([A-Za-z][A-Za-z0-9_.]*)\s*:\s*/.exec(poles);
  if (abbr) {
    dimension = abbr[1];
    poles = poles.slice(abbr[0].length);
  }
  let trend: string | undefined;
  const inner = /\(([^)]*)\)/.exec(poles);
  if (inner) {
    trend = inner[1].trim() || undefined;
    poles = poles.replace(inner[0], '');
  }
  poles = poles.replace(/\s+/g, '');
  if (poles && !graphemes(poles).every(isEmoji)) return undefined;
  const right = /^(\d{1,3})°?([⁰¹²³⁴⁵⁶⁷⁸⁹]*)\s*(.*)$/su.exec(text.slice(angleMark + 1));
  if (!right || Number(right[1]) > 359) return undefined;
  const after = graphemes(right[3].trim())[0];
  if (after && isTrend(after)) trend ??= after;
  const clusters = graphemes(poles);
  return {
    component,
    order: 0,
    text,
    form: 'numeric',
    ...(dimension ? { dimension } : {}),
    ...(poles ? { poles } : {}),
    ...(clusters.length === 2 ? { poleA: clusters[0], poleB: clusters[1] } : {}),
    magnitude: Number(magnitude),
    angle: Number(right[1]),
    ...(right[2] ? { confidence: Number([...right[2]].map((c) => SUPERSCRIPT[c]).join('')) } : {}),
    ...(trend ? { trend } : {}),
  };
}

/** `[Field.]PoleA DIR PoleB`, e.g. `Cognitive.🧠➡️🔧`. */
function arrowLeg(raw: string, component: string): Leg | undefined {
  const text = raw.trim();
  const field = /^([A-Za-z][A-Za-z0-9_]*)\.\s*/.exec(text);
  const rest = field ? text.slice(field[0].length) : text;
  const clusters = graphemes(rest.replace(/\s+/g, ''));
  if (clusters.length !== 3 || !(bare(clusters[1]) in DIRECTIONS) || !isEmoji(clusters[0]) || !isEmoji(clusters[2])) return undefined;
  return {
    component,
    order: 0,
    text,
    form: 'arrow',
    ...(field ? { dimension: field[1] } : {}),
    poles: clusters[0] + clusters[2],
    poleA: clusters[0],
    poleB: clusters[2],
    direction: clusters[1],
    lean: DIRECTIONS[bare(clusters[1])],
  };
}

/** One to four emoji: an ABSTRACT leg, or a pole pair written without numbers. */
function emojiLeg(raw: string, component: string): Leg | undefined {
  const text = raw.trim();
  const clusters = graphemes(text.replace(/\s+/g, ''));
  if (!clusters.length || clusters.length > 4 || !clusters.every(isEmoji)) return undefined;
  return {
    component,
    order: 0,
    text,
    form: 'emoji',
    poles: clusters.join(''),
    ...(clusters.length === 2 ? { poleA: clusters[0], poleB: clusters[1] } : {}),
  };
}

/**
 * An UPDATE statement of the v3 spec: a change to one dimension path rather than a whole key.
 * `UPDATE: ME.Cognitive.Mode 🧠🎨7∠45 → 🧠🎨8∠30` (before and after) or
 * `UPDATE: ME.Trust [🔒🔓7∠20|…]` / `UPDATE: ME [Cognitive:🧠🎨8∠30|…]` (the path's new legs).
 */
export interface EmojiKeyUpdate {
  /** UTF-16 span of the whole statement, from `UPDATE:` to its last leg or `]`. */
  start: number;
  end: number;
  /** `ME.Cognitive.Mode`, the component upper-cased as in keys. */
  path: string;
  /** The path's first step: ME, CONTENT, YOU or ABSTRACT. */
  component: string;
  form: 'before-after' | 'legs';
  before?: Leg;
  after?: Leg;
  legs: Leg[];
}

const UPDATE_HEAD = /UPDATE:[ \t]*(ME|CONTENT|YOU|ABSTRACT)((?:\.[A-Za-z][A-Za-z0-9_]*)*)(?![A-Za-z0-9_])[ \t]*/iy;
/** `∠` and the angle, zero-padded or not, with any superscript confidence. */
const ANGLE_TAIL = /∠\d{1,3}°?[⁰¹²³⁴⁵⁶⁷⁸⁹]*/y;
const CHANGE_ARROW = /[ \t]*(?:→|->|⟶|➡\uFE0F?)[ \t]*/y;
/** Longest pole text considered before a leg's `∠`: a ZWJ family pair is about 15 UTF-16 units. */
const MAX_LEG = 80;

/** Every UPDATE statement in `text`, in order. */
export function findUpdates(text: string): EmojiKeyUpdate[] {
  if (!text.includes('UPDATE:')) return [];
  const updates: EmojiKeyUpdate[] = [];
  for (let at = text.indexOf('UPDATE:'); at >= 0; at = text.indexOf('UPDATE:', at + 1)) {
    // A whole word: not the tail of PREUPDATE: or an identifier.
    if (at > 0 && /[A-Za-z0-9_]/.test(text[at - 1])) continue;
    UPDATE_HEAD.lastIndex = at;
    const head = UPDATE_HEAD.exec(text);
    if (!head) continue;
    const component = head[1].toUpperCase();
    const path = component + head[2];
    const update =
      text[UPDATE_HEAD.lastIndex] === '['
        ? legsUpdate(text, UPDATE_HEAD.lastIndex, component)
        : beforeAfterUpdate(text, UPDATE_HEAD.lastIndex, component);
    if (update) updates.push({ start: at, path, component, ...update });
  }
  return updates;
}

/** `[leg|leg|…]`, optionally opening with the path's own label (`[ME|…]`). */
function legsUpdate(text: string, open: number, component: string): Omit<EmojiKeyUpdate, 'start' | 'path' | 'component'> | undefined {
  const close = text.indexOf(']', open);
  if (close < 0 || close - open > MAX_SEGMENT) return undefined;
  const content = text.slice(open + 1, close);
  if (content.includes('[') || content.includes('\n')) return undefined;
  const parts = content.split('|');
  if (parts[0].trim().toUpperCase() === component) parts.shift();
  const concrete = parts.filter((p) => p.trim() && !isEllipsis(p));
  const legs = parseLegs(parts, component);
  // Every leg written must read as one: otherwise this is prose that happens to follow UPDATE:.
  if (!legs.length || legs.length !== concrete.length) return undefined;
  return { end: close + 1, form: 'legs', legs };
}

/** `PoleA PoleB N∠A → PoleA PoleB N∠A`, each side a numeric leg with its trend if written. */
function beforeAfterUpdate(
  text: string,
  from: number,
  component: string,
): Omit<EmojiKeyUpdate, 'start' | 'path' | 'component'> | undefined {
  const first = legEnd(text, from);
  if (first === undefined) return undefined;
  let arrowAt = first.anglesEnd;
  CHANGE_ARROW.lastIndex = arrowAt;
  if (!CHANGE_ARROW.test(text)) {
    // A trend arrow written after the first leg (`7∠45↗️ → …`) belongs to that leg.
    if (first.end === first.anglesEnd) return undefined;
    arrowAt = first.end;
    CHANGE_ARROW.lastIndex = arrowAt;
    if (!CHANGE_ARROW.test(text)) return undefined;
  }
  const afterStart = CHANGE_ARROW.lastIndex;
  const second = legEnd(text, afterStart);
  if (!second) return undefined;
  const before = numericLeg(text.slice(from, arrowAt), component);
  const after = numericLeg(text.slice(afterStart, second.end), component);
  if (!before || !after) return undefined;
  return { end: second.end, form: 'before-after', before: { ...before, order: 0 }, after: { ...after, order: 0 }, legs: [] };
}

/**
 * Where a numeric leg starting at `from` ends: after its angle and confidence (`anglesEnd`), and
 * after a trend arrow written right behind them (`end`), if any.
 */
function legEnd(text: string, from: number): { anglesEnd: number; end: number } | undefined {
  const mark = text.indexOf('∠', from);
  if (mark < 0 || mark - from > MAX_LEG || /[\n[\]|]/.test(text.slice(from, mark))) return undefined;
  ANGLE_TAIL.lastIndex = mark;
  if (!ANGLE_TAIL.exec(text)) return undefined;
  const anglesEnd = ANGLE_TAIL.lastIndex;
  const next = graphemes(text.slice(anglesEnd, anglesEnd + 8))[0];
  return { anglesEnd, end: next && isTrend(next) ? anglesEnd + next.length : anglesEnd };
}
