import type { RemoteConfig } from '../store/remote/config.ts';
import type { FoundServer } from '../store/running.ts';
import { residentServer } from './daemon.ts';
import { externalStore } from './external.ts';
import { serverGone } from './server.ts';
import { type Form, printable } from '../terminal.ts';

/**
 * A command a server can answer, in the shape both entries run it: the light one
 * (client/fast.ts, no TypeScript loader, no Oxigraph) and the full CLI, which answers by itself
 * when no server can. Each such command reads its arguments once (`parse`, as the command reads
 * them), asks the server (`ask`), and prints what it would print had it opened the store. A
 * command that reads no graph (weave status) is a light command only: answered in the light
 * entry, never by a server, which would do the same work a round trip away.
 */

/** What a command prints, and how it ends. */
export interface Printed {
  stdout: string;
  /** Lines for stderr, written before stdout. */
  warnings?: string;
  /** Lines for stderr, written after stdout. */
  notes?: string;
  code?: number;
  /** How stdout is written (terminal.ts): `text` unless it is JSON or RDF (`code`) or CSV or XML (`data`). */
  form?: Form;
}

/** A command the light entry runs: its arguments read as the command reads them. */
export interface LightCommand<R> {
  /** The command's name, as typed (`usage`). */
  name: string;
  /** The request its arguments make, or undefined for --help; throws the command's usage errors. */
  parse(args: string[]): Promise<R | undefined>;
  /** The answer given in this process without opening the store, for a command that reads no graph. */
  here?(request: R): Promise<Printed>;
}

export interface ServedCommand<R> extends LightCommand<R> {
  storeDir(request: R): string;
  /** Whether this request is answered here whatever runs: --no-daemon, or a query only this process can run. */
  answersHere(request: R): boolean;
  /** Answered here in about a second when no server has the store open yet: it waits for none (daemon.ts). */
  quickHere?: boolean;
  /** The server to ask when not the store's resident one (found, or started): undefined answers here. */
  server?(request: R, entry?: string): Promise<FoundServer | undefined>;
  /** The answer from `server`; undefined when it cannot give this one (the command then answers by itself). */
  ask(server: FoundServer, request: R): Promise<Printed | undefined>;
  /**
   * The answer from an external store (`remote`), asked straight from this process: the engine
   * is the server. Undefined when it cannot be given here (the full CLI then answers, or says why).
   * `entry`: the command line's entry, beside which the data files (prices) are found.
   */
  external?(remote: RemoteConfig, request: R, entry?: string): Promise<Printed | undefined>;
}

export function isServed<R>(command: LightCommand<R>): command is ServedCommand<R> {
  return 'ask' in command;
}

/**
 * The request answered by the store's server (found, or started when none runs), or undefined:
 * this process answers. A server gone between the look and the question, or stopping as it is
 * asked (for idleness that very moment), is no answer either.
 */
export async function served<R>(command: ServedCommand<R>, request: R, entry?: string): Promise<Printed | undefined> {
  if (command.answersHere(request)) return undefined;
  const server = command.server
    ? await command.server(request, entry)
    : await residentServer(command.storeDir(request), { command: command.name, entry, quickHere: command.quickHere });
  if (!server) {
    const remote = await externalStore(command.storeDir(request));
    return remote && fromExternal(command, remote, request, entry);
  }
  try {
    return await command.ask(server, request);
  } catch (e) {
    if (serverGone(e)) return undefined;
    throw e;
  }
}

/** An external store's answer; one that cannot be reached is left to the full CLI, which says so in its words. */
async function fromExternal<R>(command: ServedCommand<R>, remote: RemoteConfig, request: R, entry?: string): Promise<Printed | undefined> {
  try {
    return await command.external?.(remote, request, entry);
  } catch (e) {
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes((e as NodeJS.ErrnoException).code ?? ''))
      return undefined;
    throw e;
  }
}

/**
 * Writes what a command prints, and gives its exit code once stdout has taken it all. Every
 * command's output passes here: a transcript's text in it can hold a terminal's escapes, which
 * are shown, never obeyed (terminal.ts).
 */
export async function print(printed: Printed): Promise<number> {
  if (printed.warnings) process.stderr.write(printable(printed.warnings, { form: 'text' }));
  const stdout = printable(printed.stdout, { form: printed.form ?? 'text', terminal: !!process.stdout.isTTY });
  await new Promise<void>((resolve) => process.stdout.write(stdout, () => resolve()));
  if (printed.notes) process.stderr.write(printable(printed.notes, { form: 'text' }));
  return printed.code ?? 0;
}
