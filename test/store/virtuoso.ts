import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { madeOnce } from '../made-once.ts';

/**
 * A real Virtuoso (Debian's virtuoso-opensource 7.2.5, which .ci/run installs) for the external
 * store tests: started in a temp directory with its own virtuoso.ini on free loopback ports,
 * SPARQL_UPDATE granted to the SPARQL user (so `/sparql-graph-crud` takes Graph Store writes),
 * and stopped with its files removed. Undefined, with the reason, where the binaries are missing.
 *
 * Each server starts from a copy of a template database: a server given no database builds one
 * from nothing (its system tables and procedures), twice the CPU time of a start from a built one
 * (2.3-2.9 s against 1.1-1.5 s), about 13 s against 6 s on two busy cores. The template is made
 * once per machine (see `virtuosoTemplate`).
 */

const SERVER = '/usr/bin/virtuoso-t';
const ISQL = '/usr/bin/isql-vt';
/** The HTTP server's documents; Virtuoso wants a ServerRoot even though /sparql needs none of them. */
const VSP = '/var/lib/virtuoso-opensource-7/vsp';
/** The virtuoso.ini settings that shape a database, not just a server (the template is keyed by them). */
const SHAPE = 'CaseMode = 2';
/** Graph Store writes for the SPARQL user: run once, in the template, so every copy holds it. */
const GRANT = 'GRANT SPARQL_UPDATE TO "SPARQL";';

export interface Virtuoso {
  /** The SPARQL endpoint, `http://127.0.0.1:PORT/sparql`. */
  endpoint: string;
  /** Its SQL port (isql), as `127.0.0.1:PORT`; the user is dba, password dba. */
  isql: string;
  /** A directory in its DirsAllowed, for files its bulk loader reads. */
  loadDir: string;
  /** The server's process id (the bench reads its CPU time). */
  pid: number;
  /** Runs SQL through isql-vt as dba; resolves with its output. */
  sql(statements: string): Promise<string>;
  stop(): Promise<void>;
}

/** What the scale bench sizes otherwise (bench/scale/virtuoso.ts), and where a test's server may read; the tests keep the server small. */
export interface VirtuosoOptions {
  /** Its directory (made; removed on stop). Default: a new temp directory. */
  dir?: string;
  /** Its HTTP port. Default: a free one. */
  httpPort?: number;
  /** Directories besides its load directory it may read files from (its DirsAllowed). */
  readable?: string[];
  /** NumberOfBuffers (8 kB pages); MaxDirtyBuffers is three quarters of it. */
  buffers?: number;
  maxQueryMem?: string;
  maxQuerySeconds?: number;
  /** The rows Virtuoso cuts an answer at (its [SPARQL] ResultSetMaxRows). Default: 100,000,000, where a stock virtuoso.ini says 10,000. */
  resultSetMaxRows?: number;
  /** How long the server may take to start, and to stop before it is killed. */
  startSeconds?: number;
  stopSeconds?: number;
}

export function virtuosoMissing(): string | undefined {
  return existsSync(SERVER) && existsSync(ISQL)
    ? undefined
    : `${SERVER} is not installed (apt-get install virtuoso-opensource; .ci/run does)`;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startVirtuoso(options: VirtuosoOptions = {}): Promise<Virtuoso> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'weave-virtuoso-')));
  await mkdir(dir, { recursive: true });
  await copyFile(join(await virtuosoTemplate(), 'virtuoso.db'), join(dir, 'virtuoso.db'));
  const { exited: _, ...virtuoso } = await launch(dir, options);
  return virtuoso;
}

/**
 * The directory holding the template database, made by the first caller on this machine: a
 * fresh server given the GRANT, then shut down through isql (`shutdown;` checkpoints, so the
 * database file holds everything and the transaction log is left empty; SIGTERM's quick shutdown
 * leaves the GRANT in the log). Only its virtuoso.db is kept; no server ever opens the template
 * itself. Keyed by the server binary (its size and mtime) and the settings that shape a database,
 * so an upgraded Virtuoso or a changed setting makes a new one.
 */
