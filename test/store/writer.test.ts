import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NODE_FS, type StoreFs, type WritableHandle } from '../../src/store/atomic.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { type GraphMirror, lockStore, openStoreForWriting as openWriter, type StoreWriterOptions } from '../../src/store/writer.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
/** A graph's file holding `text`: named by the graph and tagged by its bytes. */
const fileOf = (graph: string, text: string) => `graphs/${sha1(graph)}.${sha1(text).slice(0, 12)}.nq`;
/** The name a graph's file is written under until it is whole. */
const plainOf = (graph: string) => `graphs/${sha1(graph)}.nq`;

/** A writer under the store's lock, as every writer of a store is (the test process keeps the lock). */
async function openStoreForWriting(dir: string, soul: string, options?: StoreWriterOptions) {
  await lockStore(dir);
  return openWriter(dir, soul, options);
}
const quad = (graph: string, n: number) => `<urn:s:${n}> <urn:p> "${n}" <${graph}> .\n`;

/**
 * node:fs on a disk with `free` bytes left, shared by every file: a write takes what fits and
 * returns the short count, and the next one fails with ENOSPC, as write(2) does on a full disk.
 * The files are real; only the room is counted here.
 */
function diskWithRoom(free: number) {
  const disk = {
    free,
    /** bytesWritten of every write that took something. */
    writes: [] as number[],
    fs: {
      ...NODE_FS,
      async open(path: string, flags: 'w' | 'r' | 'wx' | 'a'): Promise<WritableHandle> {
        const handle = await NODE_FS.open(path, flags);
        return {
          async write(buffer: Uint8Array, offset: number, length: number) {
            if (disk.free <= 0)
              throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
            const result = await handle.write(buffer, offset, Math.min(length, disk.free));
            disk.free -= result.bytesWritten;
            disk.writes.push(result.bytesWritten);
            return result;
          },
          sync: () => handle.sync(),
          close: () => handle.close(),
        };
      },
    } satisfies StoreFs,
  };
  return disk;
}

/** Every file name under the store but the lock (which this test process holds), for "no temporary file is left". */
async function names(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true }))
    .map(String)
    .filter((n) => n !== 'lock')
    .sort();
}

const A_TEXT = quad('urn:g:a', 1) + quad('urn:g:a', 2);

/** A store holding graph `urn:g:a` (two quads), its manifest written. */
async function storeWithOneGraph(): Promise<string> {
  const dir = await tempDir('weave-writer-');
  const writer = await openStoreForWriting(dir, 'local');
  await writer.writeGraph('urn:g:a', A_TEXT, { quads: 2 });
  await writer.close();
  return dir;
}

test('a write that runs out of disk leaves the old graph file and manifest as they were, and no temporary file', async () => {
  const dir = await storeWithOneGraph();
  try {
    const graphBefore = await readFile(join(dir, fileOf('urn:g:a', A_TEXT)), 'utf8');
    const manifestBefore = await readFile(join(dir, 'manifest.json'), 'utf8');
    const namesBefore = await names(dir);

    const disk = diskWithRoom(10);
    const writer = await openStoreForWriting(dir, 'local', { fs: disk.fs });
    const text = quad('urn:g:a', 3).repeat(4);
    await assert.rejects(writer.writeGraph('urn:g:a', text, { quads: 4 }), {
      message: `cannot write ${join(dir, plainOf('urn:g:a'))}: no space left on device (ENOSPC); the previous file stays as it was`,
      code: 'ENOSPC',
    });
    // The disk took 10 bytes of the first write (a short write, which used to end the file there).
    assert.deepEqual(disk.writes, [10]);
    await writer.close();

    assert.equal(await readFile(join(dir, fileOf('urn:g:a', A_TEXT)), 'utf8'), graphBefore);
    assert.equal(await readFile(join(dir, 'manifest.json'), 'utf8'), manifestBefore);
    assert.deepEqual(await names(dir), namesBefore);
  } finally {
    await removeDir(dir);
  }
});

