import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, readdir, cp, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Parser } from 'n3';
import oxigraph from 'oxigraph';
import { ingest } from '../src/ingest.ts';
import { readGraphBytes, type GraphEntry } from '../src/store/manifest.ts';
import { openStore } from '../src/store/store.ts';
import { count, FIXTURES, ingestFresh, removeDir, REPO, select, tempDir } from './helpers.ts';
import { canonicalNQuads } from './nquads.ts';

const run = promisify(execFile);
const SPINE = join(FIXTURES, 'spine');
const WEAVE = join(REPO, 'bin', 'weave');
const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';

test('the spine fixtures: turns, events, blocks, tool pairs and messages, counted by hand', async () => {
  const { dir, store, report } = await ingestFresh([SPINE]);
  try {
    assert.deepEqual(
      [report.sessions, report.files, report.records, report.malformed, report.pending, report.replayed],
      [2, 5, 30, 1, 1, 1],
    );
    assert.equal(count(store, '?t a weave:ClaudeCodeTranscript'), 5);
    assert.equal(count(store, '?t a weave:Turn'), 24);
    assert.equal(count(store, '?t a weave:UserTurn'), 12);
    assert.equal(count(store, '?t a weave:AssistantTurn'), 12);
    assert.equal(count(store, '?e a weave:Event'), 29);
    assert.equal(count(store, '?b a weave:ContentBlock'), 28);
    assert.equal(count(store, '?b a weave:ToolUseBlock'), 5);
    assert.equal(count(store, '?b a weave:ToolResultBlock'), 5);
    assert.equal(count(store, '?r weave:toolUseRef ?u'), 5);
    assert.equal(count(store, '?r weave:toolIsError true'), 1);
    assert.equal(Number(select(store, 'SELECT (COUNT(DISTINCT ?m) AS ?n) WHERE { ?t weave:messageId ?m }')[0].n), 9);
    assert.equal(count(store, '?l a weave:MalformedLine'), 1);
    assert.equal(count(store, '?l a weave:PendingLine'), 1);
    assert.equal(count(store, `?r weave:replayOf <urn:soul:local:Weave/Turn/${S1}/u-0001>`), 1);
    // A result in the beside agent file answers a use in its session's main file.
    assert.equal(
      count(
        store,
        `<urn:soul:local:Weave/ContentBlock/${S2}/x-0002/0> weave:toolUseRef <urn:soul:local:Weave/ContentBlock/${S2}/v-0004/0>`,
      ),
      1,
    );
    // The summary names its leaf; sub-agent transcripts name their session.
    assert.equal(count(store, `?s weave:leafEvent <urn:soul:local:Weave/Turn/${S2}/v-0002>`), 1);
    assert.equal(count(store, `?t weave:parentTranscript <urn:soul:local:Weave/Transcript/${S1}>`), 2);
    // One named graph per session, and the ontology and the alignment with ravel in their own.
    const graphs = select(store, 'SELECT DISTINCT ?g WHERE { GRAPH ?g {} } ORDER BY ?g').map((r) => r.g);
    assert.deepEqual(graphs, [
      'https://repolex.ai/ontology/weave',
      'urn:soul:local:Weave/alignment/ravel',
      `urn:soul:local:Weave/graph/${S1}`,
      'urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222',
    ]);
  } finally {
    await removeDir(dir);
  }
});

test('a broken line is reported with its file and line, and the rest of the file still loads', async () => {
  const problems: string[] = [];
  const { dir, store } = await ingestFresh([SPINE], {
    onProblem: (p) => problems.push(`${p.path.slice(SPINE.length)}:${p.lineNo}:${p.kind}`),
  });
  try {
    assert.deepEqual(problems, [
      '/-home-ada-weave-demo/22222222-2222-4222-8222-222222222222.jsonl:5:malformed',
      '/-home-ada-weave-demo/22222222-2222-4222-8222-222222222222.jsonl:8:pending',
    ]);
    // Line 7, after the broken line 5 and the blank line 6, is there.
    assert.equal(count(store, `<urn:soul:local:Weave/Turn/${S2}/v-0004> weave:sourceLine 7`), 1);
    assert.equal(count(store, '?l a weave:MalformedLine ; weave:sourceLine 5 ; weave:parseError ?e ; weave:rawText ?t'), 1);
  } finally {
    await removeDir(dir);
  }
});

test('reading a session twice gives exactly the same graph files', async () => {
  const dir = await tempDir();
  try {
    await ingest([SPINE], { storeDir: dir, soul: 'local' });
    const first = await snapshot(dir);
    const again = await ingest([SPINE], { storeDir: dir, soul: 'local' });
    assert.equal(again.skipped, 2, 'unchanged sessions are not read again');
    await ingest([SPINE], { storeDir: dir, soul: 'local', force: true });
    assert.deepEqual(await snapshot(dir), first);
  } finally {
    await removeDir(dir);
  }
});

