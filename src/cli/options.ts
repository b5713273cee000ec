import { parseArgs, type ParseArgsConfig } from 'node:util';
import { fold, terminalWidth } from '../query/fit.ts';
import { tell } from './tell.ts';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { defaultStoreDir } from '../store/paths.ts';
import { fixturesStoreDir, noStoreLine } from '../store/fixtures.ts';
import { storeEmitterNotice } from '../store/emitter.ts';
import { readManifest, type Manifest } from '../store/manifest.ts';
import { isStoreUrl, remoteStoreDir } from '../store/remote/config.ts';
import { machineSoul, SOUL_PATTERN } from '../store/remote/soul.ts';
import { REMOTE_FILE } from '../store/layout.ts';
import { exists } from '../acquire/files.ts';

/** A user-facing error: printed as one line on stderr, exit code 1 (2 for usage errors). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const COMMON_OPTIONS = {
  store: { type: 'string' },
  soul: { type: 'string' },
  'soul-repo': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/** The help of the options every command takes; `verbose`, what a command's --verbose does besides. */
export function commonHelp(verbose?: string): string {
  return `  --store DIR        the store directory (default $WEAVE_HOME, else the platform data dir); or
                     --store http(s)://HOST/sparql: an external SPARQL 1.1 store (Virtuoso, …)
  --soul ID          the soul in instance IRIs urn:soul:<soul>:Weave/…, set once per store
                     (default: the store's; a new store "local", a new external store this
                     machine's own, made once and kept in the data directory)
  --soul-repo PATH   take the soul from PATH/.lex/identity.yml (its genesis_sha: line)
  --verbose          ${verbose ? `${verbose}; and o` : 'o'}n a failure that is not a mistake in the command line, print its stack
  -h, --help         this help`;
}

export const COMMON_HELP = commonHelp();

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
}

/** `--wide`, taken by every command whose output is fitted to the terminal. */
export const WIDE_OPTION = { wide: { type: 'boolean' } } as const satisfies ParseArgsConfig['options'];

export const WIDE_HELP = `  --wide             print everything in full, whatever the terminal's width: no column hidden,
                     no cell cut, no line broken`;

/** The width output is fitted to: the terminal's, or none with `--wide`. */
export function outputWidth(values: { wide?: unknown }): number {
  return values.wide === true ? Number.POSITIVE_INFINITY : terminalWidth();
}

/** `--timeout SECONDS` of a command that runs queries: the longest one may take; undefined when not given. */
export function timeoutMs(values: { timeout?: unknown }): number | undefined {
  if (values.timeout === undefined) return undefined;
  const seconds = Number(values.timeout);
  if (!(seconds > 0)) throw new CliError(`--timeout must be a positive number of seconds, not "${values.timeout}"`, 2);
  return seconds * 1000;
}

/** `--store DIR`; `--store http(s)://…/sparql` is an external store, kept in a directory of its own (store/remote/). */
export function storeDir(values: { store?: unknown }): string {
  if (typeof values.store !== 'string') return defaultStoreDir();
  sayStore(values.store);
  if (!isStoreUrl(values.store)) return values.store;
  try {
    return remoteStoreDir(values.store);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
}

/**
 * Which store a command uses when it is not the default one, said once on a terminal (stderr),
 * the bundled fixtures' named as such: output to a pipe or a file is as it was. Once per process:
 * the light entry and the full CLI read the same arguments (a symbol on globalThis, as each has
 * its own copy of this module). weave serve names its store in its first line.
 */
function sayStore(store: string): void {
  const said = Symbol.for('weave.store-said');
  const global = globalThis as Record<symbol, unknown>;
  const command = process.argv[2] ?? '';
  // Nothing to say when --store names the default store itself.
  if (global[said] || !process.stderr.isTTY || command === 'serve' || resolve(store) === resolve(defaultStoreDir())) return;
  global[said] = true;
  const whose = resolve(store) === resolve(fixturesStoreDir()) ? "the bundled fixtures' store" : 'the store';
  const line = `weave ${command}: using ${whose} ${store} (--store), not the default ${defaultStoreDir()}`;
  process.stderr.write(`${fold(line, terminalWidth(process.stderr)).join('\n')}\n`);
}

/**
 * The store's emitter notice (store/emitter.ts) on stderr, said once per process as sayStore says
 * its line: every command that reads the store says it, the light entry before asking a server,
 * so the full CLI, when it answers after all, does not say it again. Folded on a terminal.
 */
export async function sayEmitter(dir: string): Promise<void> {
  const said = Symbol.for('weave.emitter-said');
  const global = globalThis as Record<symbol, unknown>;
  if (global[said]) return;
  global[said] = true;
  const notice = await storeEmitterNotice(dir);
  if (notice) tell(process.stderr, `weave: ${notice}`);
}

/** The store's manifest, or a one-line error saying what to do when there is no store yet. */
export async function requireStore(dir: string): Promise<Manifest> {
  const manifest = await readManifest(dir);
  if (!manifest) throw new CliError(await noStoreLine(dir));
  return manifest;
}

/**
 * `--soul`, else the genesis_sha of `--soul-repo`; else the soul the store in `dir` was first
 * written with; else, for a new store held here, "local" (the contract's default), and for a new
 * external store this machine's own (made once, store/remote/soul.ts; `made` is told when it
 * is): several machines feed such a store, and `local` would make their sessions the same graphs.
 */
export async function soul(
  values: { soul?: unknown; 'soul-repo'?: unknown },
  dir?: string,
  made?: (soul: string, path: string) => void,
): Promise<string> {
  if (typeof values.soul === 'string') return checkSoul(values.soul);
  if (typeof values['soul-repo'] === 'string') {
    const path = join(values['soul-repo'], '.lex', 'identity.yml');
    const text = await readFile(path, 'utf8').catch(() => {
      throw new CliError(`${path}: cannot read the soul identity file`);
    });
    const sha = /^genesis_sha:\s*["']?([^"'\s#]+)/m.exec(text)?.[1];
    if (!sha) throw new CliError(`${path}: no genesis_sha: line`);
    return checkSoul(sha);
  }
  // A store's soul is set once, by its first write.
  const stored = dir && (await readManifest(dir))?.soul;
  if (stored) return stored;
  if (dir && (await exists(join(dir, REMOTE_FILE)))) {
    try {
      return await machineSoul(defaultStoreDir(), made);
    } catch (e) {
      throw new CliError((e as Error).message);
    }
  }
  return 'local';
}

function checkSoul(id: string): string {
  if (!SOUL_PATTERN.test(id)) throw new CliError(`--soul must be letters, digits, '.', '_' or '-', not "${id}"`, 2);
  return id;
}