test('a short write is carried on until every byte is in the file', async () => {
  const dir = await tempDir('weave-writer-');
  try {
    const disk = diskWithRoom(Infinity);
    // A disk that takes at most 7 bytes per call.
    const fs: StoreFs = {
      ...disk.fs,
      async open(path, flags) {
        const handle = await disk.fs.open(path, flags);
        return { ...handle, write: (buffer, offset, length) => handle.write(buffer, offset, Math.min(length, 7)) };
      },
    };
    const writer = await openStoreForWriting(dir, 'local', { fs });
    const text = quad('urn:g:b', 1);
    await writer.writeGraph('urn:g:b', text, { quads: 1 });
    await writer.close();
    assert.equal(await readFile(join(dir, fileOf('urn:g:b', text)), 'utf8'), text);
    assert.equal(
      disk.writes.slice(0, Math.ceil(text.length / 7)).reduce((a, b) => a + b),
      text.length,
    );
  } finally {
    await removeDir(dir);
  }
});

test('a manifest that cannot be written stays as it was; its changes stay pending and are written once there is room', async () => {
  const dir = await storeWithOneGraph();
  try {
    const manifestBefore = await readFile(join(dir, 'manifest.json'), 'utf8');
    const text = quad('urn:g:a', 9);
    // Room for the graph file and not a byte more.
    const disk = diskWithRoom(Buffer.byteLength(text));
    const writer = await openStoreForWriting(dir, 'local', { fs: disk.fs });
    await writer.writeGraph('urn:g:a', text, { quads: 1 });
    await assert.rejects(writer.close(), {
      message: `cannot write ${join(dir, 'manifest.json')}: no space left on device (ENOSPC); the previous file stays as it was`,
    });
    assert.equal(await readFile(join(dir, 'manifest.json'), 'utf8'), manifestBefore);
    assert.deepEqual(
      (await names(dir)).filter((n) => n.endsWith('.tmp')),
      [],
    );

    disk.free = Infinity;
    await writer.close();
    assert.deepEqual((await readManifest(dir))!.graphs['urn:g:a'], {
      file: fileOf('urn:g:a', text),
      bytes: Buffer.byteLength(text),
      digest: [sha1(text)],
      quads: 1,
    });
    // The version the manifest no longer names is gone once the manifest is written.
    assert.deepEqual(await names(dir), ['graphs', fileOf('urn:g:a', text), 'manifest.json'].sort());
  } finally {
    await removeDir(dir);
  }
});

test('an entry that is not sound is refused before its file replaces the old one', async () => {
  const dir = await storeWithOneGraph();
  try {
    const namesBefore = await names(dir);
    const writer = await openStoreForWriting(dir, 'local');
    await assert.rejects(writer.writeGraph('urn:g:a', quad('urn:g:a', 5), { quads: -1 }), {
      message: 'the manifest entry for urn:g:a is not sound: quads: expected a whole number ≥ 0, found a negative number',
    });
    assert.equal(await readFile(join(dir, fileOf('urn:g:a', A_TEXT)), 'utf8'), A_TEXT);
    assert.deepEqual(await names(dir), namesBefore);
  } finally {
    await removeDir(dir);
  }
});

test("two writers of one store keep each other's entries, whatever order they write in", async () => {
  const dir = await storeWithOneGraph();
  try {
    // Both open before either writes: each sees only urn:g:a.
    const first = await openStoreForWriting(dir, 'local');
    const second = await openStoreForWriting(dir, 'local');
    await first.writeGraph('urn:g:x', quad('urn:g:x', 1), { quads: 1, sessionId: 'x' });
    await second.writeGraph('urn:g:y', quad('urn:g:y', 1), { quads: 1, reader: 'r' });
    await Promise.all([first.close(), second.close()]);
    assert.deepEqual(Object.keys((await readManifest(dir))!.graphs), ['urn:g:a', 'urn:g:x', 'urn:g:y']);
    // The manifest writes ran in turn, first's then second's: second merged into first's and sees it.
    assert.deepEqual(Object.keys(second.manifest.graphs), ['urn:g:a', 'urn:g:x', 'urn:g:y']);

    // One takes a graph out while the other adds one: both happen, and the removed file goes.
    const third = await openStoreForWriting(dir, 'local');
    const fourth = await openStoreForWriting(dir, 'local');
    await third.removeGraph('urn:g:x');
    await fourth.writeGraph('urn:g:z', quad('urn:g:z', 1), { quads: 1 });
    await fourth.close();
    assert.equal((await names(dir)).includes(fileOf('urn:g:x', quad('urn:g:x', 1))), true, 'the file stays while the manifest names it');
    await third.close();
    const manifest = (await readManifest(dir))!;
    assert.deepEqual(Object.keys(manifest.graphs), ['urn:g:a', 'urn:g:y', 'urn:g:z']);
    assert.deepEqual(manifest.graphs['urn:g:y'], {
      file: fileOf('urn:g:y', quad('urn:g:y', 1)),
      bytes: quad('urn:g:y', 1).length,
      digest: [sha1(quad('urn:g:y', 1))],
      quads: 1,
      reader: 'r',
    });
    assert.deepEqual(
      await names(dir),
      [
        'graphs',
        fileOf('urn:g:a', A_TEXT),
        fileOf('urn:g:y', quad('urn:g:y', 1)),
        fileOf('urn:g:z', quad('urn:g:z', 1)),
        'manifest.json',
      ].sort(),
    );
  } finally {
    await removeDir(dir);
  }
});

