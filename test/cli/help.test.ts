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

const COMMANDS = [
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

test("every command's --help fits 80 columns", async () => {
  for (const command of COMMANDS) {
    const stdout = await help(command);
    const wide = stdout.split('\n').filter((l) => [...l].length > 80);
    assert.deepEqual(wide, [], `weave ${command} --help`);
    assert.match(stdout, /usage: weave/);
  }
});

test("at 80 columns every option's description goes on at its column, and a table in it keeps its terms' column", async () => {
  // weave usage --help had `--by person|project`'s description go on two columns left of where it
  // began: fitted, its first line was broken off alone ("…the machine identity that / wrote the").
  const misaligned: string[] = [];
  for (const command of COMMANDS) {
    const lines = (await help(command)).split('\n');
    lines.forEach((line, i) => {
      const option = /^( {2}-\S.*?\S? {2,})\S/.exec(line);
      if (!option) return;
      for (let j = i + 1; j < lines.length && /^ {7,}\S/.test(lines[j]); j++)
        if (lines[j].length - lines[j].trimStart().length < option[1].length) misaligned.push(`weave ${command}: ${lines[j].trim()}`);
    });
  }
  assert.deepEqual(misaligned, []);
  // weave export --help's table of --rdf modes was joined into one paragraph ("…(default; RDF / 1.2 stores) 1.1 RDF 1.1 …").
  const rdf = (await help('export')).split('\n').filter((l) => /^ {23}\S/.test(l));
  assert.deepEqual(
    rdf.map((l) => l.slice(23, 29)),
    ['1.2   ', '1.1   ', 'star  '],
  );
});

test('at 80 columns each help lists its options once, every description at one column and every line of one under it', async () => {
  // weave ingest and serve --help broke --text-limit's description off at the left ("  length and"):
  // written one space after its term, it was taken for a paragraph. weave serve listed --verbose twice,
  // its own and every command's, and the options of one help started their descriptions at 21 or 23.
  const wrong: string[] = [];
  for (const command of COMMANDS) {
    const lines = (await help(command)).split('\n');
    const start = lines.indexOf('options:');
    if (start < 0) continue;
    const section = lines.slice(start + 1, lines.indexOf('', start + 1) >>> 0);
    const columns = new Set<number>();
    const seen = new Set<string>();
    for (const line of section) {
      const option = /^ {2}(-\S+(?:, --\S+)?)(?: \S+)?( {2,}\S.*)?$/.exec(line);
      if (option) {
        if (seen.has(option[1])) wrong.push(`weave ${command}: ${option[1]} twice`);
        seen.add(option[1]);
        if (option[2]) columns.add(line.length - option[2].trimStart().length);
      } else if (!/^ {21,}\S/.test(line)) wrong.push(`weave ${command}: "${line}"`);
    }
    if (columns.size !== 1) wrong.push(`weave ${command}: descriptions at columns ${[...columns].join(', ')}`);
    const column = [...columns][0];
    for (const line of section)
      if (!line.startsWith('  -') && line.length - line.trimStart().length < column)
        wrong.push(`weave ${command}: "${line}" left of ${column}`);
  }
  assert.deepEqual(wrong, []);
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
