import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from '../helpers.ts';

const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));
const execute = promisify(execFile);

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(WEAVE, args, { encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const SESSION = '33333333-3333-4333-8333-333333333333';

test('weave validate: exit 0 on a valid store; a broken graph gives exit 1, grouped violations, no literal text', async () => {
  const dir = await tempDir();
  try {
    const report = await ingest([join(FIXTURES, 'server')], { storeDir: dir, soul: 'local' });
    await detect({ storeDir: dir });
    const manifest = (await readManifest(dir))!;
    const graphs = Object.keys(manifest.graphs).length;
    const ok = await run(['validate', '--store', dir]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    // Each session is a unit with its readers' graphs; each reader's own graph is a unit too.
    const units = report.sessions + Object.values(manifest.graphs).filter((e) => e.reader && e.sessionId === undefined).length;
    assert.match(
      ok.stdout,
      new RegExp(`^valid: ${graphs} graphs in ${units} units \\([\\d,]+ quads\\) conform to ontology/shapes.ttl\\n$`),
    );

    // Break one session: a second, secret-looking text on a text block, and an order out of range.
    const entry = Object.values(manifest.graphs).find((e) => e.sessionId === SESSION && !e.reader)!;
    const graph = `<urn:soul:local:Weave/graph/${SESSION}>`;
    const text = await readFile(join(dir, entry.file), 'utf8');
    const block = /^(<[^>]*ContentBlock\/[^>]*\/0>) <https:\/\/repolex\.ai\/ontology\/weave#text> /m.exec(text)![1];
    const added = [
      `${block} <https://repolex.ai/ontology/weave#text> "sk-ant-api03-PLANTEDSECRET" ${graph} .`,
      `${block} <https://repolex.ai/ontology/weave#blockOrder> "7"^^<http://www.w3.org/2001/XMLSchema#integer> ${graph} .`,
      '',
    ].join('\n');
    await appendFile(join(dir, entry.file), added);
    // Only the length the manifest names is the graph: name the lines added too, as a writer would.
    const onDisk = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    const key = Object.keys(onDisk.graphs).find((g) => onDisk.graphs[g].file === entry.file)!;
    onDisk.graphs[key].bytes += Buffer.byteLength(added);
    await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(onDisk, null, 1)}\n`);

    const bad = await run(['validate', '--store', dir, '--session', SESSION.slice(0, 8)]);
    assert.equal(bad.code, 1);
    assert.ok(!bad.stdout.includes('PLANTED'), 'the report never quotes a literal');
    const lines = bad.stdout.trimEnd().split('\n');
    // The block now has two texts and two orders; its owner's blocks are no longer 0…n−1.
    const quads =
      Object.values(manifest.graphs)
        .filter((e) => e.sessionId === SESSION)
        .reduce((n, e) => n + e.quads, 0) + 2;
    assert.deepEqual(lines.filter((l) => !l.startsWith('  ')).sort(), [
      `NOT valid: 3 violations of 3 shape constraints in 6 graphs in 1 unit (${quads} quads)`,
      'wsh:BlockOwnerShape (DenseBlockOrder): 1 violation',
      'wsh:ContentBlockShape weave:blockOrder (MaxCount): 1 violation',
      'wsh:ContentBlockShape weave:text (MaxCount): 1 violation',
    ]);
    assert.ok(lines.some((l) => l.startsWith(`  ${block}: `) && l.endsWith(`[${SESSION}]`)));

    const json = JSON.parse((await run(['validate', '--store', dir, '--session', SESSION, '--json'])).stdout);
    assert.equal(json.violations, 3);
    assert.equal(json.units[0].sessionId, SESSION);

    const unknown = await run(['validate', '--store', dir, '--session', 'nope']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'weave validate: no session "nope" in the store\n');
  } finally {
    await removeDir(dir);
  }
});
