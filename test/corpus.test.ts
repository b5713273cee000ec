import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mintedAtRandom } from '../src/dialect/claude-code/ids.ts';
import { discoverSessions } from '../src/acquire/discover.ts';
import { transcriptsOf } from '../src/dialect/dialect.ts';
import { openStore } from '../src/store/store.ts';
import { corpusStore, releaseCorpusStore } from './corpus-store.ts';
import { CORPUS, HAS_CORPUS, select } from './helpers.ts';

/**
 * The real corpus, read two ways: through Weave into the store, and by a plain JSON scan of the
 * same files (sessions grouped as discovery groups them). The figures must agree exactly.
 *
 * Counts are per session, summed: Oxigraph's union default graph yields a triple once per graph
 * that holds it, and a record copied into two sessions (a fork, or the corpus's duplicated
 * folders) is in both sessions' graphs.
 */
test('the corpus ingests with every line accounted for and counts equal to a plain scan', {
  skip: !HAS_CORPUS && 'no ../shared/corpus here',
}, async () => {
  const corpus = await corpusStore();
  const report = corpus.ingested;
  const { store } = await openStore(corpus.dir);
  try {
    const scan = await plainScan();
    assert.equal(report.records + report.malformed + report.pending, scan.lines.size);

    // Every non-empty line is an Event, a replayed copy, a malformed line or a line being written.
    const accounted = new Set(
      select(
        store,
        `SELECT ?path ?n WHERE { GRAPH ?g {
        ?t weave:sourcePath ?path .
        { ?t weave:hasEvent ?e . ?e weave:sourceLine ?n } UNION { ?x weave:inTranscript ?t ; weave:sourceLine ?n }
      } }`,
      ).map((r) => `${r.path}:${r.n}`),
    );
    assert.deepEqual(
      [...scan.lines].filter((l) => !accounted.has(l)),
      [],
    );
    assert.equal(accounted.size, scan.lines.size);

    const n = (q: string) => Number(select(store, q)[0].n);
    assert.equal(n('SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }'), scan.turns.size);
    assert.equal(n('SELECT (COUNT(*) AS ?n) WHERE { ?b a weave:ContentBlock }'), scan.blocks.size);
    assert.equal(n('SELECT (COUNT(*) AS ?n) WHERE { ?r weave:toolUseRef ?u }'), scan.pairs.size);
    assert.equal(n('SELECT (COUNT(DISTINCT ?m) AS ?n) WHERE { ?t weave:messageId ?m }'), scan.messages.size);
  } finally {
    await releaseCorpusStore(corpus);
  }
});

interface Scan {
  lines: Set<string>;
  turns: Set<string>;
  blocks: Set<string>;
  pairs: Set<string>;
  messages: Set<string>;
}

async function plainScan(): Promise<Scan> {
  const scan: Scan = { lines: new Set(), turns: new Set(), blocks: new Set(), pairs: new Set(), messages: new Set() };
  for (const session of await discoverSessions([CORPUS])) {
    const seen = new Set<string>();
    const uses = new Map<string, string>();
    const results: [string, string][] = [];
    for (const { path } of transcriptsOf(session)) {
      const stream = path === session.main?.path ? session.sessionId : path;
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((text, i) => {
          if (!text.trim()) return;
          scan.lines.add(`${path}:${i + 1}`);
          let rec;
          try {
            rec = JSON.parse(text);
          } catch {
            return;
          }
          if (!rec || typeof rec !== 'object' || Array.isArray(rec) || typeof rec.type !== 'string') return;
          if (rec.uuid) {
            if (seen.has(rec.uuid)) return; // a replay: the first copy stands
            seen.add(rec.uuid);
          }
          if (rec.type !== 'user' && rec.type !== 'assistant') return;
          // A record's node is shared by every session holding a copy when Claude Code minted its
          // uuid (src/dialect/claude-code/ids.ts); the union counts it once.
          const key =
            typeof rec.uuid === 'string' && mintedAtRandom(rec.uuid)
              ? rec.uuid
              : `${session.sessionId}|${rec.uuid ?? `${stream}:${i + 1}`}`;
          scan.turns.add(key);
          if (rec.type === 'assistant' && typeof rec.message?.id === 'string') scan.messages.add(rec.message.id);
          const content = rec.message?.content;
          const blocks = typeof content === 'string' ? [{ type: 'text' }] : Array.isArray(content) ? content : [];
          blocks.forEach((block: any, order: number) => {
            const at = `${key}/${order}`;
            scan.blocks.add(at);
            if ((block?.type === 'tool_use' || block?.type === 'server_tool_use') && typeof block.id === 'string' && !uses.has(block.id))
              uses.set(block.id, at);
            if (block?.type === 'tool_result' || block?.type === 'advisor_tool_result') {
              if (typeof block.tool_use_id === 'string') results.push([at, block.tool_use_id]);
              if (Array.isArray(block.content))
                for (let inner = 0; inner < block.content.length; inner++) scan.blocks.add(`${at}/${inner}`);
            }
          });
        });
    }
    for (const [at, id] of results) if (uses.has(id)) scan.pairs.add(`${at}->${uses.get(id)}`);
  }
  return scan;
}
