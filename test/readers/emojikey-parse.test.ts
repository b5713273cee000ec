import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findKeys, findUpdates, freeKey, type Leg } from '../../src/readers/emojikey/parse.ts';
import { codePointOffset, codePoints, graphemes, sliceCodePoints } from '../../src/readers/text.ts';

/** The one key in `text`, with its span checked against `written`. */
function only(text: string, written: string) {
  const keys = findKeys(text);
  assert.equal(keys.length, 1, `one key in ${text}`);
  assert.equal(text.slice(keys[0].start, keys[0].end), written);
  return keys[0];
}

/** Legs as compact rows: component, poles, magnitude∠angle, confidence, trend. */
const row = (l: Leg) => [
  l.component,
  l.dimension ?? '',
  l.poleA ?? l.poles ?? '',
  l.poleB ?? '',
  l.magnitude ?? null,
  l.angle ?? null,
  l.confidence ?? null,
  l.trend ?? '',
];

test('v3 numeric: a single leg', () => {
  const key = only('single leg: [ME|🧠🎨8∠45] done', '[ME|🧠🎨8∠45]');
  assert.equal(key.generation, 'v3-numeric');
  assert.equal(key.joiner, undefined);
  assert.deepEqual(key.components, [{ label: 'ME', text: '🧠🎨8∠45' }]);
  assert.deepEqual(key.legs.map(row), [['ME', '', '🧠', '🎨', 8, 45, null, '']]);
});

test('v3 numeric: the full ME~CONTENT~YOU spine, FE0F poles kept whole', () => {
  const text = '[ME|💻🔧8∠45|🧩🧠7∠60|🐞📚6∠40]~[CONTENT|🏗️🔍9∠30|📚🧪8∠65]~[YOU|👥💻7∠70|🧬🎨8∠55]';
  const key = only(text, text);
  assert.equal(key.joiner, '~');
  assert.deepEqual(
    key.components.map((c) => c.label),
    ['ME', 'CONTENT', 'YOU'],
  );
  assert.deepEqual(key.legs.map(row), [
    ['ME', '', '💻', '🔧', 8, 45, null, ''],
    ['ME', '', '🧩', '🧠', 7, 60, null, ''],
    ['ME', '', '🐞', '📚', 6, 40, null, ''],
    ['CONTENT', '', '🏗️', '🔍', 9, 30, null, ''],
    ['CONTENT', '', '📚', '🧪', 8, 65, null, ''],
    ['YOU', '', '👥', '💻', 7, 70, null, ''],
    ['YOU', '', '🧬', '🎨', 8, 55, null, ''],
  ]);
});

test('partial keys: ME~YOU without CONTENT, spaces around the join', () => {
  const key = only('now [ME|🧠🎨8∠45] ~ [YOU|🎓🌱8∠35].', '[ME|🧠🎨8∠45] ~ [YOU|🎓🌱8∠35]');
  assert.deepEqual(
    key.components.map((c) => c.label),
    ['ME', 'YOU'],
  );
  assert.deepEqual(
    key.legs.map((l) => [l.component, l.magnitude, l.angle]),
    [
      ['ME', 8, 45],
      ['YOU', 8, 35],
    ],
  );
});

test('the ~~ join and … placeholders, which are not legs', () => {
  const text = '#LAST:Key (5/2 14:45) [ME|👑🤝7∠35|🚀🛡️8∠30|...]~~[CONTENT|🌱🌳9∠55|...]~~[YOU|👑🤝7∠65|…]';
  const key = only(text, '[ME|👑🤝7∠35|🚀🛡️8∠30|...]~~[CONTENT|🌱🌳9∠55|...]~~[YOU|👑🤝7∠65|…]');
  assert.equal(key.joiner, '~~');
  assert.equal(key.generation, 'v3-numeric');
  assert.deepEqual(
    key.components.map((c) => c.text),
    ['👑🤝7∠35|🚀🛡️8∠30|...', '🌱🌳9∠55|...', '👑🤝7∠65|…'],
  );
  assert.deepEqual(
    key.legs.map((l) => [l.component, l.poleA, l.poleB, l.magnitude, l.angle]),
    [
      ['ME', '👑', '🤝', 7, 35],
      ['ME', '🚀', '🛡️', 8, 30],
      ['CONTENT', '🌱', '🌳', 9, 55],
      ['YOU', '👑', '🤝', 7, 65],
    ],
  );
});

