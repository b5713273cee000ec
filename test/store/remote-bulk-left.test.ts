import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { noLoaderRuns, VirtuosoLoader } from '../../src/store/remote/bulk.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * What an ingest killed with its loaders leaves in Virtuoso (Ctrl-C or a killed process group: the
 * isql running `rdf_loader_run` dies too): the loader stops at its file, and Virtuoso 7.2 keeps
 * that file's load-list row at LL_STATE 1, "loading", for good. The next run must take it for what
 * it is, not wait on it for ever.
 */

describe("a killed ingest's file left loading by a loader that is gone (Virtuoso)", { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;

  before(async () => {
    virtuoso = await startVirtuoso();
  });
  after(async () => {
    await virtuoso?.stop();
  });

  it('the next run takes the file and its row away, and carries on', async () => {
    // A writer that is no longer running, as the file's name says (host, pid, tag, part).
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const host = hostname().replace(/[^A-Za-z0-9.]/g, '_');
    const file = join(virtuoso.loadDir, `weave-bulk-${host}-${dead}-0badc0de-0.nq`);
    await writeFile(file, '<urn:x:s> <urn:x:p> <urn:x:o> <urn:x:g> .\n');
    await virtuoso.sql(
      `ld_add('${file}', 'urn:weave:bulk:default'); UPDATE DB.DBA.LOAD_LIST SET LL_STATE = 1, LL_STARTED = now() WHERE LL_FILE = '${file}';`,
    );
    const loader = new VirtuosoLoader(
      { engine: 'virtuoso', isql: virtuoso.isql, user: 'dba', password: 'dba', directory: virtuoso.loadDir },
      false,
    );
    let timer: NodeJS.Timeout | undefined;
    const swept = await Promise.race([
      loader.sweep(),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('still waiting after 20 s'), 20_000);
      }),
    ]);
    clearTimeout(timer);
    assert.equal(swept, 1);
    assert.equal(existsSync(file), false);
    assert.match(await virtuoso.sql(`SELECT 'rows', COUNT(*) FROM DB.DBA.LOAD_LIST WHERE LL_FILE = '${file}';`), /rows\s+0\b/);
  });

  it("reads the server's report: no loader runs only when it runs no thread but the asker's, and none waits", () => {
    assert.equal(noLoaderRuns('   Currently 1 threads running 0 threads waiting 0 threads in vdb.'), true);
    assert.equal(noLoaderRuns('   Currently 2 threads running 0 threads waiting 0 threads in vdb.'), false);
    assert.equal(noLoaderRuns('   Currently 1 threads running 1 threads waiting 0 threads in vdb.'), false);
    assert.equal(noLoaderRuns('no report'), false);
  });
});
