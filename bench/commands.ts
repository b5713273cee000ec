/**
 * Every README command and page with the store's server up, beside the same command opening the
 * store itself (`--no-daemon`) and beside its reference, in one run (issue 23): `node -e 0` (the
 * floor any command pays), `ccusage daily --json` for usage, the same SPARQL over curl for `weave
 * query`, and for pages the same URL fetched whole. Pages are also loaded in headless Chromium
 * (when it is installed), against about:blank there. Each figure is the median of ROUNDS runs,
 * taken in turns. `node --import tsx bench/commands.ts STORE SOURCE` runs it alone.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readManifest } from '../src/store/manifest.ts';
import { startWeave } from './scale/endpoint.ts';

const ROUNDS = Number(process.env.BENCH_COMMAND_ROUNDS ?? 3);
const PORT = 7893;
const WEAVE = fileURLToPath(new URL('../bin/weave', import.meta.url));
const CCUSAGE = fileURLToPath(new URL('../node_modules/ccusage/dist/index.js', import.meta.url));
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const TURNS = 'SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }';

export interface CommandRow {
  what: string;
  /** Median wall ms with the server up, opening the store itself, and of the reference. */
  served: number;
  alone?: number;
  reference?: { label: string; ms: number };
}

function timed(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')}: exit ${code}: ${stderr.slice(0, 300)}`)),
    );
  });
}

async function fetched(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { accept: 'text/html' } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

const chromium = (url: string) =>
  timed(CHROMIUM!, ['--headless=new', '--no-sandbox', '--disable-gpu', '--virtual-time-budget=60000', '--dump-dom', url]);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function commandsBench(storeDir: string, source: string): Promise<CommandRow[]> {
  const manifest = (await readManifest(storeDir))!;
  const largest = Object.values(manifest.graphs)
    .filter((g) => g.sessionId && !g.reader)
    .sort((a, b) => b.quads - a.quads)[0].sessionId!;
  const scratch = await mkdtemp(join(tmpdir(), 'weave-commands-'));
  await mkdir(join(scratch, 'claude'));
  await symlink(source, join(scratch, 'claude', 'projects'));
  const server = await startWeave(storeDir, PORT, 2, 600_000);
  const page = (path: string) => `${server.base}${path}`;
  const transcript = `urn:soul:${manifest.soul}:Weave/Transcript/${largest}`;
  const store = ['--store', storeDir];
  const commands: [string, string[], (() => Promise<number>) | undefined, string | undefined][] = [
    ...['daily', 'weekly', 'monthly', 'session', 'blocks'].map((r): [string, string[], () => Promise<number>, string] => [
      `weave usage ${r} --json`,
      ['usage', r, '--json', ...store],
      () => timed(process.execPath, [CCUSAGE, r, '--json', '--offline'], { ...process.env, CLAUDE_CONFIG_DIR: join(scratch, 'claude') }),
      `ccusage ${r} --json`,
    ]),
    ["weave search 'git worktree'", ['search', 'git worktree', ...store], undefined, undefined],
    [`weave conversation ${largest.slice(0, 8)}`, ['conversation', largest.slice(0, 8), ...store], undefined, undefined],
    ['weave status', ['status', ...store], undefined, undefined],
    ['weave glossary', ['glossary'], undefined, undefined],
    [
      'weave query (count turns)',
      ['query', TURNS, ...store],
      () =>
        timed('curl', [
          '-sf',
          '-o',
          '/dev/null',
          '-H',
          'accept: text/csv',
          `${server.base}/sparql`,
          '--data-urlencode',
          `query=PREFIX weave: <https://repolex.ai/ontology/weave#> ${TURNS}`,
        ]),
      'the same SPARQL over curl',
    ],
  ];
  const rows: CommandRow[] = [];
  try {
    const floor: number[] = [];
    for (let i = 0; i < ROUNDS; i++) floor.push(await timed(process.execPath, ['-e', '0']));
    rows.push({ what: 'node -e 0 (the floor of any command)', served: median(floor) });
    for (const [what, args, reference, label] of commands) {
      const served: number[] = [];
      const alone: number[] = [];
      const ref: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        served.push(await timed(WEAVE, args));
        // glossary reads no store: it has no server to ask.
        if (args[0] !== 'glossary') alone.push(await timed(WEAVE, [...args, '--no-daemon']));
        if (reference) ref.push(await reference());
      }
      rows.push({
        what,
        served: median(served),
        alone: median(alone),
        reference: reference ? { label: label!, ms: median(ref) } : undefined,
      });
    }
    const pages: [string, string][] = [
      ['/overview', '/overview'],
      [`/conversation/${largest.slice(0, 8)}`, `/conversation/${largest}`],
      ['/describe of the largest session', `/describe?iri=${encodeURIComponent(transcript)}`],
      ['/search?q=git+worktree', '/search?q=git+worktree'],
    ];
    for (const [what, path] of pages) {
      const times: number[] = [];
      for (let i = 0; i < ROUNDS; i++) times.push(await fetched(page(path)));
      // The first fetch after the server started, and the median of all: /overview is kept until the store changes.
      rows.push({ what: `GET ${what} (first)`, served: times[0] });
      rows.push({ what: `GET ${what}`, served: median(times) });
      if (CHROMIUM) {
        const shown: number[] = [];
        const blank: number[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          shown.push(await chromium(page(path)));
          blank.push(await chromium('about:blank'));
        }
        rows.push({ what: `Chromium ${what}`, served: median(shown), reference: { label: 'Chromium about:blank', ms: median(blank) } });
      }
    }
  } finally {
    await server.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  return rows;
}

export function printCommands(rows: CommandRow[]): void {
  const s = (ms: number | undefined) => (ms === undefined ? '' : (ms / 1000).toFixed(2));
  console.log(`  ${'command or page'.padEnd(44)} ${'server up'.padStart(9)} ${'alone'.padStart(7)}  reference`);
  for (const r of rows)
    console.log(
      `  ${r.what.padEnd(44)} ${s(r.served).padStart(9)} ${s(r.alone).padStart(7)}  ${r.reference ? `${s(r.reference.ms)} s ${r.reference.label} (×${(r.served / r.reference.ms).toFixed(2)})` : ''}`,
    );
  console.log('  (seconds, wall, median; alone: --no-daemon, the command opens the store itself)');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) printCommands(await commandsBench(process.argv[2], process.argv[3]));