test('summary wrapper: period, confidence superscripts, trends, a zero-padded angle', () => {
  const text = '#SUM:60d (3/3-5/2) [[60d|ME|👑🤝8∠35⁸⁵↔️|🧠🎨8∠45⁹⁰↗️]~~[CONTENT|💻🎨9∠15⁹⁵↔️]~~[YOU|🎓🌱9∠05⁹⁹↔️]]] tail';
  const key = only(text, '[[60d|ME|👑🤝8∠35⁸⁵↔️|🧠🎨8∠45⁹⁰↗️]~~[CONTENT|💻🎨9∠15⁹⁵↔️]~~[YOU|🎓🌱9∠05⁹⁹↔️]]]');
  assert.equal(key.generation, 'v3-summary');
  assert.equal(key.period, '60d');
  assert.deepEqual(key.legs.map(row), [
    ['ME', '', '👑', '🤝', 8, 35, 85, '↔️'],
    ['ME', '', '🧠', '🎨', 8, 45, 90, '↗️'],
    ['CONTENT', '', '💻', '🎨', 9, 15, 95, '↔️'],
    ['YOU', '', '🎓', '🌱', 9, 5, 99, '↔️'],
  ]);
});

test('the initialisation format: abbreviated dimensions, unlabelled segments named by place, ABSTRACT last', () => {
  const text = 'ME:[cog:7∠120⁸⁵↔️|tst:7∠55⁸⁵↗️|agy:5∠75⁷⁰↕️]~[top:8∠20⁹⁵↔️]~[exp:9∠10⁹⁸↔️]~[✨🧩📊🔍]';
  const key = only(text, text.slice(3));
  assert.deepEqual(
    key.components.map((c) => c.label),
    ['ME', 'CONTENT', 'YOU', 'ABSTRACT'],
  );
  assert.deepEqual(key.legs.map(row), [
    ['ME', 'cog', '', '', 7, 120, 85, '↔️'],
    ['ME', 'tst', '', '', 7, 55, 85, '↗️'],
    ['ME', 'agy', '', '', 5, 75, 70, '↕️'],
    ['CONTENT', 'top', '', '', 8, 20, 95, '↔️'],
    ['YOU', 'exp', '', '', 9, 10, 98, '↔️'],
    ['ABSTRACT', '', '✨🧩📊🔍', '', null, null, null, ''],
  ]);
});

test('the compact |-joined spec form', () => {
  const key = only('[🧠🎨8∠35|⚖️🤝8∠85]|[💻📊9∠10]|[🎓🌱7∠20]|[✨🧩]', '[🧠🎨8∠35|⚖️🤝8∠85]|[💻📊9∠10]|[🎓🌱7∠20]|[✨🧩]');
  assert.equal(key.joiner, '|');
  assert.deepEqual(
    key.components.map((c) => c.label),
    ['ME', 'CONTENT', 'YOU', 'ABSTRACT'],
  );
  assert.deepEqual(
    key.legs.map((l) => [l.component, l.poleA, l.poleB, l.magnitude ?? null]),
    [
      ['ME', '🧠', '🎨', 8],
      ['ME', '⚖️', '🤝', 8],
      ['CONTENT', '💻', '📊', 9],
      ['YOU', '🎓', '🌱', 7],
      ['ABSTRACT', '✨', '🧩', null],
    ],
  );
});

test('labelled legs of the spec (Field:poles N∠A)', () => {
  const key = only('UPDATE: ME [ME|Cognitive:🧠🎨8∠30|Response:📚⚡7∠25|...]', '[ME|Cognitive:🧠🎨8∠30|Response:📚⚡7∠25|...]');
  assert.deepEqual(
    key.legs.map((l) => [l.dimension, l.poles, l.magnitude, l.angle]),
    [
      ['Cognitive', '🧠🎨', 8, 30],
      ['Response', '📚⚡', 7, 25],
    ],
  );
});

test('v3 superkey with a trend between the poles', () => {
  const text = '[[×7:ME[🧠(⬆️)🎨8∠30|📚⚡7∠25]|CONTENT[💻🎨9∠15]|YOU[🎓🌱9∠10]|ABSTRACT[✨🧩📊🔍]]]';
  const key = only(`superkey: ${text}`, text);
  assert.equal(key.generation, 'v3-superkey');
  assert.equal(key.superkeyCount, 7);
  assert.deepEqual(key.legs.map(row), [
    ['ME', '', '🧠', '🎨', 8, 30, null, '⬆️'],
    ['ME', '', '📚', '⚡', 7, 25, null, ''],
    ['CONTENT', '', '💻', '🎨', 9, 15, null, ''],
    ['YOU', '', '🎓', '🌱', 9, 10, null, ''],
    ['ABSTRACT', '', '✨🧩📊🔍', '', null, null, null, ''],
  ]);
});

