import assert from 'node:assert/strict';
import { appendFile, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ingest } from '../src/ingest.ts';
import { READERS } from '../src/readers/registry.ts';
import { readManifest } from '../src/store/manifest.ts';
import { FIXTURES, removeDir, tempDir } from './helpers.ts';

/**
 * A sub-agent file beside its session (Claude Code 2.0) names its session only in its lines: read
 * before its first line was written, it was a session of its own, and once its lines name their
 * session that session's graph and its readers' go (src/acquire/sessions.ts, `regrouped`). They
 * went from the manifest without a word to the run's hooks, so a live server kept answering with
 * the session that was no more (a second weave:Session beside the one `/status` counted).
 */

const SESSION = '33333333-3333-4333-8333-333333333333';
const GONE = 'urn:soul:local:Weave/graph/agent-zz';

test('the graphs of a session that now belongs to another are told gone', async () => {
  const dir = await tempDir('weave-regrouped-');
  try {
    const project = join(dir, 'projects', '-home-grace-weave-server');
    await mkdir(project, { recursive: true });
    await copyFile(join(FIXTURES, 'server', '-home-grace-weave-server', `${SESSION}.jsonl`), join(project, `${SESSION}.jsonl`));
    const agent = join(project, 'agent-zz.jsonl');
    await writeFile(agent, ''); // created, nothing written yet
    const storeDir = join(dir, 'store');
    const options = { storeDir, soul: 'local', readers: { list: READERS } };
    await ingest([join(dir, 'projects')], options);
    const readers = ['emojikey/harvest', 'human/authored', 'tool/error', 'secret/exposure', 'agent/correction'];
    const gone = [GONE, ...readers.map((r) => `${GONE}/reader/${r}`)].sort();
    const before = Object.keys((await readManifest(storeDir))!.graphs);
    for (const graph of gone) assert.ok(before.includes(graph), `${graph} is in the store at first`);

    await appendFile(
      agent,
      `${JSON.stringify({
        parentUuid: null,
        isSidechain: true,
        sessionId: SESSION,
        agentId: 'zz',
        version: '2.0.10',
        type: 'user',
        message: { role: 'user', content: 'Look around' },
        uuid: '5e55e55e-0000-4000-8000-0000000000aa',
        timestamp: '2025-11-02T09:05:00.000Z',
      })}\n`,
    );
    const told: string[] = [];
    await ingest([join(dir, 'projects')], { ...options, onGraph: (graph, entry) => void (entry ? undefined : told.push(graph)) });
    const after = Object.keys((await readManifest(storeDir))!.graphs);
    for (const graph of gone) assert.ok(!after.includes(graph), `${graph} is gone from the store`);
    assert.deepEqual(told.sort(), gone);
  } finally {
    await removeDir(dir);
  }
});
