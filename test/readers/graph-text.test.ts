import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readerGraphText } from '../../src/readers/emit.ts';
import type { Finding, Reader } from '../../src/readers/reader.ts';
import type { BlockView, TurnView } from '../../src/readers/spine.ts';

/**
 * A reader's graph is made into lines as it is written, in the order the reader found its
 * findings, never sorted whole. Findings of one id (the same reader, place and span) share
 * their subjects: each of their triples is stated once, and what only one of them says is kept.
 */

const reader: Reader = { name: 'tool/error', version: '1', description: 'test', read: () => [] };
const turn: TurnView = { iri: 'urn:t:turn', transcript: 'urn:t:transcript', role: 'user', line: 3, blocks: [] };
const block: BlockView = { iri: 'urn:t:block', turn, order: 0, kind: 'text', text: 'it failed twice', blocks: [] };
turn.blocks.push(block);
const at = (start: number, end: number, body: Finding['body']): Finding => ({
  site: { turn, block, text: block.text!, sourceKind: 'authored' },
  start,
  end,
  quote: false,
  body,
});

const lines = (findings: Finding[]) => [...readerGraphText('local', reader, findings, 'urn:t:graph')].join('').split('\n').filter(Boolean);

test('findings of one id state each triple once, and keep what either says', () => {
  const one = lines([at(3, 9, { toolName: 'Bash' })]);
  const same = lines([at(3, 9, { toolName: 'Bash' }), at(3, 9, { toolName: 'Bash' })]);
  assert.deepEqual(same, one);
  // The annotation (its turn and block used), its target, its position, its body (one field), and
  // the claim: 8 + 5 + 3 + 2 + 6.
  assert.equal(one.length, 24);
  const both = lines([at(3, 9, { toolName: 'Bash' }), at(3, 9, { toolName: 'Read' })]);
  assert.deepEqual(both.slice(0, one.length), one);
  assert.equal(both.length, one.length + 1);
  assert.match(both.at(-1)!, /weave#toolName> "Read" <urn:t:graph> \.$/);
});

test('findings are written in the order found, each whole before the next', () => {
  const first = lines([at(3, 9, { toolName: 'Bash' })]);
  const second = lines([at(10, 15, { toolName: 'Bash' })]);
  assert.deepEqual(lines([at(3, 9, { toolName: 'Bash' }), at(10, 15, { toolName: 'Bash' })]), [...first, ...second]);
  assert.deepEqual(lines([at(10, 15, { toolName: 'Bash' }), at(3, 9, { toolName: 'Bash' })]), [...second, ...first]);
});
