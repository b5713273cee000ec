import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ingest } from '../../src/ingest.ts';
import { jsonText, longNumbers, whileEmitting } from '../../src/rdf/json.ts';
import { openStore } from '../../src/store/store.ts';
import { removeDir, select, tempDir } from '../helpers.ts';

/**
 * Issue 25 (low): a 30-digit number in a transcript line lost its digits in the store: the
 * rdf:JSON literals (a tool's input, the record's extraJson) held the nearest double,
 * `1.2345678901234568e+29`. A number must survive exactly as the line wrote it.
 */

const ID = '123456789012345678901234567890';
const ODD = '-987654321098765432109876543210.5';

test('a number of 30 digits is kept in rdf:JSON as the line wrote it: tool input and extraJson', async () => {
  const dir = await tempDir();
  try {
    const project = join(dir, 'projects', '-home-ada-n');
    await mkdir(project, { recursive: true });
    const base = `"sessionId": "a0000000-0000-4000-8000-000000000030", "cwd": "/home/ada/n", "version": "2.1.119", "gitBranch": "main", "userType": "external", "isSidechain": false`;
    await writeFile(
      join(project, 'a0000000-0000-4000-8000-000000000030.jsonl'),
      [
        `{${base}, "uuid": "a0000000-0000-4000-8000-000000000001", "timestamp": "2026-11-04T10:00:01.000Z", "parentUuid": null, "type": "user", "promptId": "p1", "message": {"role": "user", "content": "hi"}, "oddField": ${ODD}}`,
        `{${base}, "uuid": "a0000000-0000-4000-8000-000000000002", "timestamp": "2026-11-04T10:00:02.000Z", "parentUuid": "a0000000-0000-4000-8000-000000000001", "type": "assistant", "requestId": "r1", "message": {"id": "m1", "type": "message", "role": "assistant", "model": "claude-opus-4-7", "content": [{"type": "tool_use", "id": "tu1", "name": "Calc", "input": {"n": ${ID}, "small": 12, "text": "${ID}"}}], "usage": {"input_tokens": 1, "output_tokens": 1}}}`,
        '',
      ].join('\n'),
    );
    const store = join(dir, 'store');
    await ingest([join(dir, 'projects')], { storeDir: store, soul: 'local' });
    const { store: ox } = await openStore(store);
    const rows = select(ox, 'SELECT ?input ?extra WHERE { { ?b weave:toolInput ?input } UNION { ?e weave:extraJson ?extra } }');
    assert.deepEqual(rows.map((r) => r.input ?? r.extra).sort(), [`{"n":${ID},"small":12,"text":"${ID}"}`, `{"oddField":${ODD}}`]);
  } finally {
    await removeDir(dir);
  }
});

test('jsonText writes a long number as the line wrote it only while that line is emitted', () => {
  const line = `{"a": ${ID}, "b": "${ID}", "c": 1.0}`;
  const value = JSON.parse(line);
  assert.equal(jsonText(value), `{"a":1.2345678901234568e+29,"b":"${ID}","c":1}`);
  assert.equal(
    whileEmitting(longNumbers(line), () => jsonText(value)),
    `{"a":${ID},"b":"${ID}","c":1}`,
  );
  assert.equal(longNumbers('{"a": 12, "b": "1234567890123456789"}'), undefined);
});
