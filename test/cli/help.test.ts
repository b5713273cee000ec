import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { fitHelp } from '../../src/cli/help.ts';
import { nearest } from '../../src/cli/main.ts';
import { REPO } from '../helpers.ts';

const exec = promisify(execFile);

test("help is fitted to the width: a paragraph and a term's description broken again, the rest as written", () => {
  const help = [
    'usage: weave thing [options]',
    '',
    'Does the thing over the store, one graph at a time, with every line',
    'kept.',
    '',
    'options:',
    '  --store DIR   the store directory (default the platform data dir), or an',
    '                external store',
    '  --json        print JSON',
  ].join('\n');
  assert.equal(
    fitHelp(help, 40),
    [
      'usage: weave thing [options]',
      '',
      'Does the thing over the store, one graph',
      'at a time, with every line kept.',
      '',
      'options:',
      '  --store DIR   the store directory',
      '                (default the platform',
      '                data dir), or an',
      '                external store',
      '  --json        print JSON',
    ].join('\n'),
  );
  assert.equal(fitHelp(help, 100), help, 'nothing past the width: as written');
});

/** `weave COMMAND --help` as printed at 80 columns, asked once per command for the tests below. */
const helps = new Map<string, Promise<string>>();
function help(command: string): Promise<string> {
  let printed = helps.get(command);
  if (!printed) {
    printed = exec(join(REPO, 'bin', 'weave'), command ? [command, '--help'] : ['--help'], {
      env: { ...process.env, COLUMNS: '80' },
    }).then(({ stdout }) => stdout);
    helps.set(command, printed);
  }
  return printed;
}

test("every command's --help fits 80 columns", async () => {
  const commands = [
    '',
    'ingest',
    'query',
    'export',
    'serve',
    'glossary',
    'search',
    'usage',
    'mcp',
    'conversation',
    'detect',
    'verify',
    'validate',
    'status',
  ];
  for (const command of commands) {
    const stdout = await help(command);
    const wide = stdout.split('\n').filter((l) => [...l].length > 80);
    assert.deepEqual(wide, [], `weave ${command} --help`);
    assert.match(stdout, /usage: weave/);
  }
});

test('every command whose output is fitted to the terminal takes --wide, said in the same words', async () => {
  const fitted = ['ingest', 'query', 'glossary', 'search', 'usage', 'conversation', 'detect', 'verify', 'status'];
  for (const command of fitted) {
    // At 80 columns, as the test above asked it: the same words, broken where 80 columns break them.
    const words = (await help(command)).replace(/\s+/g, ' ');
    assert.match(
      words,
      / --wide print everything in full, whatever the terminal's width: no column hidden, no cell cut, no line broken /,
      `weave ${command} --help`,
    );
  }
});

test('a mistyped command is answered with the one it most likely meant, and exit code 2', async () => {
  const names = ['ingest', 'query', 'export', 'serve', 'search', 'status', 'usage', 'verify', 'conversation'];
  assert.deepEqual(
    ['quer', 'qurey', 'serch', 'stats', 'exprt', 'cnversation', 'in', 'se', 'x', 'zzzzzz', 'USAGE'].map((n) => nearest(n, names)),
    ['query', 'query', 'search', 'status', 'export', 'conversation', 'ingest', undefined, undefined, undefined, 'usage'],
  );
  await assert.rejects(exec(join(REPO, 'bin', 'weave'), ['quer']), (e: { code: number; stderr: string }) => {
    assert.equal(e.code, 2);
    assert.match(e.stderr, /^weave: unknown command "quer"; did you mean "query"\?\nusage: weave <command>/);
    return true;
  });
});