test('a changed session replaces its graph whole; the pending line is read once complete', async () => {
  const work = await tempDir();
  const dir = await tempDir();
  try {
    await cp(SPINE, work, { recursive: true });
    const file = join(work, '-home-ada-weave-demo', '22222222-2222-4222-8222-222222222222.jsonl');
    await ingest([work], { storeDir: dir, soul: 'local' });
    // Claude Code finishes writing the last record.
    await appendFile(file, 'sult","tool_use_id":"toolu_0030","content":"ok"}]},"uuid":"v-0005"}\n');
    const report = await ingest([work], { storeDir: dir, soul: 'local' });
    assert.deepEqual([report.sessions, report.skipped, report.pending], [1, 1, 0]);
    const { store } = await openStore(dir);
    assert.equal(count(store, '?l a weave:PendingLine'), 0);
    assert.equal(count(store, `<urn:soul:local:Weave/Turn/${S2}/v-0005> weave:sourceLine 8`), 1);
    assert.equal(
      count(
        store,
        `<urn:soul:local:Weave/ContentBlock/${S2}/v-0005/0> weave:toolUseRef <urn:soul:local:Weave/ContentBlock/${S2}/v-0004/0>`,
      ),
      1,
    );
  } finally {
    await removeDir(work);
    await removeDir(dir);
  }
});

test('ingest, then query and export from other processes; the export parses back to the same quads', async () => {
  const dir = await tempDir();
  try {
    const ingested = await run(WEAVE, ['ingest', SPINE, '--store', dir]);
    assert.match(ingested.stdout, /^ingested: 2 sessions read \(0 unchanged\) · 5 files · 30 records · \d[\d,]* quads/);
    assert.match(ingested.stderr, /22222222-2222-4222-8222-222222222222\.jsonl:5: malformed: /);

    const table = await run(WEAVE, ['query', 'SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }', '--store', dir]);
    assert.equal(table.stdout, '?n\n--\n24\n(1 row)\n');
    const csv = await run(WEAVE, [
      'query',
      'SELECT ?name WHERE { ?b a weave:ToolUseBlock ; weave:toolName ?name } ORDER BY ?name',
      '--format',
      'csv',
      '--store',
      dir,
    ]);
    assert.equal(csv.stdout.replace(/\r\n/g, '\n'), 'name\nBash\nBash\nRead\nTask\nmcp__my server__do#it\n');

    // Every quad, not just as many. The export streams the graph files, so literals keep the form
    // they were written in ("…01.000Z"): read by n3 it holds exactly the graph files' quads (and the
    // ontology and alignment graphs); loaded into Oxigraph, which stores values in canonical form,
    // it equals the store. `--lean`: as stored, without what a self-contained TriG or Turtle adds.
    const { store } = await openStore(dir);
    const stored = canonicalNQuads(store.match(null, null, null, null));
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { graphs: Record<string, GraphEntry> };
    // Each graph's files (a session's spine and derived part), each as long as the manifest names.
    const files = (
      await Promise.all(
        Object.values(manifest.graphs).map(async (g) =>
          new Parser({ format: 'application/n-quads' }).parse((await readGraphBytes(dir, g)).toString('utf8')),
        ),
      )
    ).flat();
    const sessionGraphs = new Set(Object.keys(manifest.graphs));
    const reloaded = (text: string, format: string, graphless = false) => {
      const s = new oxigraph.Store();
      s.load(text, { format });
      return canonicalNQuads(s.match(null, null, null, null), { withGraphs: !graphless });
    };
    for (const [format, mediaType] of [
      ['trig', 'application/trig'],
      ['nquads', 'application/n-quads'],
    ]) {
      const out = join(dir, `export.${format}`);
      await run(WEAVE, ['export', '--format', format, '--lean', '-o', out, '--store', dir]);
      const text = await readFile(out, 'utf8');
      const read = new Parser({ format: mediaType }).parse(text).filter((q) => sessionGraphs.has(q.graph.value));
      assert.deepEqual(canonicalNQuads(read), canonicalNQuads(files), `${format} read by n3`);
      assert.deepEqual(reloaded(text, mediaType), stored, `${format} loaded into Oxigraph`);
    }
    const graph = `urn:soul:local:Weave/graph/${S1}`;
    const one = await run(WEAVE, ['export', '--format', 'turtle', '--lean', '--graph', graph, '--store', dir]);
    const triples = canonicalNQuads(store.match(null, null, null, oxigraph.namedNode(graph)), { withGraphs: false });
    assert.deepEqual(
      canonicalNQuads(new Parser({ format: 'text/turtle' }).parse(one.stdout)),
      canonicalNQuads(
        files.filter((q) => q.graph.value === graph),
        { withGraphs: false },
      ),
      'turtle read by n3',
    );
    assert.deepEqual(reloaded(one.stdout, 'text/turtle', true), triples, 'turtle loaded into Oxigraph');
  } finally {
    await removeDir(dir);
  }
});

test('command errors are one clear line and a non-zero exit', async () => {
  const dir = await tempDir();
  try {
    await assert.rejects(run(WEAVE, ['query', 'SELECT * WHERE { ?s ?p }', '--store', dir]), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 1);
      assert.match(e.stderr, /^weave query: error at line 1, column 25: /);
      assert.equal(e.stderr.trim().split('\n').length, 1);
      return true;
    });
    await assert.rejects(run(WEAVE, ['ingest', join(dir, 'nowhere')]), (e: { code: number; stderr: string }) => {
      assert.match(e.stderr, /^weave ingest: \S+nowhere: no such file or folder; name a projects root/);
      return true;
    });
    await assert.rejects(run(WEAVE, ['export', '--bogus']), (e: { code: number }) => e.code === 2);
    const help = await run(WEAVE, ['export', '--help']);
    assert.match(help.stdout, /^usage: weave export/);
  } finally {
    await removeDir(dir);
  }
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(join(dir, 'graphs'))).sort();
  return Object.fromEntries(await Promise.all(files.map(async (f) => [f, await readFile(join(dir, 'graphs', f), 'utf8')] as const)));
}
