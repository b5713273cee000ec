import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remoteStoreDir } from '../../src/store/remote/config.ts';
import { externalQueryText } from '../../src/store/remote/query-text.ts';
import type { ExternalRun } from './results.ts';
import { newlines, runTimed } from './timed.ts';
import { type BenchVirtuoso, startBenchVirtuoso } from './virtuoso.ts';

/**
 * The scale bench's external step (`--external`): the K copies into a Virtuoso, each figure
 * beside Virtuoso's own. `weave ingest --store http://…/sparql` into an empty Virtuoso, then each
 * ready query through `weave query --store …` beside a bare fetch of the SPARQL weave sends (its
 * prefixes and its union read as the merge); then `weave export --format nquads --rdf 1.1` of
 * what was sent, loaded by Virtuoso's bulk loader (ld_dir, rdf_loader_run) into another empty
 * Virtuoso on the same port. Weave's ingest goes through the bulk loader (remote.json's `bulk`,
 * as the guide configures it; BENCH_EXTERNAL_BULK=0: Graph Store PUTs alone). A query past the cap
 * (BENCH_QUERY_CAP_S) is cut off and asked no more. Then `weave verify --store …` of every line
 * and stored text the ingest read, cut off after `verifyCapMs` (BENCH_VERIFY_CAP_S, an hour by
 * default). Every command runs as a user would run it, timed by /usr/bin/time; `save` is called
 * after each figure, so a step cut short keeps what it measured.
 */

const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));
const TSV = 'text/tab-separated-values';
/** Quads in a Virtuoso's graphs: an empty one holds its own (virtrdf and the like), counted first and taken off. */
const COUNT = 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }';

export async function externalStep(
  run: ExternalRun,
  paths: string[],
  dir: string,
  port: number,
  queries: { name: string; text: string }[],
  save: () => Promise<void>,
  say: (text: string) => void,
  capMs = 180_000,
  verifyCapMs = 3_600_000,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  // A data directory of the bench's own: the external store's directory (manifest, graph files) goes there.
  const env = { WEAVE_HOME: join(dir, 'home'), WEAVE_NO_DAEMON: '1' };
  let virtuoso = await startBenchVirtuoso(join(dir, 'virtuoso-weave'), port);
  try {
    if (process.env.BENCH_EXTERNAL_BULK !== '0') await useBulkLoader(virtuoso, env.WEAVE_HOME);
    const empty = await count(virtuoso);
    say(`weave ingest --store ${virtuoso.endpoint}`);
    const ingest = await runTimed([WEAVE, 'ingest', '--store', virtuoso.endpoint, ...paths], env, false);
    run.ingest = { ...measured(ingest), ...(ingest.code ? { failed: lastLine(ingest.stderr), said: tail(ingest.stderr) } : {}) };
    run.quads = (await count(virtuoso)) - empty;
    await save();
    for (const { name, text } of queries) {
      say(`query ${name}`);
      const file = join(dir, `${name}.rq`);
      await writeFile(file, text);
      // Virtuoso's own answer first (it reads the pages from disk into its buffers), then weave's, then Virtuoso's again.
      const cold = await bare(virtuoso, text, capMs);
      if (cold.failed) {
        // Cut off (or refused): asked no more, as the embedded steps do past the cap.
        run.queries.push({ name, bareColdMs: cold.ms, failed: cold.failed });
        await save();
        continue;
      }
      const viaWeave = await runTimed([WEAVE, 'query', '--store', virtuoso.endpoint, '-f', file, '--format', 'tsv'], env, false, capMs);
      const warm = await bare(virtuoso, text, capMs);
      run.queries.push({
        name,
        bareColdMs: cold.ms,
        bareMs: warm.ms,
        rows: warm.rows,
        weaveMs: viaWeave.wallMs,
        weaveRows: viaWeave.code === 0 ? viaWeave.stdoutLines - 1 : undefined,
        ...(viaWeave.code || warm.failed
          ? { failed: warm.failed ?? (viaWeave.code === null ? `weave query cut off after ${capMs / 1000} s` : lastLine(viaWeave.stderr)) }
          : {}),
      });
      await save();
    }
    say(`weave verify --store ${virtuoso.endpoint}`);
    run.verify = await verified(virtuoso, env, verifyCapMs);
    await save();
    await virtuoso.stop();
    say('weave export --format nquads --rdf 1.1');
    // The same port: the export reads the graph files of the external store's directory, keyed by its URL.
    virtuoso = await startBenchVirtuoso(join(dir, 'virtuoso-bulk'), port);
    const file = join(virtuoso.loadDir, 'weave.nq');
    const exported = await runTimed(
      [WEAVE, 'export', '--store', virtuoso.endpoint, '--format', 'nquads', '--rdf', '1.1', '-o', file],
      env,
      false,
    );
    run.export = { ...measured(exported), bytes: (await stat(file).catch(() => undefined))?.size ?? 0 };
    await save();
    say("Virtuoso's bulk loader");
    const emptyAgain = await count(virtuoso);
    const t0 = performance.now();
    // One loader per core, as Virtuoso's bulk loading guide runs them; the export is one file, so one reads it.
    await virtuoso.sql(`ld_dir('${virtuoso.loadDir}', '*.nq', 'urn:weave:bench:default'); rdf_loader_run(); checkpoint;`);
    const loadedMs = performance.now() - t0;
    const errors = await virtuoso.sql('SELECT COUNT(*) FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;');
    run.bulkLoad = { wallMs: loadedMs, quads: (await count(virtuoso)) - emptyAgain, files: (await readdir(virtuoso.loadDir)).length };
    if (!/^\s*0\s*$/m.test(errors)) run.bulkLoad.failed = 'the loader logged errors (DB.DBA.LOAD_LIST)';
    await save();
  } finally {
    await virtuoso.stop();
  }
}