test('the arrow form: fields, directions and leans', () => {
  const text = '[ME|Cognitive.🧠➡️🔧|Trust.🔒⬅️🔓]~[CONTENT|Domain.💻➡️🧩]~[YOU|Engagement.🔥↔️💡]';
  const key = only(text, text);
  assert.equal(key.generation, 'v3-arrow');
  assert.deepEqual(
    key.legs.map((l) => [l.component, l.dimension, l.poleA, l.direction, l.poleB, l.lean, l.form]),
    [
      ['ME', 'Cognitive', '🧠', '➡️', '🔧', 1, 'arrow'],
      ['ME', 'Trust', '🔒', '⬅️', '🔓', -1, 'arrow'],
      ['CONTENT', 'Domain', '💻', '➡️', '🧩', 1, 'arrow'],
      ['YOU', 'Engagement', '🔥', '↔️', '💡', 0, 'arrow'],
    ],
  );
});

test('v2 keys and v2 superkeys: nine named parts, trends pulled out of the poles', () => {
  const v2 = '[🧠💡]⟨🔍🔄⟩[🎯📚]{😊🤔}➡️~[🌈🌟]|🔒🔒|📊↗️|😂➕|🤝↔️|';
  const key = only(`v2: ${v2}`, v2);
  assert.equal(key.generation, 'v2');
  assert.deepEqual(
    key.legs.map((l) => [l.component, l.poles, l.trend ?? '']),
    [
      ['topic', '🧠💡', ''],
      ['approach', '🔍🔄', ''],
      ['goal', '🎯📚', ''],
      ['tone', '😊🤔', ''],
      ['context', '🌈🌟', ''],
      ['trust', '🔒🔒', ''],
      ['style', '📊', '↗️'],
      ['humor', '😂➕', ''],
      ['collab', '🤝', '↔️'],
    ],
  );
  const superkey = '[[×7[🧠💡↗️]⟨🔍🔄↔️⟩[🎯📚↘️]{😊↗️🤔}➡️~[🌈🌟]|🔒🔒↗️|📊|😂➕↔️|🤝↗️|]]';
  const sk = only(superkey, superkey);
  assert.equal(sk.generation, 'v2-superkey');
  assert.equal(sk.superkeyCount, 7);
  assert.deepEqual(sk.legs.map((l) => [l.poles, l.trend ?? '']).slice(0, 4), [
    ['🧠💡', '↗️'],
    ['🔍🔄', '↔️'],
    ['🎯📚', '↘️'],
    ['😊🤔', '↗️'],
  ]);
});

test('ZWJ families, flags and FE0F poles stay one grapheme each', () => {
  const key = only('[YOU|👨‍👩‍👧‍👦🧑5∠90|🏳️‍🌈🌱3∠170|⚖️🤝8∠85]', '[YOU|👨‍👩‍👧‍👦🧑5∠90|🏳️‍🌈🌱3∠170|⚖️🤝8∠85]');
  assert.deepEqual(
    key.legs.map((l) => [l.poleA, l.poleB, codePoints(l.poleA!), l.magnitude, l.angle]),
    [
      ['👨‍👩‍👧‍👦', '🧑', 7, 5, 90],
      ['🏳️‍🌈', '🌱', 4, 3, 170],
      ['⚖️', '🤝', 2, 8, 85],
    ],
  );
});

test('several keys in one text, in order, and prose brackets that are not keys', () => {
  const text = 'See [the docs](http://x) [1] [COMPONENT|emoji₁emoji₂N∠A|...] then [ME|🧠🎨8∠45] and later [YOU|🎓🌱8∠35].';
  const keys = findKeys(text);
  assert.deepEqual(
    keys.map((k) => text.slice(k.start, k.end)),
    ['[ME|🧠🎨8∠45]', '[YOU|🎓🌱8∠35]'],
  );
  assert.deepEqual(findKeys('a [note|with] bars ∠ but no key'), []);
  assert.deepEqual(findKeys('angles out of range: [ME|🧠🎨8∠400] and two-digit magnitudes [ME|🧠🎨10∠45]'), []);
});

test('v1 free strings are keys only where the caller says so (set_emojikey input)', () => {
  assert.deepEqual(findKeys('🧠💫⚡🌌🤖'), []);
  const key = freeKey('  🧠💫⚡🌌🤖 ');
  // UTF-16 units: 🧠 💫 🌌 🤖 take two each, ⚡ one.
  assert.deepEqual(key && [key.generation, key.start, key.end, key.legs.length], ['v1', 2, 11, 0]);
  assert.equal(freeKey('no emoji here'), undefined);
});

test('code point arithmetic agrees with the string iterator', () => {
  const text = '⚖️ ok 👨‍👩‍👧‍👦!';
  // ⚖ FE0F space o k space + 7 code points of the family + !
  assert.equal(codePoints(text), 14);
  assert.equal(codePointOffset(text, text.indexOf('!')), 13);
  assert.equal(sliceCodePoints(text, 6, 13), '👨‍👩‍👧‍👦');
  assert.deepEqual(graphemes(text), ['⚖️', ' ', 'o', 'k', ' ', '👨‍👩‍👧‍👦', '!']);
});

