import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, copyFile, cp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readManifest } from '../src/store/manifest.ts';
import { FIXTURES, REPO, removeDir, tempDir } from './helpers.ts';
import { startTestServer } from './server/helpers.ts';

/** `weave status`: what the store holds and how current it is, worked out from the fixtures' files. */

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const PROJECT = '-home-ada-weave-demo';

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(folder)) total += (await stat(join(folder, name))).size;
  return total;
}

test('weave status: sessions, sources, archived-only sessions, last change, pending lines, sizes', async () => {
  const work = await tempDir('weave-status-');
  const root = join(work, 'projects');
  const dir = join(work, 'store');
  try {
    await cp(join(FIXTURES, 'spine'), root, { recursive: true });
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    const status = async () => JSON.parse((await run(WEAVE, ['status', '--json', '--store', dir])).stdout);
    const manifest = (await readManifest(dir))!;
    const sources = Object.values(manifest.graphs).flatMap((e) => e.sources ?? []);
    const first = await status();
    // Five transcripts; two .meta.json and a workflow journal beside them.
    assert.deepEqual(
      { ...first, updated: undefined },
      {
        dir,
        soul: 'local',
        sessions: 2,
        graphs: 4, // the two session graphs, the ontology's and the alignment's
        builtBy: { program: 'weave/0.17', sessions: { 'weave/0.17': 2 } },
        sources: { files: 8, transcripts: 5, gone: 0 },
        archivedOnly: 0,
        lastChange: new Date(Math.max(...sources.map((s) => s.mtimeMs))).toISOString(),
        updated: undefined,
        pending: { lines: 0, files: 0, inNew: 0, changed: { files: 0, lines: 0 } },
        bytes: { graphs: await folderBytes(join(dir, 'graphs')), archive: await folderBytes(join(dir, 'archive')) },
        versions: { files: 0, versions: 0, lines: 0 },
      },
    );

    // Two lines more in one session (the first completes its pending last line), and a session new to the store.
    await appendFile(
      join(root, PROJECT, '22222222-2222-4222-8222-222222222222.jsonl'),
      '\n{"type":"mode","mode":"plan","sessionId":"22222222-2222-4222-8222-222222222222"}\n',
    );
    await copyFile(
      join(FIXTURES, 'server', '-home-grace-weave-server', '44444444-4444-4444-8444-444444444444.jsonl'),
      join(root, PROJECT, '44444444-4444-4444-8444-444444444444.jsonl'),
    );
    const serverLines = (
      await run('wc', ['-l', join(FIXTURES, 'server', '-home-grace-weave-server', '44444444-4444-4444-8444-444444444444.jsonl')])
    ).stdout;
    const pending = await status();
    const newLines = Number.parseInt(serverLines, 10);
    assert.deepEqual(pending.pending, { lines: 2 + newLines, files: 1, inNew: newLines, changed: { files: 0, lines: 0 } });
    // It said "4 lines not read yet, 1 of them in transcripts new to the store": a count of files as one of lines.
    assert.match(
      (await run(WEAVE, ['status', '--store', dir])).stdout,
      new RegExp(
        `\npending     ${2 + newLines} lines not read yet: 2 appended; ${newLines} in 1 transcript new to the store \\(weave ingest reads them; weave serve keeps up\\)\n`,
      ),
    );
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    assert.deepEqual((await status()).pending, { lines: 0, files: 0, inNew: 0, changed: { files: 0, lines: 0 } });

    // 4444… cut short to its first line: read again whole, which is not "not read yet" of lines read before.
    const cutShort = join(root, PROJECT, '44444444-4444-4444-8444-444444444444.jsonl');
    const [firstLine] = (await readFile(cutShort, 'utf8')).split('\n');
    await writeFile(cutShort, `${firstLine}\n`);
    assert.deepEqual((await status()).pending, { lines: 1, files: 0, inNew: 0, changed: { files: 1, lines: 1 } });
    assert.match(
      (await run(WEAVE, ['status', '--store', dir, '--wide'])).stdout,
      /\npending {5}1 lines not read yet: 1 in 1 transcript changed since read \(cut short, replaced or rewritten\), read again whole \(weave ingest reads them; weave serve keeps up\)\n/,
    );
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    assert.deepEqual((await status()).pending, { lines: 0, files: 0, inNew: 0, changed: { files: 0, lines: 0 } });

    // Claude Code deletes 2222… (its file and the agent file beside it): kept, read from the archive.
    await rm(join(root, PROJECT, '22222222-2222-4222-8222-222222222222.jsonl'));
    await rm(join(root, PROJECT, 'agent-5e5e5e5e.jsonl'));
    await run(WEAVE, ['ingest', root, '--store', dir, '--no-detect']);
    const gone = await status();
    assert.deepEqual([gone.sessions, gone.archivedOnly, gone.sources], [3, 1, { files: 9, transcripts: 6, gone: 2 }]);
    const text = (await run(WEAVE, ['status', '--store', dir])).stdout;
    assert.match(
      text,
      /^store {7}.* \(soul local\)\nsessions {4}3 \(1 archived-only: their files are gone, read from the archive\) in 5 graphs\n/,
    );
    // 4444…'s two lines, read before it was cut short, are kept as its earlier version.
    assert.match(
      text,
      /\nsources {5}6 transcripts and 3 side files tracked; 2 gone from their folders, kept in the archive; 1 earlier version\(s\) of 1 file\(s\) kept in the archive \(2 lines read of them\)\n/,
    );
    assert.match(
      text,
      /\npending {5}none: every complete line of the sources is in the store\nsize {8}graphs \d+\.\d MB · archive \d+\.\d MB\nwriter {6}none\nserver {6}none\n$/,
    );
    // At 80 columns each value is broken under its label's column.
    const narrow = (await run(WEAVE, ['status', '--store', dir], { env: { ...process.env, COLUMNS: '80' } })).stdout;
    assert.ok(
      narrow.split('\n').every((l) => [...l].length <= 80),
      narrow,
    );
    assert.match(narrow, /\nsessions {4}3 \(1 archived-only: their files are gone, read from the archive\) in\n {12}5 graphs\n/);
    // --wide: as on a wide terminal, every value on its label's line.
    const wide = (await run(WEAVE, ['status', '--store', dir, '--wide'], { env: { ...process.env, COLUMNS: '80' } })).stdout;
    assert.equal(wide, text);
  } finally {
    await removeDir(work);
  }
});