/** What the bench reads of each file in `weave verify --json`. */
interface VerifiedFile {
  path: string;
  lines: number;
  contents: number;
  inStore: boolean;
  missing: number[];
  mismatches: unknown[];
  rewritten?: boolean;
  unreadable?: string;
}

/** `weave verify --store …` of everything the ingest read: its figures, and what its report says. */
async function verified(virtuoso: BenchVirtuoso, env: NodeJS.ProcessEnv, capMs: number): Promise<ExternalRun['verify']> {
  const ran = await runTimed([WEAVE, 'verify', '--store', virtuoso.endpoint, '--json'], env, true, capMs);
  if (ran.code === null) return { ...measured(ran), failed: `cut off after ${capMs / 1000} s` };
  try {
    const report = JSON.parse(ran.stdout) as { ok: boolean; store: { ok: boolean }; files: VerifiedFile[] };
    const failing = report.files.filter((f) => !f.inStore || f.missing.length || f.mismatches.length || f.rewritten || f.unreadable);
    return {
      ...measured(ran),
      ok: report.ok,
      lines: report.files.reduce((n, f) => n + f.lines, 0),
      texts: report.files.reduce((n, f) => n + f.contents, 0),
      ...(report.ok
        ? {}
        : {
            failing: failing.length,
            ...(report.store.ok ? {} : { storeFails: true }),
            said: failing
              .slice(0, 10)
              .map(
                (f) =>
                  `${f.path}: ${f.inStore ? `${f.missing.length} lines missing, ${f.mismatches.length} texts differ` : 'not in the store'}${f.unreadable ? `, ${f.unreadable}` : ''}${f.rewritten ? ', rewritten' : ''}`,
              ),
          }),
    };
  } catch {
    return { ...measured(ran), failed: lastLine(ran.stderr) || `exit ${ran.code}` };
  }
}

function measured(r: { wallMs?: number; cpuMs?: number; peakRssMiB?: number }) {
  return { wallMs: r.wallMs ?? Number.NaN, cpuMs: r.cpuMs ?? Number.NaN, peakRssMiB: r.peakRssMiB ?? Number.NaN };
}

/** The last lines of a failed command's stderr, for the results (weave prints no record content there). */
function tail(text: string): string[] {
  return text.trim().split('\n').slice(-20);
}

/** The command's own last line of stderr: not /usr/bin/time's note of its exit status. */
function lastLine(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => !/^Command (exited with non-zero status|terminated by signal) \d+$/.test(l));
  return lines.at(-1)?.slice(0, 300) ?? '';
}

async function count(virtuoso: BenchVirtuoso): Promise<number> {
  const res = await fetch(virtuoso.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: TSV },
    body: new URLSearchParams({ query: COUNT }).toString(),
  });
  return Number((await res.text()).trim().split('\n')[1]);
}

/**
 * The SPARQL weave sends for `query` (its prefixes, its union as the merge), fetched bare: wall
 * time to the last byte, and rows; cut off after `capMs`.
 */
async function bare(virtuoso: BenchVirtuoso, query: string, capMs: number): Promise<{ ms: number; rows?: number; failed?: string }> {
  // The very text weave sends (its prefixes, triple terms in the RDF 1.1 form, the union as the merge).
  const text = externalQueryText(query, { tripleTerms: false });
  const t0 = performance.now();
  try {
    const res = await fetch(virtuoso.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: TSV },
      body: new URLSearchParams({ query: text }).toString(),
      signal: AbortSignal.timeout(capMs),
    });
    if (!res.ok)
      return {
        ms: performance.now() - t0,
        failed: `Virtuoso answered ${res.status}: ${(await res.text()).trim().split('\n')[0].slice(0, 200)}`,
      };
    let lines = 0;
    for await (const chunk of res.body ?? []) lines += newlines(chunk as Uint8Array);
    return { ms: performance.now() - t0, rows: lines - 1 };
  } catch (e) {
    if ((e as Error).name !== 'TimeoutError') throw e;
    return { ms: performance.now() - t0, failed: `cut off after ${capMs / 1000} s` };
  }
}

/** Names the Virtuoso's bulk loader in the remote.json `weave ingest --store URL` will open (made beforehand), as the guide says. */
async function useBulkLoader(virtuoso: BenchVirtuoso, home: string): Promise<void> {
  const path = join(remoteStoreDir(virtuoso.endpoint, home), 'remote.json');
  const config = JSON.parse(await readFile(path, 'utf8'));
  config.bulk = { engine: 'virtuoso', isql: virtuoso.isql, user: 'dba', password: 'dba', directory: virtuoso.loadDir };
  await writeFile(path, `${JSON.stringify(config, null, 1)}\n`, { mode: 0o600 });
}
