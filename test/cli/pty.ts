import { spawn } from 'node:child_process';
import { REPO } from '../helpers.ts';

/**
 * A command run on a real terminal: util-linux `script` gives it a pty, `stty` sets its width,
 * and keys typed into it (a Ctrl-C) reach it as a user's would, through the terminal's driver.
 */

export interface TerminalRun {
  code: number | null;
  /** Everything written to the terminal, stdout and stderr as they were shown. */
  output: string;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export function onTerminal(
  argv: string[],
  options: { columns?: number; env?: NodeJS.ProcessEnv; until?: RegExp; keys?: string } = {},
): Promise<TerminalRun> {
  const shell = `stty cols ${options.columns ?? 80} rows 50; exec ${argv.map(quote).join(' ')}`;
  const child = spawn('script', ['-q', '-e', '-c', shell, '/dev/null'], {
    cwd: REPO,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let typed = false;
  // Decoded as a stream: a character split between two reads is not two broken halves.
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    output += d;
    if (!typed && options.until?.test(output)) {
      typed = true;
      child.stdin.write(options.keys ?? '');
    }
  });
  child.stderr.on('data', (d: string) => (output += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

/** The lines a terminal shows at the end: each line's text after its last carriage return, escapes removed. */
export function shownLines(output: string): string[] {
  return output
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .split(/\r?\n/)
    .map((line) => line.slice(line.lastIndexOf('\r') + 1));
}
