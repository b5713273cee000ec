/**
 * `node --import tsx bench/export.ts [STORE]`: `weave export` against reading and parsing the
 * same bytes, side by side, each in a process of its own (time and peak RSS), twice, the faster
 * run kept. The baseline is what any export must at least do: read the graph files (`read`) and
 * parse them with N3 (`read+parse`). STORE defaults to a store built from ../shared/corpus.
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { devNull } from 'node:os';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { StreamParser } from 'n3';
import { type ExportFormat, exportStore } from '../src/export/export.ts';
import { planExport } from '../src/export/graphs.ts';
import type { RdfMode } from '../src/rdf/rdf-mode.ts';

const JOBS = ['read', 'read+parse', 'nquads 1.2', 'ntriples 1.2', 'nquads 1.1', 'trig 1.2', 'trig 1.1', 'trig star', 'turtle 1.2', 'jsonld 1.1', 'rdfxml 1.1'];

async function job(store: string, name: string): Promise<string> {
  const plan = await planExport(store);
  const files = plan.sources.map((s) => s.path);
  if (name === 'read') {
    for (const f of files) await pipeline(createReadStream(f), new Writable({ write: (_c, _e, done) => done() }));
    return `${plan.bytes} bytes`;
  }
  if (name === 'read+parse') {
    let quads = 0;
    for (const f of files.filter((f) => f.endsWith('.nq')))
      await pipeline(
        createReadStream(f),
        new StreamParser({ format: 'application/n-quads' }),
        new Writable({
          objectMode: true,
          write: (_q, _e, done) => {
            quads++;
            done();
          },
        }),
      );
    return `${quads} quads`;
  }
  const [format, mode] = name.split(' ') as [ExportFormat, RdfMode];
  try {
    await exportStore(plan, format, mode, createWriteStream(devNull));
    return 'written';
  } catch (e) {
    return `refused: ${(e as Error).message.slice(0, 120)}`;
  }
}

if (process.argv[2] === '--job') {
  const started = performance.now();
  const note = await job(process.argv[3], process.argv[4]);
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ ms, rssMb: process.resourceUsage().maxRSS / 1024, note }));
} else {
  const store = process.argv[2] ?? '/tmp/weave-bench-store';
  const self = fileURLToPath(import.meta.url);
  const run = async (name: string) => JSON.parse((await promisify(execFile)(process.execPath, ['--import', 'tsx', self, '--job', store, name], { maxBuffer: 1 << 20 })).stdout) as { ms: number; rssMb: number; note: string };
  const best: Record<string, { ms: number; rssMb: number; note: string }> = {};
  for (let round = 0; round < 2; round++)
    for (const name of JOBS) {
      const r = await run(name);
      if (!best[name] || r.ms < best[name].ms) best[name] = r;
    }
  const base = best.read.ms + best['read+parse'].ms;
  process.stdout.write(`store ${store}; baseline = read + read+parse = ${(base / 1000).toFixed(1)} s\n`);
  for (const name of JOBS) {
    const r = best[name];
    process.stdout.write(`${name.padEnd(14)} ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${(r.ms / base).toFixed(2)}× baseline  ${r.rssMb.toFixed(0).padStart(4)} MB  ${r.note}\n`);
  }
}
