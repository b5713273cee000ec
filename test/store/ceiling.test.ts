import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ingest } from '../../src/ingest.ts';
import {
  assertFits,
  capacityNotice,
  embeddedStoreSize,
  LOAD_CEILING,
  QUAD_CEILING,
  storeSize,
  WASM_BYTES_PER_QUAD,
  WASM_LIMIT_BYTES,
} from '../../src/store/ceiling.ts';
import { graphFileName } from '../../src/store/layout.ts';
import { readManifest, renderManifest } from '../../src/store/manifest.ts';
import { openStore } from '../../src/store/store.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');
const SPINE = join(FIXTURES, 'spine');

test('one embedded copy loads 4 GiB of WebAssembly memory worth of quads', () => {
  assert.equal(LOAD_CEILING, Math.floor(WASM_LIMIT_BYTES / WASM_BYTES_PER_QUAD));
  assert.equal(WASM_LIMIT_BYTES, 4294967296);
});

test('below 80% nothing is said; from 80% on, how full it is and how much more fits', () => {
  // 1,000 quads a megabyte of transcripts; a ceiling of 10,000 quads.
  assert.equal(capacityNotice({ quads: 7_999, transcriptBytes: 7_999_000 }, 10_000), undefined);
  const notice = capacityNotice({ quads: 8_500, transcriptBytes: 8_500_000 }, 10_000)!;
  // 1,500 quads left at 1,000 a megabyte: 1.5 MB, rounded to 2.
  assert.match(notice, /^the store holds 9k quads, 85% of the ~10k up to which one embedded store answers every query/);
  assert.match(notice, /about 2 MB more of transcripts fit/);
  assert.match(notice, /external SPARQL store \(--store http:\/\/HOST:PORT\/sparql\)/);
  // Past where it answers, it may still load; past what it loads, nothing more fits.
  assert.match(capacityNotice({ quads: 10_001, transcriptBytes: 1 }, 10_000, 20_000)!, /100% of .* the largest answers may stop with 507/);
  assert.match(capacityNotice({ quads: 10_001, transcriptBytes: 1 }, 10_000, 10_000)!, /past ~10k it cannot be loaded at all/);
  assert.doesNotThrow(() => assertFits({ quads: 10_000, transcriptBytes: 1 }, '/s', 10_000));
  assert.throws(
    () => assertFits({ quads: 10_001, transcriptBytes: 1 }, '/s', 10_000),
    /^Error: \/s: the store holds .* It is not loaded here/,
  );
});

test('the notice starts at 80% of the 4.6 M quads measured to answer: a store of the size whose ready queries trapped is told', () => {
  assert.equal(QUAD_CEILING, 4_600_000);
  assert.equal(capacityNotice({ quads: 3_679_999, transcriptBytes: 298_000_000 }), undefined);
  assert.match(capacityNotice({ quads: 3_680_000, transcriptBytes: 298_000_000 })!, /^the store holds 3\.7 M quads, 80% of the ~4\.6 M/);
  // The scale bench at K = 12: 6.96 M quads from 564 MB of transcripts (58% of the 11.9 M the
  // notice was reckoned from, so nothing was said), then record-envelope.rq trapped.
  const k12 = capacityNotice({ quads: 6_964_042, transcriptBytes: 564_367_380 });
  assert.match(k12 ?? '', /^the store holds 7\.0 M quads, 151% of the ~4\.6 M .*; the largest answers may stop with 507/);
  // At K = 8 (4.64 M quads, 376 MB), where everything answered, it is said already.
  assert.match(capacityNotice({ quads: 4_642_642, transcriptBytes: 376_244_920 })!, /101% of the ~4\.6 M/);
});

/** Adds to a store's manifest a graph that says it holds `quads` quads, as a store that big would. */
async function claim(dir: string, quads: number): Promise<void> {
  const manifest = (await readManifest(dir))!;
  const graph = 'urn:weave:test:big';
  manifest.graphs[graph] = { file: graphFileName(graph), quads };
  await writeFile(join(dir, graphFileName(graph)), '');
  await writeFile(join(dir, 'manifest.json'), renderManifest(manifest));
}

test('a store past the ceiling is refused before it is loaded; ingest and serve say how full it is', async () => {
  const dir = await tempDir();
  try {
    await ingest([SPINE], { storeDir: dir, soul: 'local' });
    const { quads, transcriptBytes } = storeSize(await readManifest(dir));
    assert.ok(quads > 0 && transcriptBytes > 0);

    await claim(dir, Math.ceil(QUAD_CEILING * 0.9) - quads);
    const again = await run(WEAVE, ['ingest', SPINE, '--store', dir]);
    assert.match(again.stderr, /weave ingest: the store holds .* 90% of the ~[\d.]+ M up to which one embedded store answers every query/);

    await claim(dir, LOAD_CEILING + 1 - quads);
    await assert.rejects(openStore(dir), /It is not loaded here: loading it would run out of WebAssembly memory/);
    await assert.rejects(run(WEAVE, ['serve', '--no-ingest', '--store', dir, '--port', '0']), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 1);
      assert.match(
        e.stderr,
        /^weave serve: the store holds .* it cannot be loaded at all\. To go further, keep it in an external SPARQL store/,
      );
      return true;
    });
  } finally {
    await removeDir(dir);
  }
});

test('an external store is not bounded by the embedded ceiling: its size is not an embedded one', async () => {
  const dir = await tempDir();
  try {
    await ingest([SPINE], { storeDir: dir, soul: 'local' });
    await claim(dir, LOAD_CEILING + 1);
    assert.ok((await embeddedStoreSize(dir))!.quads > LOAD_CEILING);
    await writeFile(
      join(dir, 'remote.json'),
      JSON.stringify({
        format: 'weave-remote/1',
        endpoint: 'http://127.0.0.1:9/sparql',
        graphStore: 'http://127.0.0.1:9/sparql-graph-crud',
        tripleTerms: false,
      }),
    );
    assert.equal(await embeddedStoreSize(dir), undefined);
  } finally {
    await removeDir(dir);
  }
});