test('the manifest is written in batches, and never names a file before the file is whole', async () => {
  const dir = await tempDir('weave-writer-');
  try {
    const writer = await openStoreForWriting(dir, 'local', { batch: 3 });
    await writer.writeGraph('urn:g:1', quad('urn:g:1', 1), { quads: 1 });
    await writer.writeGraph('urn:g:2', quad('urn:g:2', 1), { quads: 1 });
    // Two changes: the files are in place, the manifest not written yet (a crash here leaves a
    // store without them, whose next ingest reads those sessions again).
    assert.deepEqual(await names(dir), ['graphs', fileOf('urn:g:1', quad('urn:g:1', 1)), fileOf('urn:g:2', quad('urn:g:2', 1))].sort());
    await writer.writeGraph('urn:g:3', quad('urn:g:3', 1), { quads: 1 });
    assert.deepEqual(Object.keys((await readManifest(dir))!.graphs), ['urn:g:1', 'urn:g:2', 'urn:g:3']);
    await writer.writeGraph('urn:g:4', quad('urn:g:4', 1), { quads: 1 });
    assert.equal((await readManifest(dir))!.graphs['urn:g:4'], undefined);
    await writer.close();
    assert.deepEqual(Object.keys((await readManifest(dir))!.graphs), ['urn:g:1', 'urn:g:2', 'urn:g:3', 'urn:g:4']);
  } finally {
    await removeDir(dir);
  }
});

test('one graph is written by one write at a time: a second is refused until the first is done', async () => {
  const dir = await tempDir('weave-writer-');
  try {
    const writer = await openStoreForWriting(dir, 'local');
    const first = await writer.beginGraph('urn:g:1');
    await first.write(quad('urn:g:1', 1));
    await assert.rejects(writer.beginGraph('urn:g:1'), { message: `${join(dir, plainOf('urn:g:1'))}: already being written` });
    await first.commit({ quads: 1 });
    await writer.writeGraph('urn:g:1', quad('urn:g:1', 2), { quads: 1 });
    await writer.close();
    assert.equal(await readFile(join(dir, fileOf('urn:g:1', quad('urn:g:1', 2))), 'utf8'), quad('urn:g:1', 2));
    assert.deepEqual(await names(dir), ['graphs', fileOf('urn:g:1', quad('urn:g:1', 2)), 'manifest.json'].sort());
  } finally {
    await removeDir(dir);
  }
});

test('a writer for another soul is refused', async () => {
  const dir = await storeWithOneGraph();
  try {
    await assert.rejects(openStoreForWriting(dir, 'other'), {
      message: `the store in ${dir} was built for soul "local", not "other"; a store's soul is set once: drop --soul/--soul-repo to write as "local", or use another --store`,
    });
  } finally {
    await removeDir(dir);
  }
});

test('opening a writer removes the temporary files of processes that no longer run, and nothing else', async () => {
  const dir = await tempDir('weave-writer-');
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    // A process that has ended: its pid no longer runs.
    const ended = await new Promise<number>((resolve, reject) => {
      const child = execFile(process.execPath, ['-e', '']);
      child.on('error', reject).on('exit', () => resolve(child.pid!));
    });
    const hash = 'ab'.repeat(20);
    const stale = [`graphs/${hash}.nq.${ended}.tmp`, `graphs/${hash}.nq.${ended}.3.tmp`, `manifest.json.${ended}.0.tmp`];
    const kept = [
      `graphs/${hash}.nq.${sleeper.pid}.0.tmp`, // a writer still running
      `graphs/${hash}.nq.${process.pid}.7.tmp`, // this process (another thread may be writing it)
      `graphs/notes.txt.${ended}.tmp`, // not a name the store writes
      `graphs/${hash}.nq`,
    ];
    await mkdir(join(dir, 'graphs'));
    for (const name of [...stale, ...kept]) await writeFile(join(dir, name), 'x');
    await openStoreForWriting(dir, 'local');
    assert.deepEqual(await names(dir), ['graphs', ...kept].sort());
  } finally {
    sleeper.kill();
    await removeDir(dir);
  }
});

