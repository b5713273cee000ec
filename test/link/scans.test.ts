import assert from 'node:assert/strict';
import { appendFile, cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { DERIVATIONS } from '../../src/derive/registry.ts';
import { ingest } from '../../src/ingest.ts';
import { linkAcrossSessions, links } from '../../src/link/crossSession.ts';
import { SCANS_NAME } from '../../src/link/scans.ts';
import { linksGraphIri } from '../../src/rdf/iri.ts';
import { filesOf, readGraphBytes, readManifest } from '../../src/store/manifest.ts';
import { lockStore, openStoreForWriting } from '../../src/store/writer.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

/** The links pass across sessions keeps what it found in each graph file in the store: a command's run reads only what is new. */

test('the links pass reads only the graph files no pass has read to their length; what it found is kept in the store', async () => {
  const work = await tempDir();
  const dir = await tempDir();
  try {
    await cp(join(FIXTURES, 'records'), work, { recursive: true });
    await ingest([work], { storeDir: dir, soul: 'local' });
    const linked = async () => {
      const manifest = (await readManifest(dir))!;
      return (await readGraphBytes(dir, manifest.graphs[linksGraphIri('local')])).toString('utf8').split('\n').filter(Boolean).sort();
    };
    // 7777… holds five references: three to a turn of 6666… (a summary's leaf, what a compaction
    // used, the conversation it continues), two to records no session holds (gone-0001, gone-0002).
    // The links graph: each of the three links, and each of those references resolved to the turn.
    const first = await linked();
    assert.equal(first.length, 6);
    const pass = async () => {
      const lock = await lockStore(dir);
      try {
        const writer = await openStoreForWriting(dir, 'local');
        const report = await linkAcrossSessions(writer);
        await writer.close();
        return report;
      } finally {
        await lock.release();
      }
    };

    // Nothing new since the ingest's pass: no file is read.
    assert.deepEqual(await pass(), { references: 5, resolved: 3, read: 0 });

    // A prompt appended to 8888… and read without the links pass: its spine grew and its derived
    // part is a new file; those two are read, no other.
    const S8 = '88888888-8888-4888-8888-888888888888';
    const prompt = {
      parentUuid: 'c-0005',
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: 'one more' },
      uuid: 'c-0101',
    };
    await appendFile(
      join(work, '-home-ada-records-demo', `${S8}.jsonl`),
      `${JSON.stringify({ ...prompt, sessionId: S8, timestamp: '2026-11-06T09:00:00.000Z' })}\n`,
    );
    const report = await ingest([work], { storeDir: dir, soul: 'local', derivations: DERIVATIONS.filter((d) => d !== links) });
    assert.deepEqual([report.sessions, report.carriedOn], [1, 1]);
    assert.deepEqual(await pass(), { references: 5, resolved: 3, read: 2 });
    assert.deepEqual(await linked(), first);

    // What it kept, unreadable: every session graph file is read again, to the same links.
    const manifest = (await readManifest(dir))!;
    await writeFile(join(dir, manifest.files![SCANS_NAME].file), 'not what a pass wrote\n');
    const files = Object.values(manifest.graphs)
      .filter((e) => e.sessionId && !e.reader)
      .reduce((n, e) => n + filesOf(e).length, 0);
    assert.equal(files, 12);
    assert.deepEqual(await pass(), { references: 5, resolved: 3, read: files });
    assert.deepEqual(await linked(), first);
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});
