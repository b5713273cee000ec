import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wrapParts } from '../../src/query/fit.ts';

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
