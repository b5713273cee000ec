import { appendFile, cp, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, type IngestReport } from '../src/ingest.ts';
import type { Reader } from '../src/readers/reader.ts';
import { READERS } from '../src/readers/registry.ts';

/**
 * The derivation loop, side by side on one store (part 5 of `npm run bench`): a full read into an
 * empty store (every session read, every derivation run) against what a change costs: a re-read
 * with `--force` (graph files the same bytes, so no derivation's input changed), one reader's
 * version bumped (that reader alone runs, on every session, from the graph files), a run where
 * nothing changed, and a prompt appended to one session (as a live change: only its new line is
 * read, and the search index catches it up without being written again). Each row runs on its own
 * copy of the same store, made from a copy of the source (the last row appends to it).
 */

export interface DeriveRow {
  name: string;
  ms: number;
  sessionsRead: number;
  ran: string;
}

const bumped = (target: string): Reader[] => READERS.map((r) => (r.name === target ? { ...r, version: `${r.version}-bench` } : r));

export async function deriveBench(given: string): Promise<DeriveRow[]> {
  const work = await mkdtemp(join(tmpdir(), 'weave-bench-derive-'));
  try {
    const source = join(work, 'source');
    await cp(given, source, { recursive: true });
    const storeDir = join(work, 'store');
    // The readers run on the store once, so that every derivation is current before the rows.
    await ingest([source], { storeDir, soul: 'local', readers: { list: READERS } });
    const rows: DeriveRow[] = [];
    const row = async (name: string, run: (dir: string) => Promise<IngestReport>, empty = false) => {
      const dir = join(work, String(rows.length));
      if (!empty) await cp(storeDir, dir, { recursive: true });
      const t0 = performance.now();
      const report = await run(dir);
      const ms = performance.now() - t0;
      const ran = Object.entries(report.derived.ran)
        .map(([n, r]) => `${n} ${r.runs}`)
        .join(', ');
      rows.push({ name, ms, sessionsRead: report.sessions, ran: ran || 'nothing' });
    };
    const options = (dir: string, readers: readonly Reader[]) => ({ storeDir: dir, soul: 'local', readers: { list: readers } });
    await row('full read, every derivation', (dir) => ingest([source], options(dir, READERS)), true);
    await row('re-read (--force), same bytes', (dir) => ingest([source], { ...options(dir, READERS), force: true }));
    await row('tool/error version bumped', (dir) => ingest([source], options(dir, bumped('tool/error'))));
    await row('human/authored version bumped', (dir) => ingest([source], options(dir, bumped('human/authored'))));
    await row('nothing changed', (dir) => ingest([source], options(dir, READERS)));
    const session = await middleSession(source);
    await row('one prompt appended', async (dir) => {
      await appendFile(session, await promptAfter(session));
      return ingest([source], options(dir, READERS));
    });
    return rows;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export function printDeriveRows(rows: DeriveRow[]): void {
  const full = rows[0].ms;
  for (const r of rows)
    console.log(
      `  ${r.name.padEnd(32)} ${r.ms.toFixed(0).padStart(7)} ms  ×${(r.ms / full).toFixed(3)}  ${String(r.sessionsRead).padStart(4)} sessions read · ran: ${r.ran}`,
    );
}

/** The transcript of middling size among the source's (its median by bytes): a session like most. */
async function middleSession(source: string): Promise<string> {
  const files = (await readdir(source, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl') && !e.name.startsWith('agent-'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  const sized = await Promise.all(files.map(async (f) => ({ f, n: (await stat(f)).size })));
  sized.sort((a, b) => a.n - b.n || a.f.localeCompare(b.f));
  return sized[Math.floor(sized.length / 2)].f;
}

/** A user's prompt answering the last record of `file`, as Claude Code appends one. */
async function promptAfter(file: string): Promise<string> {
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
  let last: Record<string, unknown> = {};
  for (let i = lines.length - 1; i >= 0; i--)
    try {
      last = JSON.parse(lines[i]);
      break;
    } catch {
      // a malformed line: the one before
    }
  const { toolUseResult, ...kept } = last;
  void toolUseResult;
  const uuid = '0b0b0b0b-0000-4000-8000-000000000001';
  return `${JSON.stringify({ ...kept, type: 'user', uuid, parentUuid: last.uuid ?? null, timestamp: new Date().toISOString(), message: { role: 'user', content: 'one more prompt: zebrafish quartz' } })}\n`;
}
