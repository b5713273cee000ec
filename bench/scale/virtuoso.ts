import { execFile, spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The scale bench's external store: Debian's Virtuoso 7.2 in a directory of its own, sized for
 * the data as its documentation sizes it (virtuoso.ini's table: NumberOfBuffers 340,000 and
 * MaxDirtyBuffers 250,000 for 4 GB of RAM, each buffer an 8 kB page; the machine is shared, so
 * 4 GB is its share, BENCH_VIRTUOSO_GB to change), its bulk loader allowed to read `loadDir`,
 * and the SPARQL user granted updates so the Graph Store Protocol takes weave's writes. The
 * test suite's Virtuoso (test/store/virtuoso.ts) is the same server kept small.
 */

const SERVER = '/usr/bin/virtuoso-t';
export const ISQL = '/usr/bin/isql-vt';
const VSP = '/var/lib/virtuoso-opensource-7/vsp';
/** Buffers per GB of RAM given to Virtuoso, from virtuoso.ini's own table (340,000 for 4 GB). */
const BUFFERS_PER_GB = 85_000;

export interface BenchVirtuoso {
  endpoint: string;
  /** isql-vt's port on 127.0.0.1 (user dba, password dba). */
  sqlPort: number;
  /** Where files for the bulk loader go. */
  loadDir: string;
  /** Runs SQL through isql-vt; resolves with its output. */
  sql(statements: string): Promise<string>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts an empty Virtuoso in `dir` (made, and removed on stop) listening for HTTP on `httpPort`. */
export async function startBenchVirtuoso(
  dir: string,
  httpPort: number,
  gigabytes = Number(process.env.BENCH_VIRTUOSO_GB ?? 4),
): Promise<BenchVirtuoso> {
  const loadDir = join(dir, 'load');
  await mkdir(loadDir, { recursive: true });
  const sqlPort = await freePort();
  const file = (name: string) => join(dir, name);
  const buffers = Math.round(gigabytes * BUFFERS_PER_GB);
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
DirsAllowed = ., ${loadDir}
CaseMode = 2
NumberOfBuffers = ${buffers}
MaxDirtyBuffers = ${Math.round((buffers * 3) / 4)}
ThreadsPerQuery = 2
MaxQueryMem = 1G
[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${VSP}
ServerThreads = 8
MaxClientConnections = 8
Charset = UTF-8
[SPARQL]
ResultSetMaxRows = 100000000
MaxQueryExecutionTime = 3600
MaxQueryCostEstimationTime = 0
`,
  );
  const child = spawn(SERVER, ['+configfile', file('virtuoso.ini'), '+foreground'], { cwd: dir, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
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
      if (i > 1200 || child.exitCode !== null) throw new Error(`Virtuoso did not start (see ${file('virtuoso.log')})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await sql('GRANT SPARQL_UPDATE TO "SPARQL";');
  } catch (e) {
    await stop();
    throw e;
  }
  return { endpoint, sqlPort, loadDir, sql, stop };
}
