import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { REPO, removeDir, tempDir } from '../helpers.ts';
import { onTerminal } from './pty.ts';

/**
 * Issue 25, item 6: every command that prints a transcript's text prints it through one escaping
 * (src/terminal.ts `printable`), so a transcript cannot set the window title, clear the screen,
 * write the clipboard or turn text around. (XML cannot carry these characters at all: weave query
 * refuses to write them as XML.) The session is written here, not kept in fixtures/:
 * a file of raw escapes in the repository would act on the terminal of whoever prints or diffs it.
 */

const WEAVE = join(REPO, 'bin', 'weave');
const exec = promisify(execFile);
const SESSION = 'e5c00000-0000-4000-8000-00000000e5c0';

// OSC 0 (window title), CSI 2J (clear screen), OSC 52 (clipboard), C1 CSI, NEL, bidi overrides and isolates.
const TITLE = '\x1b]0;pwned\x07';
const CLEAR = '\x1b[2J';
const NASTY = `${TITLE} look ${CLEAR} here \x9b31m red \x85 next \u202egnirts\u202c \u2066iso\u2069 \x1b]52;c;cGF3bmVk\x07 end`;
/** A control byte a terminal obeys; tab, line feed and carriage return (a pty's line end, CSV's) are layout. */
const RAW = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let dir: string;
let store: string;

const line = (n: number, rest: object) =>
  JSON.stringify({
    sessionId: SESSION,
    cwd: `/home/ada/${TITLE}esc`,
    version: '2.1.119',
    gitBranch: `main${CLEAR}`,
    userType: 'external',
    isSidechain: false,
    uuid: `e5c00000-0000-4000-8000-00000000000${n}`,
    timestamp: `2026-11-04T10:00:0${n}.000Z`,
    parentUuid: n === 1 ? null : `e5c00000-0000-4000-8000-00000000000${n - 1}`,
    ...rest,
  });

before(async () => {
  dir = await tempDir('weave-escapes-');
  store = join(dir, 'store');
  const project = join(dir, 'projects', `-home-ada-${TITLE}esc`);
  await mkdir(project, { recursive: true });
  const usage = { input_tokens: 10, output_tokens: 5 };
  const lines = [
    line(1, { type: 'user', promptId: 'p1', origin: { kind: 'human' }, message: { role: 'user', content: `Deploy ${NASTY}` } }),
    line(2, {
      type: 'assistant',
      requestId: 'req_1',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-7',
        content: [
          { type: 'text', text: `Running ${NASTY}` },
          { type: 'tool_use', id: 'toolu_e1', name: `Bash${CLEAR}`, input: { command: `echo ${NASTY}` } },
        ],
        stop_reason: 'tool_use',
        usage,
      },
    }),
    line(3, {
      type: 'user',
      promptId: 'p1',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_e1', is_error: true, content: `deploy failed ${NASTY}` }],
      },
    }),
    `{"type": "user", "broken ${TITLE}${CLEAR}`,
  ];
  await writeFile(join(project, `${SESSION}.jsonl`), `${lines.join('\n')}\n`);
});

