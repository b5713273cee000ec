import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { remoteStoreDir } from '../src/store/remote/config.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from '../test/store/virtuoso.ts';

/**
 * `weave ingest --store http://…/sparql` into a fresh Virtuoso, side by side with Virtuoso's own
 * bulk loader of the same quads (`weave export --format nquads --rdf 1.1` of that ingest, loaded
 * by ld_dir + rdf_loader_run + checkpoint into another fresh Virtuoso): through the bulk path
 * (remote.json's `bulk`), through the Graph Store Protocol alone (BENCH_EXTERNAL_GSP=0 skips it)
 * and, for the floor, the same ingest into an embedded store; the bulk path and the embedded store
 * also with `--jobs 1` (every session in one thread). Each command is the CLI, as a user runs it
 * (readers included).
 */

const WEAVE = fileURLToPath(new URL('../bin/weave', import.meta.url));

export interface ExternalRow {
  name: string;
  ms: number;
  /** CPU seconds spent: Weave's (the command's) and Virtuoso's, beside the wall time (this machine is shared). */
  cpu: { weave: number; virtuoso: number };
  /** Quads its session and reader graphs (`urn:soul:…:Weave/graph/…`) hold after it, by Virtuoso's count; undefined for the embedded store. */
  quads?: number;
}

export async function externalBench(source: string): Promise<ExternalRow[] | string> {
  const missing = virtuosoMissing();
  if (missing) return missing;
  const rows: ExternalRow[] = [];
  const work = await mkdtemp(join(tmpdir(), 'weave-bench-external-'));
  try {
    // The bulk path, and what its store directory keeps is what the loader is given.
    const bulkHome = join(work, 'bulk');
    const bulk = await intoVirtuoso(source, bulkHome, true);
    rows.push({ name: 'weave ingest --store Virtuoso (its bulk loader)', ...bulk });
    // Sessions read one at a time, in one thread, as before the reading threads (src/session-pool.ts).
    rows.push({ name: '  the same, --jobs 1', ...(await intoVirtuoso(source, join(work, 'bulk-1'), true, ['--jobs', '1'])) });
    if (process.env.BENCH_EXTERNAL_GSP !== '0')
      rows.push({ name: 'weave ingest --store Virtuoso (Graph Store PUTs)', ...(await intoVirtuoso(source, join(work, 'gsp'), false)) });
    for (const [name, args] of [
      ['weave ingest, embedded store (the floor)', []],
      ['  the same, --jobs 1', ['--jobs', '1']],
    ] as const) {
      const t = performance.now();
      const weave = await run([WEAVE, 'ingest', '--store', join(work, `embedded${args.length ? '-1' : ''}`), ...args, source], {});
      rows.push({ name, ms: performance.now() - t, cpu: { weave, virtuoso: 0 } });
    }
    const virtuoso = await startVirtuoso();
    try {
      const file = join(virtuoso.loadDir, 'weave.nq');
      await run([WEAVE, 'export', '--store', bulk.dir, '--format', 'nquads', '--rdf', '1.1', '--lean', '-o', file], {});
      const bytes = (await stat(file)).size;
      const t0 = performance.now();
      const cpu0 = cpuSeconds(virtuoso.pid);
      await isql(virtuoso, `ld_dir('${virtuoso.loadDir}', 'weave.nq', 'urn:weave:bench');\nrdf_loader_run();\ncheckpoint;\n`);
      rows.push({
        name: `Virtuoso's bulk loader, the same quads (${(bytes / 1e6).toFixed(0)} MB N-Quads)`,
        ms: performance.now() - t0,
        cpu: { weave: 0, virtuoso: cpuSeconds(virtuoso.pid) - cpu0 },
        quads: await count(virtuoso),
      });
    } finally {
      await virtuoso.stop();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return rows;
}

export function printExternal(rows: ExternalRow[] | string): void {
  if (typeof rows === 'string') {
    console.log(`  skipped: ${rows}`);
    return;
  }
  const loader = rows[rows.length - 1];
  const cpu = (r: ExternalRow) => r.cpu.weave + r.cpu.virtuoso;
  console.log(`  ${''.padEnd(62)}   wall  ratio   CPU (Weave + Virtuoso)  ratio`);
  for (const r of rows)
    console.log(
      `  ${r.name.padEnd(62)} ${(r.ms / 1000).toFixed(1).padStart(6)} s  ×${(r.ms / loader.ms).toFixed(2)}  ${cpu(r).toFixed(1).padStart(6)} s (${r.cpu.weave.toFixed(1)} + ${r.cpu.virtuoso.toFixed(1)})  ×${(cpu(r) / cpu(loader)).toFixed(2)}${r.quads === undefined ? '' : `  ${r.quads.toLocaleString('en')} quads`}`,
    );
}

/** `weave ingest --store ENDPOINT` into a fresh Virtuoso, its store directory under `home`, with or without the bulk loader. */
async function intoVirtuoso(
  source: string,
  home: string,
  bulk: boolean,
  args: readonly string[] = [],
): Promise<{ ms: number; cpu: ExternalRow['cpu']; quads: number; dir: string }> {
  const virtuoso = await startVirtuoso();
  try {
    // The directory `--store URL` opens, made beforehand so its remote.json can name the loader.
    const dir = remoteStoreDir(virtuoso.endpoint, home);
    if (bulk) {
      const path = join(dir, 'remote.json');
      const config = JSON.parse(await readFile(path, 'utf8'));
      config.bulk = { engine: 'virtuoso', isql: virtuoso.isql, user: 'dba', password: 'dba', directory: virtuoso.loadDir };
      await writeFile(path, `${JSON.stringify(config, null, 1)}\n`, { mode: 0o600 });
    }
    const t = performance.now();
    const cpu0 = cpuSeconds(virtuoso.pid);
    const weave = await run([WEAVE, 'ingest', '--store', virtuoso.endpoint, ...args, source], { WEAVE_HOME: home });
    const ms = performance.now() - t;
    return { ms, cpu: { weave, virtuoso: cpuSeconds(virtuoso.pid) - cpu0 }, quads: await count(virtuoso), dir };
  } finally {
    await virtuoso.stop();
  }
}

/** Runs a command to its end; the CPU seconds it and its children spent (user + system, as GNU time counts them). */
function run(argv: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'weave-cpu %U %S', ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      const cpu = /weave-cpu ([\d.]+) ([\d.]+)/.exec(err);
      if (code === 0 && cpu) resolve(Number(cpu[1]) + Number(cpu[2]));
      else reject(new Error(`${argv.slice(0, 2).join(' ')} exited ${code}: ${err.slice(-500)}`));
    });
  });
}

/** A process's CPU seconds so far (user + system), from /proc (100 ticks a second, as Linux counts them here). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function isql(virtuoso: Virtuoso, script: string): Promise<string> {
  const child = promisify(execFile)('isql-vt', [virtuoso.isql, 'dba', 'dba', 'VERBOSE=OFF', 'BANNER=OFF', 'PROMPT=OFF']);
  child.child.stdin?.end(script);
  const { stdout } = await child;
  if (stdout.includes('*** Error')) throw new Error(`isql: ${stdout.split('\n').find((l) => l.includes('*** Error'))}`);
  return stdout;
}

async function count(virtuoso: Virtuoso): Promise<number> {
  const res = await fetch(
    `${virtuoso.endpoint}?query=${encodeURIComponent('SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "urn:soul:") && CONTAINS(STR(?g), ":Weave/graph/")) }')}`,
    {
      headers: { accept: 'text/csv', connection: 'close' },
    },
  );
  return Number((await res.text()).trim().split(/\r?\n/)[1]);
}