/**
 * One count of graphs: `weave status`, the server's /status and /void, and a query listing the
 * graphs (`GRAPH ?g {}`) all say 19 for fixtures/spine read with its readers: 2 session graphs, 5
 * reader graphs of each session (10, 7 of them empty: a reader that found nothing keeps its graph),
 * one graph of each of the 5 detectors, the ontology's and the alignment's. `weave status` said
 * 17, the store's graphs without the last two, where the server said 19.
 */
test('weave status, /status, /void and GRAPH ?g {} count the same graphs', async () => {
  const work = await tempDir('weave-status-graphs-');
  const dir = join(work, 'store');
  try {
    await cp(join(FIXTURES, 'spine'), join(work, 'projects'), { recursive: true });
    await run(WEAVE, ['ingest', join(work, 'projects'), '--store', dir]);
    const manifest = (await readManifest(dir))!;
    assert.equal(Object.keys(manifest.graphs).length, 17);
    assert.equal(Object.values(manifest.graphs).filter((g) => g.quads === 0).length, 7);
    const status = JSON.parse((await run(WEAVE, ['status', '--json', '--no-daemon', '--store', dir])).stdout);
    assert.equal(status.graphs, 19);
    const listed = (
      await run(WEAVE, [
        'query',
        '--no-daemon',
        '--store',
        dir,
        '--format',
        'csv',
        'SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { } }',
      ])
    ).stdout;
    assert.equal(listed, 'n\r\n19\r\n');
    const server = await startTestServer({ storeDir: dir }, null);
    try {
      const served = (await (await fetch(`${server.base}/status`)).json()) as { store: { graphs: number } };
      assert.equal(served.store.graphs, 19);
      const voidText = await (await fetch(`${server.base}/void`, { headers: { accept: 'text/turtle' } })).text();
      assert.match(voidText, /"2 sessions in 19 named graphs; /);
    } finally {
      await server.stop();
    }
  } finally {
    await removeDir(work);
  }
});

/** The status looks at many files together (src/status.ts): every one counted once, never more than 64 open at a time. */
test('a status sums over every file, 64 at a time', async () => {
  const { sumOf } = await import('../src/status.ts');
  let open = 0;
  let most = 0;
  const items = Array.from({ length: 200 }, (_, i) => i + 1);
  const total = await sumOf(items, async (n) => {
    most = Math.max(most, ++open);
    await new Promise((resolve) => setTimeout(resolve, n % 3));
    open--;
    return n;
  });
  // 1 + 2 + … + 200.
  assert.equal(total, 20100);
  assert.equal(most, 64);
  assert.equal(await sumOf([], async () => 1), 0);
});