export function virtuosoTemplate(): Promise<string> {
  const { size, mtimeMs } = statSync(SERVER);
  const key = createHash('sha256')
    .update(JSON.stringify([size, mtimeMs, SHAPE, GRANT]))
    .digest('hex')
    .slice(0, 16);
  return madeOnce(join(tmpdir(), `weave-virtuoso-template-${key}`), async (dir) => {
    const server = await launch(join(dir, 'server'), {});
    try {
      await server.sql(GRANT);
      // isql may lose its connection as the server goes; the server's exit is what counts.
      await server.sql('shutdown;').catch(() => undefined);
      await Promise.race([
        server.exited,
        new Promise((_, reject) => setTimeout(() => reject(new Error('Virtuoso did not shut down')), 60_000).unref()),
      ]);
      if ((await stat(join(dir, 'server', 'virtuoso.trx'))).size !== 0)
        throw new Error('Virtuoso shut down with its transaction log not empty');
      await rename(join(dir, 'server', 'virtuoso.db'), join(dir, 'virtuoso.db'));
    } finally {
      await server.stop();
    }
  });
}

/** Starts a server in `dir` (its database file as found there, or a new one) and waits for its endpoint. */
async function launch(dir: string, options: VirtuosoOptions): Promise<Virtuoso & { exited: Promise<void> }> {
  const {
    buffers = 20_000,
    maxQueryMem = '500M',
    maxQuerySeconds = 600,
    resultSetMaxRows = 100_000_000,
    startSeconds = 60,
    stopSeconds = 10,
  } = options;
  const [sqlPort, httpPort] = [await freePort(), options.httpPort ?? (await freePort())];
  const file = (name: string) => join(dir, name);
  await mkdir(file('load'), { recursive: true });
  await writeFile(
    file('virtuoso.ini'),
    `[Database]
DatabaseFile = ${file('virtuoso.db')}
ErrorLogFile = ${file('virtuoso.log')}
LockFile = ${file('virtuoso.lck')}
TransactionFile = ${file('virtuoso.trx')}
xa_persistent_file = ${file('virtuoso.pxa')}
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = ${file('virtuoso-temp.db')}
TransactionFile = ${file('virtuoso-temp.trx')}
[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DisableUnixSocket = 1
DirsAllowed = ${['.', file('load'), ...(options.readable ?? [])].join(', ')}
${SHAPE}
NumberOfBuffers = ${buffers}
MaxDirtyBuffers = ${Math.round((buffers * 3) / 4)}
ThreadsPerQuery = 2
MaxQueryMem = ${maxQueryMem}
[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${VSP}
ServerThreads = 8
MaxClientConnections = 8
Charset = UTF-8
[SPARQL]
; Virtuoso cuts results at 10,000 rows unless told otherwise: figures would silently differ.
ResultSetMaxRows = ${resultSetMaxRows}
MaxQueryExecutionTime = ${maxQuerySeconds}
MaxQueryCostEstimationTime = 0
`,
  );
  const child: ChildProcess = spawn(SERVER, ['+configfile', file('virtuoso.ini'), '+foreground'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // In the foreground it logs to its stdout (its virtuoso.log stays empty): the end is kept for a start that fails.
  let said = '';
  const hear = (chunk: Buffer) => {
    said = (said + chunk.toString('utf8')).slice(-2000);
  };
  child.stdout?.on('data', hear);
  child.stderr?.on('data', hear);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    // Unref'd: a pending grace timer kept the process alive that long after the server was gone.
    await Promise.race([exited, new Promise((r) => setTimeout(r, stopSeconds * 1000).unref())]);
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  const sql = async (statements: string) =>
    (await promisify(execFile)(ISQL, [String(sqlPort), 'dba', 'dba', `exec=${statements}`], { maxBuffer: 2 ** 26 })).stdout;
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  try {
    for (let i = 0; ; i++) {
      // Bounded: whatever holds the port without answering (not this server) is not waited on for fetch's 300 s.
      const up = await fetch(`${endpoint}?query=ASK%7B%7D`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > startSeconds * 10 || child.exitCode !== null)
        throw new Error(
          `Virtuoso did not start${child.exitCode !== null ? ` (it exited with ${child.exitCode})` : ` in ${startSeconds} s`}; it said:\n${said.trim()}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { endpoint, isql: `127.0.0.1:${sqlPort}`, loadDir: file('load'), pid: child.pid!, sql, stop, exited };
}
