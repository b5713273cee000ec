import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RemoteStore } from '../src/store/remote/client.ts';
import { startVirtuoso, virtuosoMissing } from '../test/store/virtuoso.ts';

/**
 * Two machines, one external store (issue 26): the source's folders split in two, alternately,
 * each half ingested by its own `weave ingest` process (a data directory of its own, so a store
 * directory and a soul of its own: one made for the machine, one `--soul bob`) into one
 * Virtuoso, at the same time; then `weave verify` from each. "Land in full": each machine's
 * sessions are its soul's session graphs in the store, and its verify passes.
 */

const WEAVE = fileURLToPath(new URL('../bin/weave', import.meta.url));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

function weave(args: string[], home: string): Promise<Ran> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    execFile(WEAVE, args, { env: { ...process.env, WEAVE_HOME: home }, maxBuffer: 1 << 30 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: performance.now() - t0 }),
    );
  });
}

export interface SoulRow {
  machine: string;
  soul: string;
  folders: number;
  /** Sessions the machine's store holds (its manifest, `weave status`). */
  sessions: number;
  /** Session graphs of its soul in the external store. */
  inStore: number;
  held: number;
  ingestSeconds: number;
  verified: boolean;
  lines: number;
  /** Lines the store has nothing for, and files it does not hold: what "not in full" would be. */
  missing: number;
  notInStore: number;
  /** Texts whose length or digest differs from the source (verify's other failure). */
  differ: number;
  verifySeconds: number;
}

export async function soulsBench(source: string): Promise<{ rows: SoulRow[]; wallSeconds: number } | string> {
  const missing = virtuosoMissing();
  if (missing) return missing;
  const folders = (await readdir(source, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => join(source, e.name))
    .sort();
  const halves = [folders.filter((_, i) => i % 2 === 0), folders.filter((_, i) => i % 2 === 1)];
  const virtuoso = await startVirtuoso();
  const base = await mkdtemp(join(tmpdir(), 'weave-bench-souls-'));
  try {
    const machines = [
      { machine: 'A', home: join(base, 'a'), paths: halves[0], soul: [] as string[] },
      { machine: 'B', home: join(base, 'b'), paths: halves[1], soul: ['--soul', 'bob'] },
    ];
    const t0 = performance.now();
    const ingests = await Promise.all(
      machines.map((m) => weave(['ingest', ...m.paths, '--store', virtuoso.endpoint, '--json', ...m.soul], m.home)),
    );
    const wallSeconds = (performance.now() - t0) / 1000;
    const remote = new RemoteStore({
      format: 'weave-remote/1',
      endpoint: virtuoso.endpoint,
      graphStore: virtuoso.endpoint.replace(/\/sparql$/, '/sparql-graph-crud'),
      tripleTerms: false,
    });
    const answer = await remote.query(
      'SELECT ?g WHERE { GRAPH ?g { ?t weave:sessionId ?id } FILTER(STRENDS(STR(?g), CONCAT("/graph/", ENCODE_FOR_URI(?id)))) } GROUP BY ?g',
      ['application/sparql-results+json'],
    );
    const graphs = (JSON.parse(new TextDecoder().decode(answer.body)).results.bindings as { g: { value: string } }[]).map((r) => r.g.value);
    const rows: SoulRow[] = [];
    for (const [i, m] of machines.entries()) {
      const ran = ingests[i];
      if (ran.code !== 0) throw new Error(`machine ${m.machine}'s weave ingest exited ${ran.code}: ${ran.stderr.trim().split('\n').pop()}`);
      const report = JSON.parse(ran.stdout) as { heldElsewhere?: unknown[] };
      const status = JSON.parse((await weave(['status', '--store', virtuoso.endpoint, '--json', '--no-daemon'], m.home)).stdout);
      const verify = await weave(['verify', '--store', virtuoso.endpoint, '--json'], m.home);
      const verified = JSON.parse(verify.stdout) as {
        ok: boolean;
        files: { lines: number; inStore: boolean; missing: number[]; mismatches: unknown[] }[];
      };
      rows.push({
        machine: m.machine,
        soul: status.soul,
        folders: m.paths.length,
        sessions: status.sessions,
        inStore: graphs.filter((g) => g.startsWith(`urn:soul:${status.soul}:`)).length,
        held: report.heldElsewhere?.length ?? 0,
        ingestSeconds: ran.ms / 1000,
        verified: verified.ok,
        lines: verified.files.reduce((n, f) => n + f.lines, 0),
        missing: verified.files.reduce((n, f) => n + f.missing.length, 0),
        notInStore: verified.files.filter((f) => !f.inStore).length,
        differ: verified.files.reduce((n, f) => n + f.mismatches.length, 0),
        verifySeconds: verify.ms / 1000,
      });
    }
    return { rows, wallSeconds };
  } finally {
    await virtuoso.stop();
    await rm(base, { recursive: true, force: true });
  }
}

export function printSouls(result: { rows: SoulRow[]; wallSeconds: number } | string): void {
  if (typeof result === 'string') {
    console.log(`  skipped: ${result}`);
    return;
  }
  console.log(
    '  machine  soul                  folders  sessions  in store  held  ingest s  verify  lines    missing  texts differ  verify s',
  );
  for (const r of result.rows)
    console.log(
      `  ${r.machine.padEnd(7)}  ${r.soul.padEnd(20)}  ${String(r.folders).padStart(7)}  ${String(r.sessions).padStart(8)}  ${String(r.inStore).padStart(8)}  ${String(r.held).padStart(4)}  ${r.ingestSeconds.toFixed(1).padStart(8)}  ${(r.verified ? 'passes' : 'FAILS').padEnd(6)}  ${String(r.lines).padStart(7)}  ${String(r.missing + r.notInStore).padStart(7)}  ${String(r.differ).padStart(12)}  ${r.verifySeconds.toFixed(1).padStart(8)}`,
    );
  // In full: every session of each machine is its soul's graph there, every line accounted for.
  const full = result.rows.every((r) => r.inStore === r.sessions && r.missing === 0 && r.notInStore === 0);
  const passes = result.rows.every((r) => r.verified);
  console.log(
    `  both at once: ${result.wallSeconds.toFixed(1)} s wall; ${full ? 'both land in full (each soul holds every session of its machine, every line accounted for)' : 'NOT in full'}; weave verify ${passes ? 'passes from each' : 'fails (see "texts differ": lengths or digests of texts as the store gives them back)'}`,
  );
}
