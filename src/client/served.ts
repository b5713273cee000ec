import type { FoundServer } from '../store/running.ts';
import { residentServer } from './daemon.ts';
import { findServer } from '../store/running.ts';

/**
 * A command a server can answer, in the shape both entries run it: the light one
 * (client/fast.ts, no TypeScript loader, no Oxigraph) and the full CLI, which answers by itself
 * when no server can. Each such command reads its arguments once (`parse`, as the command reads
 * them), asks the server (`ask`), and prints what it would print had it opened the store.
 */

/** What a command prints, and how it ends. */
export interface Printed {
  stdout: string;
  /** Lines for stderr, written before stdout. */
  warnings?: string;
  /** Lines for stderr, written after stdout. */
  notes?: string;
  code?: number;
}

export interface ServedCommand<R> {
  /** The command's name, as typed (`usage`). */
  name: string;
  /** The request its arguments make, or undefined for --help; throws the command's usage errors. */
  parse(args: string[]): Promise<R | undefined>;
  storeDir(request: R): string;
  /** Whether this request is answered here whatever runs: --no-daemon, or a query only this process can run. */
  answersHere(request: R): boolean;
  /** Whether a resident server is started when none runs (a command that reads no graph only asks one that runs). */
  starts: boolean;
  /** The answer from `server`; undefined when it cannot give this one (the command then answers by itself). */
  ask(server: FoundServer, request: R): Promise<Printed | undefined>;
  /** The answer without a server, for a command light enough to give it in the light entry (it opens no store). */
  here?(request: R): Promise<Printed>;
}

/**
 * The request answered by the store's server (found, or started when the command starts one), or
 * undefined: this process answers. A server gone between the look and the question (it stopped
 * for idleness that very moment) is no answer either.
 */
export async function served<R>(command: ServedCommand<R>, request: R, entry?: string): Promise<Printed | undefined> {
  if (command.answersHere(request)) return undefined;
  const dir = command.storeDir(request);
  const server = command.starts ? await residentServer(dir, { command: command.name, entry }) : await findServer(dir);
  if (!server) return undefined;
  try {
    return await command.ask(server, request);
  } catch (e) {
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw e;
  }
}

/** Writes what a command prints, and gives its exit code once stdout has taken it all. */
export async function print(printed: Printed): Promise<number> {
  if (printed.warnings) process.stderr.write(printed.warnings);
  await new Promise<void>((resolve) => process.stdout.write(printed.stdout, () => resolve()));
  if (printed.notes) process.stderr.write(printed.notes);
  return printed.code ?? 0;
}