after(async () => {
  await removeDir(dir);
});

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(WEAVE, args, { encoding: 'utf8', env: { ...process.env, WEAVE_HOME: store } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** Fails naming the command and the first raw control character it printed. */
function assertShown(what: string, output: string): void {
  const m = RAW.exec(output);
  assert.equal(
    m,
    null,
    `${what} printed U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} raw: ${JSON.stringify(output.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 20))}`,
  );
}

const ROWS = 'SELECT ?text WHERE { ?b weave:text ?text } ORDER BY ?text';
const GRAPH = 'CONSTRUCT { ?b weave:text ?text } WHERE { ?b weave:text ?text }';

test('every command that prints a transcript text, to a pipe: its escapes are shown, never obeyed', async () => {
  const ingested = await run(['ingest', '--store', store, join(dir, 'projects')]);
  assert.equal(ingested.code, 0, ingested.stderr);
  const commands: [string[], string][] = [
    [['search', 'deploy'], '\\x1b]0;pwned\\x07'],
    [['search', 'deploy', '--json'], '\\u001b]0;pwned\\u0007'],
    [['conversation', SESSION.slice(0, 8), '--wide'], '\\x1b[2J'],
    [['conversation', SESSION.slice(0, 8), '--json'], '\\u202e'],
    [['query', ROWS, '--wide'], '\\x9b31m'],
    [['query', ROWS, '--format', 'json'], '\\u009b31m'],
    [['query', ROWS, '--format', 'tsv'], '\\u2066iso\\u2069'],
    [['query', GRAPH, '--format', 'turtle'], '\\u0085'],
    [['query', GRAPH, '--format', 'ntriples'], '\\u202egnirts'],
    [['usage', 'session', '--wide'], '\\x1b]0;pwned'],
    [['usage', 'session', '--json'], '\\u001b]0;pwned'],
    [['status', '--wide'], 'sessions    1'],
    [['status', '--json'], '"sessions": 1'],
    [['verify', '--wide'], '\\x1b]0;pwned'],
    [['verify', '--json'], '\\u001b]0;pwned'],
    [['detect', '--wide'], 'human/authored'],
    [['detect', '--json'], 'human/authored'],
    [['glossary'], 'talk'],
  ];
  assertShown('ingest', ingested.stdout + ingested.stderr);
  assert.match(ingested.stderr, /esc\/e5c00000-0000-4000-8000-00000000e5c0\.jsonl:4: malformed/);
  assert.ok(ingested.stderr.includes('\\x1b]0;pwned\\x07esc'), ingested.stderr);
  for (const [args, shown] of commands) {
    const { stdout, stderr } = await run([...args, '--store', store]);
    assertShown(`weave ${args.join(' ')}`, stdout + stderr);
    // Case aside: an RDF writer's own escape is \u001B.
    assert.ok(stdout.toLowerCase().includes(shown.toLowerCase()), `weave ${args.join(' ')} shows ${shown}:\n${stdout}${stderr}`);
  }
});

test('CSV, YAML and exported RDF are written exactly into a pipe, and shown escaped on a terminal', async () => {
  // Data for programs: what the store holds, byte for byte, when it goes to a file or a pipe.
  const csv = await run(['query', ROWS, '--format', 'csv', '--store', store]);
  assert.ok(csv.stdout.includes(NASTY), csv.stdout);
  const yaml = await run(['conversation', SESSION.slice(0, 8), '--format', 'yaml', '--store', store]);
  assert.ok(RAW.test(yaml.stdout), 'YAML into a pipe is written as it is');
  const exported = await run(['export', '--format', 'nquads', '--store', store]);
  assert.ok(RAW.test(exported.stdout), 'an export into a pipe is the store exactly');

  const env = { WEAVE_HOME: store };
  for (const [args, shown] of [
    [['query', ROWS, '--format', 'csv'], '\\x1b]0;pwned\\x07'],
    [['conversation', SESSION.slice(0, 8), '--format', 'yaml'], '\\u202e'],
    [['export', '--format', 'nquads'], '\\u001b]0;pwned\\u0007'],
    [['export', '--format', 'turtle'], '\\u009b31m'],
  ] as [string[], string][]) {
    const { output } = await onTerminal([WEAVE, ...args], { env, columns: 400 });
    // The one escape of our own: a progress line erased (\r ESC [K) on stderr.
    const own = output.replaceAll('\x1b[K', '');
    assertShown(`weave ${args.join(' ')} on a terminal`, own);
    assert.ok(
      own.toLowerCase().includes(shown.toLowerCase()),
      `weave ${args.join(' ')} on a terminal shows ${shown}:\n${own.slice(0, 2000)}`,
    );
  }
});
