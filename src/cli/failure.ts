import { printable } from '../terminal.ts';
import { CliError } from './options.ts';

/**
 * How a command's failure is told on stderr: one line, `weave <command>: <message>`; for a failure
 * that is no user error (a bug, a broken store), with `--verbose` its stack follows, so it can be
 * reported. Both entries (cli/main.ts, client/fast.ts) tell failures here.
 */
export function failureText(command: string, e: unknown, args: readonly string[]): string {
  const error = e instanceof Error ? e : new Error(String(e));
  const line = `weave ${command}: ${printable(error.message)}\n`;
  if (error instanceof CliError || !args.includes('--verbose') || !error.stack) return line;
  // The frames only: the stack's first lines repeat the message, told above.
  const frames = error.stack
    .split('\n')
    .filter((l) => /^\s+at /.test(l))
    .join('\n');
  return `${line}${printable(frames, { keepNewlines: true })}\n`;
}

/** The exit code of a failure: a user error's own, else 1. */
export function failureCode(e: unknown): number {
  return e instanceof CliError ? e.exitCode : 1;
}
