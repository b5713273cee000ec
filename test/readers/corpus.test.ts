import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { discoverSessions } from '../../src/acquire/discover.ts';
import { transcriptsOf } from '../../src/dialect/dialect.ts';
import { READERS } from '../../src/readers/registry.ts';
import { sliceCodePoints } from '../../src/readers/text.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { CORPUS, HAS_CORPUS, removeDir, select } from '../helpers.ts';
import { detectedStore } from './helpers.ts';

/** Three of the corpus's projects (about 7.5 MB): real texts, real errors, quick to read. */
const PROJECTS = ['TensorTemplar__slopometry', 'entireio__cli', 'd-kimuson__claude-code-viewer'].map((p) => join(CORPUS, p));

test('readers over real transcripts: spans slice true, claims stay unasserted, errors match a plain scan', {
  skip: !HAS_CORPUS && 'no ../shared/corpus here',
}, async () => {
  const { dir, store, report } = await detectedStore(PROJECTS);
  try {
    const sessions = await discoverSessions(PROJECTS);
    assert.equal(report.sessions, sessions.length);
    assert.equal(report.graphs, sessions.length * READERS.length);
    assert.equal(store.query('ASK { ?e <https://repolex.ai/ontology/weave#exhibits> ?x }', { use_default_graph_as_union: true }), false);

    // Failed tool results, counted by a plain JSON scan (first copy of each record per session).
    let failed = 0;
    for (const session of sessions) {
      const seen = new Set<string>();
      for (const source of transcriptsOf(session))
        for (const line of readFileSync(source.path, 'utf8').split('\n')) {
          let rec: { type?: string; uuid?: string; message?: { content?: unknown } };
          try {
            rec = JSON.parse(line);
          } catch {
            continue;
          }
          if (rec?.type !== 'user' || !Array.isArray(rec.message?.content)) continue;
          if (rec.uuid && seen.has(rec.uuid)) continue;
          if (rec.uuid) seen.add(rec.uuid);
          failed += (rec.message.content as { type?: string; is_error?: unknown }[]).filter(
            (b) => b?.type === 'tool_result' && b.is_error === true,
          ).length;
        }
    }
    assert.ok(failed > 0);
    assert.equal(report.findings['tool/error'], failed);

    // Every quote is what its position selects in the stored text, counted in code points.
    const quoted = select(
      store,
      `SELECT ?text ?start ?end ?exact WHERE { GRAPH ?g {
      ?a oa:hasTarget ?t . ?t weave:atBlock ?b ; oa:hasSelector ?p , ?q .
      ?p oa:start ?start ; oa:end ?end . ?q oa:exact ?exact . FILTER NOT EXISTS { ?t weave:inputPointer ?x } }
      # The block's text from the session graph the reader graph belongs to: record ids recur across sessions.
      GRAPH ?session { ?b weave:text ?text } FILTER(STRSTARTS(STR(?g), CONCAT(STR(?session), "/reader/"))) }`,
    );
    assert.ok(quoted.length > 50, `${quoted.length} quotes`);
    for (const r of quoted) assert.equal(sliceCodePoints(r.text, Number(r.start), Number(r.end)), r.exact);

    // No reader graph holds a secret that a secret/exposure finding points at.
    const secrets = select(
      store,
      `SELECT ?text ?input ?pointer ?start ?end WHERE {
      ?a weave:eventType "secret/exposure" ; oa:hasTarget ?t . ?t weave:atBlock ?b ; oa:hasSelector ?p . ?p oa:start ?start ; oa:end ?end .
      OPTIONAL { ?t weave:inputPointer ?pointer . ?b weave:toolInput ?input } OPTIONAL { ?b weave:text ?text } }`,
    ).map((r) => {
      let text = r.text;
      if (r.pointer) {
        let v: unknown = JSON.parse(r.input);
        for (const k of r.pointer.split('/').slice(1)) v = (v as Record<string, unknown>)[k.replace(/~1/g, '/').replace(/~0/g, '~')];
        text = v as string;
      }
      return sliceCodePoints(text, Number(r.start), Number(r.end));
    });
    const manifest = (await readManifest(dir))!;
    for (const entry of Object.values(manifest.graphs).filter((e) => e.reader)) {
      const text = await readFile(join(dir, entry.file), 'utf8');
      for (const s of secrets) assert.ok(!text.includes(s), `${entry.reader} graph of ${entry.sessionId} holds a secret`);
    }
  } finally {
    await removeDir(dir);
  }
});
