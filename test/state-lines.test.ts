import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { TranscriptDefaults } from '../src/emit/defaults.ts';
import { ingest } from '../src/ingest.ts';
import { iri, str, type Term, type Triple } from '../src/rdf/terms.ts';
import { weave } from '../src/rdf/vocab.ts';
import { readManifest } from '../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from './helpers.ts';

/**
 * The state a read carries on from is JSON lines (issue 25): where each transcript's complete
 * lines end, the emitter's head, then one line per entry, none of them the whole state. A state
 * of the form before (one JSON object) is not carried on: the session is read whole, to the
 * graph one read gives.
 */
const PROJECT = '-home-ada-weave-demo';
const FILE = '11111111-1111-4111-8111-111111111111.jsonl';
const GRAPH = 'urn:soul:local:Weave/graph/11111111-1111-4111-8111-111111111111';

test('the state is JSON lines, and a state of the old form makes the next read whole', async () => {
  const dir = await tempDir();
  try {
    const lines = (await readFile(join(FIXTURES, 'spine', PROJECT, FILE), 'utf8')).split('\n').filter(Boolean);
    const root = join(dir, 'projects');
    const path = join(root, PROJECT, FILE);
    await mkdir(join(root, PROJECT), { recursive: true });
    const first = `${lines.slice(0, 5).join('\n')}\n`;
    await writeFile(path, first);
    const store = join(dir, 'store');
    await ingest([root], { storeDir: store, soul: 'local', archive: false });
    const entry = (await readManifest(store))!.graphs[GRAPH];
    const state = (await readFile(join(store, entry.state!.file), 'utf8')).split('\n');
    assert.equal(state.pop(), '', 'every line ends in a newline');
    assert.deepEqual(JSON.parse(state[0]), { ends: { [path]: { lines: 5, bytes: Buffer.byteLength(first) } } });
    assert.equal(JSON.parse(state[1]).version, 4);
    // Lines 2–5 have uuids (u-0001, a-0001..a-0003), line 1 none; line 5 uses toolu_0001.
    assert.deepEqual(
      state
        .slice(2)
        .map((l) => JSON.parse(l))
        .filter(([kind]) => kind === 'event' || kind === 'toolUse')
        .map(([kind, id]) => `${kind} ${id}`),
      ['event u-0001', 'event a-0001', 'event a-0002', 'event a-0003', 'toolUse toolu_0001'],
    );

    // The old form: one object, the emitter's state a string in it.
    await writeFile(join(store, entry.state!.file), `${JSON.stringify({ emitter: '{"version":2}', ends: JSON.parse(state[0]).ends })}`);
    await appendFile(path, `${lines.slice(5).join('\n')}\n`);
    const report = await ingest([root], { storeDir: store, soul: 'local', archive: false });
    assert.deepEqual([report.sessions, report.carriedOn], [1, 0], 'read whole, not carried on');
    const whole = join(dir, 'whole');
    await ingest([root], { storeDir: whole, soul: 'local', archive: false });
    const quads = async (s: string) => {
      const e = (await readManifest(s))!.graphs[GRAPH];
      return [e.quads, e.derived!.quads, e.bytes, e.derived!.bytes];
    };
    assert.deepEqual(await quads(store), await quads(whole));
  } finally {
    await removeDir(dir);
  }
});

/**
 * Found measuring a session's saved state: a property no record of a transcript states (a main
 * transcript's agent id, an older Claude Code's entrypoint) kept every record waiting for it, and
 * each such property listed every record's IRI again, in memory and in the state (a sixth of the
 * corpus's largest state file). The records waiting are named once, each property's as runs.
 */
test("a transcript's records waiting for a value are kept once, however many properties they wait for", () => {
  const transcript = iri('urn:x:T');
  const [e1, e2, e3, e4] = ['E1', 'E2', 'E3', 'E4'].map((e) => iri(`urn:x:${e}`));
  const cwd = str('/home/ada');
  const read = (defaults: TranscriptDefaults, event: Term, withCwd: boolean) => {
    const out: Triple[] = [];
    defaults.state(event, weave.cwd, withCwd ? cwd : undefined, out);
    defaults.state(event, weave.recordAgentId, undefined, out);
    return out;
  };
  const first = new TranscriptDefaults(transcript);
  assert.deepEqual([...read(first, e1, false), ...read(first, e2, false)], []);
  assert.deepEqual(first.save(), {
    stated: [],
    events: [e1, e2],
    waiting: [
      [weave.cwd, [[0, 2]]],
      [weave.recordAgentId, [[0, 2]]],
    ],
  });
  // Carried on from the saved state, as a later read of the grown transcript is.
  const later = TranscriptDefaults.load(transcript, JSON.parse(JSON.stringify(first.save())));
  assert.deepEqual(read(later, e3, true), [
    { s: transcript, p: weave.cwd, o: cwd },
    { s: e1, p: weave.lacks, o: weave.cwd },
    { s: e2, p: weave.lacks, o: weave.cwd },
  ]);
  assert.deepEqual(read(later, e4, false), [{ s: e4, p: weave.lacks, o: weave.cwd }]);
  assert.deepEqual(later.save(), {
    stated: [[weave.cwd, cwd]],
    events: [e1, e2, e3, e4],
    waiting: [[weave.recordAgentId, [[0, 4]]]],
  });
});