test('ingest, then a second ingest of another folder into the same store: neither drops the other', async () => {
  const dir = await tempDir('weave-writer-');
  try {
    await run(WEAVE, ['ingest', join(FIXTURES, 'spine'), '--store', dir, '--no-detect']);
    await run(WEAVE, ['ingest', join(FIXTURES, 'server'), '--store', dir, '--no-detect']);
    const sessions = Object.values((await readManifest(dir))!.graphs).flatMap((g) => (g.sessionId ? [g.sessionId] : []));
    const spine = (await readdir(join(FIXTURES, 'spine'), { recursive: true })).map(String);
    const server = (await readdir(join(FIXTURES, 'server'), { recursive: true })).map(String);
    // A session is a <uuid>.jsonl at the top of its project folder.
    const ids = (files: string[]) =>
      files.filter((f) => /^[^/]+\/[0-9a-f-]{36}\.jsonl$/.test(f)).map((f) => f.slice(f.indexOf('/') + 1, -'.jsonl'.length));
    assert.deepEqual(sessions.sort(), [...ids(spine), ...ids(server)].sort());
  } finally {
    await removeDir(dir);
  }
});

/** node:fs, telling `flush` of each file or folder (`flags` 'r') flushed, and `rename` of each file renamed into place. */
function recordingFs({ flush, rename }: { flush?: (path: string, flags: string) => void; rename?: (to: string) => void }): StoreFs {
  return {
    ...NODE_FS,
    async open(path, flags, mode) {
      const handle = await NODE_FS.open(path, flags, mode);
      return {
        write: handle.write.bind(handle),
        close: handle.close.bind(handle),
        sync: () => {
          flush?.(path, flags);
          return handle.sync();
        },
      };
    },
    async rename(from, to) {
      rename?.(to);
      return NODE_FS.rename(from, to);
    },
  };
}

test("a store file's folder and the graphs folder are each flushed once, after the files are renamed into them and before the manifest names them", async () => {
  const dir = await tempDir('weave-writer-');
  try {
    const ops: string[] = [];
    const folderOf = (path: string) => path.slice(dir.length + 1).replace(/\/?[^/]*$/, '') || '.';
    const fs = recordingFs({
      flush: (path, flags) => flags === 'r' && ops.push(`flush ${path.slice(dir.length + 1) || '.'}`),
      rename: (to) => ops.push(`rename into ${folderOf(to)}`),
    });
    const writer = await openStoreForWriting(dir, 'local', { fs });
    await writer.writeFile('rows/a', 'usage/rows/a.json', '{"a":1}\n');
    await writer.writeFile('rows/b', 'usage/rows/b.json', '{"b":2}\n');
    await writer.writeGraph('urn:g:1', quad('urn:g:1', 1), { quads: 1 });
    await writer.close();
    const manifest = ops.indexOf('rename into .');
    assert.deepEqual(ops.slice(0, 3), ['rename into usage/rows', 'rename into usage/rows', 'rename into graphs']);
    assert.deepEqual(ops.slice(3, manifest).sort(), ['flush graphs', 'flush usage/rows']);
    assert.deepEqual(ops.slice(manifest), ['rename into .', 'flush .']);
    assert.deepEqual(Object.keys((await readManifest(dir))!.files ?? {}), ['rows/a', 'rows/b']);
  } finally {
    await removeDir(dir);
  }
});

/**
 * A mirror that gathers puts for bulk loads, as remote/gathered.ts does: each load counts the
 * graphs it sends (`loads`) and is held until the test lets it end (`release` ends the oldest;
 * after `releaseAll` no load is held).
 */
function gatheringMirror(batch: number) {
  const gathered = new Set<string>();
  const loads: number[] = [];
  const held: (() => void)[] = [];
  let holding = true;
  const mirror: GraphMirror = {
    batch,
    put: async (graph) => void gathered.add(graph),
    remove: async (graph) => void gathered.delete(graph),
    gathered: () => gathered.size,
    settle: async () => {
      const sending = gathered.size;
      gathered.clear();
      if (!sending) return;
      loads.push(sending);
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
    },
  };
  const release = () => held.shift()?.();
  const releaseAll = () => {
    holding = false;
    while (held.length) release();
  };
  return { mirror, loads, release, releaseAll };
}

