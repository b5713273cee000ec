/**
 * `node --import tsx bench/append.ts [CORPUS]`: the time to take in 1,000 lines appended to a
 * 50 MB session, read whole again (as before incremental reading) and carried on (only the new
 * lines), side by side in one run, on two copies of one store. Each ingest runs in a process of
 * its own (bench/append-child.ts), timed from the ingest call to its return.
 *
 * The session is made in a temp dir from the corpus's session files, one after another, each copy
 * with its ids rewritten (every UUID mapped through SHA-1 of the copy and the UUID), so no record
 * replays another, and every line given the bench session's id. BENCH_SESSION_MB sets the size
 * (default 50), BENCH_APPEND the lines appended (1000), BENCH_ROUNDS the rounds (2).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { filesOf, readManifest } from '../src/store/manifest.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const corpus = process.argv[2] ?? join(repo, '..', 'shared', 'corpus');
const TARGET = Number(process.env.BENCH_SESSION_MB ?? 50) * 1e6;
const APPEND = Number(process.env.BENCH_APPEND ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SESSION = 'b0000000-0000-4000-8000-00000000be7c';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

async function mainFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    if (entry.isFile() && /^[0-9a-f-]{36}\.jsonl$/.test(entry.name) && !path.includes('/subagents/')) out.push(path);
  }
  return out.sort();
}

/** The lines of a 50 MB session: corpus sessions one after another, ids rewritten per copy. */
async function sessionLines(): Promise<string[]> {
  const files = await mainFiles(corpus);
  if (!files.length) throw new Error(`no session files in ${corpus}`);
  const lines: string[] = [];
  let bytes = 0;
  for (let copy = 0; bytes < TARGET; copy++) {
    for (const file of files) {
      for (const line of (await readFile(file, 'utf8')).split('\n')) {
        if (!line.trim()) continue;
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(line.replace(UUID, (u) => uuidOf(`${copy}:${u}`)));
        } catch {
          continue;
        }
        if (typeof record !== 'object' || record === null || Array.isArray(record)) continue;
        if ('sessionId' in record) record.sessionId = SESSION;
        const text = JSON.stringify(record);
        lines.push(text);
        bytes += Buffer.byteLength(text) + 1;
        if (bytes >= TARGET) break;
      }
      if (bytes >= TARGET) break;
    }
  }
  return lines;
}

function uuidOf(key: string): string {
  const h = createHash('sha1').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The graph as sorted quads, digested: what two stores of one session must agree on. */
async function graphDigest(store: string): Promise<string> {
  const manifest = (await readManifest(store))!;
  const entry = Object.values(manifest.graphs).find((e) => e.sessionId === SESSION)!;
  let lines: string[] = [];
  for (const { file, bytes } of filesOf(entry))
    lines = lines.concat((await readFile(join(store, file))).subarray(0, bytes).toString('utf8').split('\n').filter(Boolean));
  const digest = createHash('sha1');
  for (const line of lines.sort()) digest.update(`${line}\n`);
  return digest.digest('hex');
}

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./append-child.ts', import.meta.url));

/** One ingest in a process of its own: its time and whether the session was carried on. */
async function ingestApart(root: string, store: string, whole: boolean): Promise<{ ms: number; carriedOn: number }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD, root, store, ...(whole ? ['whole'] : [])], {
    cwd: repo,
    maxBuffer: 1e7,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

const work = await mkdtemp(join(tmpdir(), 'weave-bench-append-'));
try {
  if (!existsSync(corpus)) throw new Error(`no corpus at ${corpus}`);
  const lines = await sessionLines();
  const head = lines.slice(0, -APPEND);
  const tail = lines.slice(-APPEND);
  const project = join(work, 'projects', '-bench');
  const file = join(project, `${SESSION}.jsonl`);
  await mkdir(project, { recursive: true });
  const mb = (text: string[]) => (text.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0) / 1e6).toFixed(1);
  console.log(`session: ${lines.length.toLocaleString('en')} lines, ${mb(lines)} MB; appended: ${tail.length} lines, ${mb(tail)} MB`);

  const results: { whole: number[]; carriedOn: number[] } = { whole: [], carriedOn: [] };
  for (let round = 0; round < ROUNDS; round++) {
    await writeFile(file, `${head.join('\n')}\n`);
    const base = join(work, 'store-base');
    await rm(base, { recursive: true, force: true });
    const first = await ingestApart(join(work, 'projects'), base, false);
    if (round === 0) console.log(`first read of the ${mb(head)} MB before the append: ${(first.ms / 1000).toFixed(1)} s`);
    await appendFile(file, `${tail.join('\n')}\n`);
    // Both from the same store, in turns: the order alternates by round.
    const ways = round % 2 ? (['carriedOn', 'whole'] as const) : (['whole', 'carriedOn'] as const);
    const digests: string[] = [];
    for (const way of ways) {
      const store = join(work, `store-${way}`);
      await rm(store, { recursive: true, force: true });
      await cp(base, store, { recursive: true });
      const report = await ingestApart(join(work, 'projects'), store, way === 'whole');
      results[way].push(report.ms);
      if ((report.carriedOn === 1) !== (way === 'carriedOn')) throw new Error(`${way}: the read did not go as asked`);
      digests.push(await graphDigest(store));
    }
    if (digests[0] !== digests[1]) throw new Error('the two reads gave different graphs');
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const whole = median(results.whole);
  const carried = median(results.carriedOn);
  console.log(
    `take in ${APPEND} appended lines: read whole again ${(whole / 1000).toFixed(2)} s · only the new lines ${(carried / 1000).toFixed(2)} s · ${(whole / carried).toFixed(1)}× (median of ${ROUNDS}; same graph both ways)`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
