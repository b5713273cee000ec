import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readLine } from '../src/dialect/claude-code/read.ts';
import type { SourceLine } from '../src/acquire/lines.ts';

const line = (text: string, terminated = true): SourceLine => ({
  lineNo: 1,
  offset: 0,
  byteLength: Buffer.byteLength(text),
  text,
  terminated,
});

test('blank, malformed, pending and record lines', () => {
  assert.deepEqual(readLine(line('   ')), { kind: 'blank' });
  assert.deepEqual(readLine(line('[1,2]')), { kind: 'malformed', error: 'expected a JSON object, found an array' });
  assert.deepEqual(readLine(line('{"no":"type"}')), { kind: 'malformed', error: 'the record has no string "type"' });
  assert.equal(readLine(line('{"type":"user",')).kind, 'malformed');
  // Only a final line without its newline may be a record still being written.
  assert.deepEqual(readLine(line('{"type":"user",', false)), { kind: 'pending' });
  // A final line that parses is a record, newline or not.
  assert.equal(readLine(line('{"type":"ai-title","aiTitle":"t"}', false)).kind, 'record');
});

test('fields the dialect does not read are kept in extra, at the top and inside message', () => {
  const result = readLine(
    line(
      JSON.stringify({
        type: 'assistant',
        uuid: 'a',
        requestId: 'r',
        brandNew: { x: 1 },
        message: { id: 'm', role: 'assistant', content: [], container: null, stop_details: { why: 'x' } },
      }),
    ),
  );
  assert.equal(result.kind, 'record');
  if (result.kind !== 'record') return;
  assert.deepEqual(result.extra, { brandNew: { x: 1 }, message: { container: null, stop_details: { why: 'x' } } });
  assert.deepEqual(result.record, { type: 'assistant', uuid: 'a', requestId: 'r', message: { id: 'm', role: 'assistant', content: [] } });
});

test('a record type the dialect has never seen keeps all its own fields in extra', () => {
  const result = readLine(line('{"type":"frobnicate","uuid":"f","wibble":true}'));
  assert.ok(result.kind === 'record');
  assert.deepEqual(result.record, { type: 'frobnicate', uuid: 'f' });
  assert.deepEqual(result.extra, { wibble: true });
});

test('a turn whose message is not an object reads as empty and keeps the value', () => {
  const result = readLine(line('{"type":"user","message":"odd"}'));
  assert.ok(result.kind === 'record');
  assert.deepEqual(result.record, { type: 'user', message: { role: 'user', content: [] } });
  assert.deepEqual(result.extra, { message: 'odd' });
});

test('a parse error names the fault, never the text it found (transcripts hold secrets)', () => {
  const errors = ['{"a": sk-ant-api03-secret}', 'password=hunter2 and more', '{"type":"user"} trailing-secret', '{"a":"unterminated'].map(
    (text) => {
      const result = readLine(line(text));
      assert.ok(result.kind === 'malformed');
      return result.error;
    },
  );
  assert.deepEqual(errors, [
    'Unexpected token: not valid JSON',
    'Unexpected token: not valid JSON',
    'Unexpected non-whitespace character after JSON at position 16',
    'Unterminated string in JSON at position 18',
  ]);
});