test('with a mirror that gathers for bulk loads, the writer gathers on while a load runs, and the next load takes all it gathered', {
  timeout: 10_000,
}, async () => {
  const dir = await tempDir('weave-writer-');
  try {
    const { mirror, loads, releaseAll } = gatheringMirror(2);
    const writer = await openStoreForWriting(dir, 'local', { mirror });
    // Two graphs make a batch: its load starts, and is held.
    for (const n of [1, 2, 3, 4, 5]) await writer.writeGraph(`urn:g:${n}`, quad(`urn:g:${n}`, n), { quads: 1 });
    // Five writes returned with the first load still running: the writer never waited for it.
    assert.deepEqual(loads, [2]);
    assert.equal((await readManifest(dir))?.graphs['urn:g:1'], undefined);
    releaseAll();
    await writer.close();
    // The three gathered meanwhile went in one load, and the manifest names all five.
    assert.deepEqual(loads, [2, 3]);
    assert.deepEqual(Object.keys((await readManifest(dir))!.graphs).sort(), ['urn:g:1', 'urn:g:2', 'urn:g:3', 'urn:g:4', 'urn:g:5']);
  } finally {
    await removeDir(dir);
  }
});

test('sendGathered starts a load of what was gathered without waiting for it, or as soon as the load under way ends', {
  timeout: 10_000,
}, async () => {
  const dir = await tempDir('weave-writer-');
  try {
    const { mirror, loads, release } = gatheringMirror(10);
    const writer = await openStoreForWriting(dir, 'local', { mirror });
    for (const n of [1, 2, 3]) await writer.writeGraph(`urn:g:${n}`, quad(`urn:g:${n}`, n), { quads: 1 });
    // Fewer than a batch: nothing loads until asked.
    assert.deepEqual(loads, []);
    writer.sendGathered();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(loads, [3]);
    for (const n of [4, 5]) await writer.writeGraph(`urn:g:${n}`, quad(`urn:g:${n}`, n), { quads: 1 });
    writer.sendGathered();
    // The first load still runs: the next waits for it, then starts on its own.
    assert.deepEqual(loads, [3]);
    release();
    while (loads.length < 2) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(loads, [3, 2]);
    assert.deepEqual(Object.keys((await readManifest(dir))!.graphs).sort(), ['urn:g:1', 'urn:g:2', 'urn:g:3']);
    release();
    await writer.close();
    assert.deepEqual(loads, [3, 2]);
    assert.deepEqual(Object.keys((await readManifest(dir))!.graphs).sort(), ['urn:g:1', 'urn:g:2', 'urn:g:3', 'urn:g:4', 'urn:g:5']);
  } finally {
    await removeDir(dir);
  }
});

test('an empty graph file is renamed into place without a flush of its own; its folder is flushed before the manifest names it', async () => {
  const dir = await tempDir('weave-writer-');
  try {
    const ops: string[] = [];
    const fs = recordingFs({
      flush: (path, flags) => {
        const name = path.slice(dir.length + 1);
        ops.push(
          flags === 'r'
            ? `flush folder ${name || '.'}`
            : `flush file ${name.replace(/^graphs\/.*/, 'graphs/…').replace(/\.\d+\.\d+\.tmp$/, '.tmp')}`,
        );
      },
    });
    const writer = await openStoreForWriting(dir, 'local', { fs });
    await writer.writeGraph('urn:g:empty', '', { quads: 0 });
    await writer.writeGraph('urn:g:1', quad('urn:g:1', 1), { quads: 1 });
    await writer.close();
    // One graph file flushed (the one with bytes), its folder, then the manifest and the store's folder.
    assert.deepEqual(ops, ['flush file graphs/…', 'flush folder graphs', 'flush file manifest.json.tmp', 'flush folder .']);
    const manifest = (await readManifest(dir))!;
    assert.deepEqual([manifest.graphs['urn:g:empty'].bytes, manifest.graphs['urn:g:1'].bytes], [0, quad('urn:g:1', 1).length]);
  } finally {
    await removeDir(dir);
  }
});
