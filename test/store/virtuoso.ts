import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A real Virtuoso (Debian's virtuoso-opensource 7.2.5, which .ci/run installs) for the external
 * store tests: started in a temp directory with its own virtuoso.ini on free loopback ports,
 * SPARQL_UPDATE granted to the SPARQL user (so `/sparql-graph-crud` takes Graph Store writes),
 * and stopped with its files removed. Undefined, with the reason, where the binaries are missing.
 */

const SERVER = '/usr/bin/virtuoso-t';
const ISQL = '/usr/bin/isql-vt';
/** The HTTP server's documents; Virtuoso wants a ServerRoot even though /sparql needs none of them. */
const VSP = '/var/lib/virtuoso-opensource-7/vsp';

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

/** What the scale bench sizes otherwise (bench/scale/virtuoso.ts); the tests keep the server small. */
export interface VirtuosoOptions {
  /** Its directory (made; removed on stop). Default: a new temp directory. */
  dir?: string;
  /** Its HTTP port. Default: a free one. */
  httpPort?: number;
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
  const {
    buffers = 20_000,
    maxQueryMem = '500M',
    maxQuerySeconds = 600,
    resultSetMaxRows = 100_000_000,
    startSeconds = 60,
    stopSeconds = 10,
  } = options;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'weave-virtuoso-')));
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
DirsAllowed = ., ${file('load')}
CaseMode = 2
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
  const child: ChildProcess = spawn(SERVER, ['+configfile', file('virtuoso.ini'), '+foreground'], { cwd: dir, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, stopSeconds * 1000))]);
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  };
  const sql = async (statements: string) =>
    (await promisify(execFile)(ISQL, [String(sqlPort), 'dba', 'dba', `exec=${statements}`], { maxBuffer: 2 ** 26 })).stdout;
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  try {
    for (let i = 0; ; i++) {
      const up = await fetch(`${endpoint}?query=ASK%7B%7D`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > startSeconds * 10 || child.exitCode !== null) throw new Error(`Virtuoso did not start (see ${file('virtuoso.log')})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await sql('GRANT SPARQL_UPDATE TO "SPARQL";');
  } catch (e) {
    await stop();
    throw e;
  }
  return { endpoint, isql: `127.0.0.1:${sqlPort}`, loadDir: file('load'), pid: child.pid!, sql, stop };
}
