import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ingest } from '../src/ingest.ts';
import { renderTable } from '../src/query/table.ts';
import { printable } from '../src/terminal.ts';
import { FIXTURES, removeDir, tempDir } from './helpers.ts';

/**
 * Issue 15, defect 4: malformed-line messages quoted the line (V8's `…, "…" is not valid JSON`
 * and `..."context"...` forms), so the start of a planted token, raw terminal escapes and NUL
 * bytes reached stderr and weave:parseError. fixtures/hardening/malformed holds one good record
 * and six lines that break in each of those ways, each carrying the token below.
 */

const FIXTURE = join(FIXTURES, 'hardening', 'malformed');
const FILE = join(FIXTURE, '-home-ada-broken', 'ba0ba0ba-0000-4000-8000-000000000001.jsonl');
const TOKEN = 'sk-ant-api03-PLANTEDplanted0123456789PLANTEDplanted0123456789xyz';
const WEAVE = fileURLToPath(new URL('../bin/weave', import.meta.url));
/** Bytes a terminal acts on: C0 but newline, DEL, C1 (as UTF-8), and the bidi overrides. */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;

test('a malformed line is reported by file, line and fault, never by its text, on stderr and in the graph', async () => {
  const source = await readFile(FILE, 'utf8');
  const broken = source.split('\n').filter(Boolean).slice(1);
  assert.equal(broken.length, 6);
  assert.ok(broken.every((l) => l.includes(TOKEN)));
  assert.ok(CONTROL.test(source), 'the fixture carries raw control bytes');

  const dir = await tempDir();
  try {
    // A folder whose name holds an escape sequence, as a path a terminal would obey.
    const root = join(dir, 'projects\x1b[2J');
    await cp(FIXTURE, root, { recursive: true });
    const store = join(dir, 'store');
    const { stderr } = await promisify(execFile)(WEAVE, ['ingest', root, '--store', store, '--no-detect'], { encoding: 'utf8' });
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.length, 6);
    assert.ok(!CONTROL.test(stderr), 'no control byte reaches the terminal');
    for (const fragment of ['sk-ant', 'PLANTED', 'planted', 'pwned', '0123456789'])
      assert.ok(!stderr.includes(fragment), `stderr quotes "${fragment}"`);
    const path = join(dir, 'projects\\x1b[2J', '-home-ada-broken', 'ba0ba0ba-0000-4000-8000-000000000001.jsonl');
    assert.deepEqual(lines, [
      `${path}:2: malformed: Unexpected token: not valid JSON`,
      `${path}:3: malformed: Unexpected token: not valid JSON`,
      `${path}:4: malformed: Unexpected token: not valid JSON`,
      `${path}:5: malformed: Unexpected token: not valid JSON`,
      `${path}:6: malformed: Unexpected token: not valid JSON`,
      `${path}:7: malformed: Unterminated string in JSON at position ${broken[5].length}`,
    ]);

    // The graph keeps each line whole (weave:rawText, nothing is lost) and the same clean message.
    const report = await ingest([FIXTURE], { storeDir: join(dir, 'again'), soul: 'local' });
    assert.deepEqual(
      report.problems.map((p) => [p.lineNo, p.message]),
      lines.map((l) => l.split(': malformed: ')).map(([where, m]) => [Number(where.split(':').pop()), m]),
    );
    // The session graph's files (its spine and derived part; the state beside them is JSON).
    const files = (await readdir(join(dir, 'again', 'graphs'))).filter((f) => f.endsWith('.nq'));
    const graph = (await Promise.all(files.map((f) => readFile(join(dir, 'again', 'graphs', f), 'utf8')))).join('');
    const errors = graph.split('\n').filter((l) => l.includes('#parseError>'));
    assert.equal(errors.length, 6);
    for (const e of errors) assert.ok(!e.includes('sk-ant') && !e.includes('\\u001B'), e);
  } finally {
    await removeDir(dir);
  }
});

test('text bound for a terminal shows control bytes as escapes', () => {
  assert.equal(printable('a\x1b]0;title\x07b\x00c\x9bd\u202ee\nf'), 'a\\x1b]0;title\\x07b\\x00c\\x9bd\\u202ee\\x0af');
  assert.equal(printable('line\nnext\r', { keepNewlines: true }), 'line\nnext\\x0d');
  assert.equal(printable('ok é 😀'), 'ok é 😀');
  const table = renderTable({ head: { vars: ['t'] }, results: { bindings: [{ t: { type: 'literal', value: 'red\x1b[31m alert' } }] } });
  assert.ok(!CONTROL.test(table) && table.includes('red\\x1b[31m alert'));
});
