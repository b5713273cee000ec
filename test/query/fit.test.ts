import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cut, displayWidth, fitTable, fold, wrapParts } from '../../src/query/fit.ts';

test('a summary line is broken between its parts at the width, later lines indented, a long part after its commas', () => {
  const parts = [
    '2 sessions read (0 current)',
    '10 graphs',
    'findings: emojikey/harvest 0, human/authored 2, tool/error 0, secret/exposure 0',
    '0.1 s',
  ];
  assert.equal(
    wrapParts('detected:', parts, 40),
    [
      'detected: 2 sessions read (0 current) ·',
      '  10 graphs ·',
      '  findings: emojikey/harvest 0,',
      '  human/authored 2, tool/error 0,',
      '  secret/exposure 0 · 0.1 s',
    ].join('\n'),
  );
  assert.equal(wrapParts('detected:', parts, Number.POSITIVE_INFINITY), `detected: ${parts.join(' · ')}`);
  for (const line of wrapParts('detected:', parts, 40).split('\n')) assert.ok(line.length <= 40, line);
});

test('width is counted as a terminal draws it: CJK and emoji take two columns, a combining accent none', () => {
  const cases: [string, number][] = [
    ['abc', 3],
    ['日本語', 6],
    ['한국', 4],
    ['Ａ，', 4], // fullwidth forms
    ['e\u0301', 1], // e and a combining acute: one é
    ['👍🏽', 2], // an emoji and its skin tone
    ['👨‍👩‍👧', 2], // one family, joined by ZWJ
    ['🇯🇵', 2], // a flag: two regional indicators
    ['\u2764\ufe0f', 2], // a heart asked to be an emoji
    ['\u2764', 1], // the same heart as text
    ['①ß', 2],
    // One column each, counted without segmenting: a cut cell's "…", arrows, box drawing, Greek.
    ['ab…', 3],
    ['→ ─┼─ Ωμέγα', 11],
    // Not so: a soft hyphen draws nothing, ◽ is drawn as an emoji, an arrow asked to be one is one.
    ['a\u00adb', 2],
    ['◽', 2],
    ['\u2194\ufe0f', 2],
  ];
  for (const [text, width] of cases) assert.equal(displayWidth(text), width, text);
  // Cut by columns, whole characters only: a wide one that does not fit is left out, not halved.
  assert.equal(cut('日本語テキスト', 7), '日本語…');
  assert.equal(cut('日本語テキスト', 6), '日本…');
  assert.equal(cut('👍🏽👍🏽👍🏽', 4), '👍🏽…');
  // A text is read only as far as its cut; one that fits is kept whole, one column or none.
  assert.equal(cut(`日本${'x'.repeat(100_000)}`, 6), '日本x…');
  assert.equal(cut('日', 2), '日');
  assert.equal(cut('日本', 1), '…');
  assert.equal(cut('ab…cd', 4), 'ab……');
  // A table lines its columns up by columns: the CJK title is cut to its 17, padded by its width.
  assert.deepEqual(
    fitTable(
      [
        { head: 'Title', shrink: true },
        { head: 'Cost', align: 'right' },
      ],
      [
        ['修复登录页面的错误处理', '$1.00'],
        ['fix the login page', '$2.00'],
      ],
      24,
    ),
    [
      'Title               Cost',
      '-----------------  -----',
      '修复登录页面的错…  $1.00',
      'fix the login pa…  $2.00',
      '(cut to fit 24 columns;',
      ' --wide shows all)',
    ],
  );
});

test('a log line is folded to the terminal: at spaces, and a path longer than a line where the line ends', () => {
  assert.deepEqual(fold('weave serve: store /tmp/weave-fixtures-store/and/a/long/path/beyond/the/line; opening', 30), [
    'weave serve: store',
    '  /tmp/weave-fixtures-store/an',
    '  d/a/long/path/beyond/the/lin',
    '  e;',
    '  opening',
  ]);
  assert.deepEqual(fold('short enough', 30), ['short enough']);
});

test('a table of more columns than the width holds even cut leaves out its last ones, and says how many', () => {
  // Each column cut to its least (its heading, or 8) is 8 + 10 + 9 + 8 wide, 41 with the gaps: past 30.
  const columns = ['?session', '?hookEvent', '?hookName', '?command'].map((head) => ({ head, shrink: true }));
  assert.deepEqual(fitTable(columns, [['hook-fire', 'PostToolUse', 'PostToolUse', 'uv run ruff']], 30), [
    '?session   ?hookEvent',
    '---------  -----------',
    'hook-fire  PostToolUse',
    '(2 columns hidden to fit 30',
    ' columns; --wide shows all)',
  ]);
});