test("UPDATE statements: the spec's three forms, with the path, legs and spans", () => {
  const arrow = 'then UPDATE: ME.Cognitive.Mode 🧠🎨7∠45 → 🧠🎨8∠30.';
  const [change] = findUpdates(arrow);
  assert.equal(arrow.slice(change.start, change.end), 'UPDATE: ME.Cognitive.Mode 🧠🎨7∠45 → 🧠🎨8∠30');
  assert.deepEqual([change.path, change.component, change.form, change.legs], ['ME.Cognitive.Mode', 'ME', 'before-after', []]);
  assert.deepEqual([change.before!, change.after!].map(row), [
    ['ME', '', '🧠', '🎨', 7, 45, null, ''],
    ['ME', '', '🧠', '🎨', 8, 30, null, ''],
  ]);
  assert.deepEqual(findKeys(arrow), []);

  const trust = 'UPDATE: ME.Trust [🔒🔓7∠20|🔍🕶️8∠45|📝🧿6∠90]';
  const [dim] = findUpdates(trust);
  assert.deepEqual(
    [dim.start, dim.end, dim.path, dim.form, dim.before, dim.after],
    [0, trust.length, 'ME.Trust', 'legs', undefined, undefined],
  );
  assert.deepEqual(dim.legs.map(row), [
    ['ME', '', '🔒', '🔓', 7, 20, null, ''],
    ['ME', '', '🔍', '🕶️', 8, 45, null, ''],
    ['ME', '', '📝', '🧿', 6, 90, null, ''],
  ]);

  // Named legs, a … placeholder, and the path's own label repeated inside the brackets.
  for (const whole of [
    'UPDATE: ME [Cognitive:🧠🎨8∠30|Response:📚⚡7∠25|...]',
    'UPDATE: ME [ME|Cognitive:🧠🎨8∠30|Response:📚⚡7∠25|...]',
  ]) {
    const [me] = findUpdates(`${whole} ok`);
    assert.deepEqual([me.start, me.end, me.path, me.form], [0, whole.length, 'ME', 'legs']);
    assert.deepEqual(me.legs.map(row), [
      ['ME', 'Cognitive', '🧠', '🎨', 8, 30, null, ''],
      ['ME', 'Response', '📚', '⚡', 7, 25, null, ''],
    ]);
  }
});

test('UPDATE statements: ZWJ and FE0F poles, confidence, trends, -> and zero-padded angles; prose is not one', () => {
  const text = '⚖️ UPDATE: you.Family 👨‍👩‍👧‍👦🧑5∠90⁸⁰↗️->👨‍👩‍👧‍👦🧑6∠060↘️ and on';
  const [u] = findUpdates(text);
  const written = 'UPDATE: you.Family 👨‍👩‍👧‍👦🧑5∠90⁸⁰↗️->👨‍👩‍👧‍👦🧑6∠060↘️';
  assert.equal(text.slice(u.start, u.end), written);
  // ⚖ FE0F space: three code points (and three UTF-16 units) before; the statement itself is
  // "UPDATE: you.Family " 19 + family and 🧑 (7+1) + 5∠90 4 + ⁸⁰ 2 + ↗️ 2 + -> 2 + family and 🧑 8
  // + 6∠060 5 + ↘️ 2 = 52 code points.
  assert.deepEqual([codePointOffset(text, u.start), codePointOffset(text, u.end)], [3, 55]);
  assert.equal(sliceCodePoints(text, 3, 55), written);
  assert.deepEqual([u.path, u.component], ['YOU.Family', 'YOU']);
  assert.deepEqual([u.before!, u.after!].map(row), [
    ['YOU', '', '👨‍👩‍👧‍👦', '🧑', 5, 90, 80, '↗️'],
    ['YOU', '', '👨‍👩‍👧‍👦', '🧑', 6, 60, null, '↘️'],
  ]);

  assert.deepEqual(findUpdates('UPDATE: ME [some prose|here] and UPDATE: the docs'), []);
  assert.deepEqual(findUpdates('PREUPDATE: ME [🧠🎨8∠30] and UPDATE: ME.x 🧠🎨7∠45 with no arrow'), []);
  assert.deepEqual(findUpdates('UPDATE: MEMO [🧠🎨8∠30]'), [], 'the path starts with a component');
  assert.deepEqual(findUpdates('UPDATE: ME.Mode 🧠🎨7∠45 → 🧠🎨10∠30'), [], 'a magnitude is one digit');
});
