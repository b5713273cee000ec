import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { discoverSessions } from '../../src/acquire/discover.ts';
import { transcriptsOf } from '../../src/dialect/dialect.ts';
import type { SessionSource } from '../../src/dialect/dialect.ts';
import { openStore } from '../../src/store/store.ts';
import { verify } from '../../src/verify.ts';
import { corpusStore, releaseCorpusStore } from '../corpus-store.ts';
import { CORPUS, count, HAS_CORPUS } from '../helpers.ts';

/**
 * The whole real corpus verifies: every non-empty line of every transcript accounted for, every
 * stored text's length (and digest, where not held whole) matching its source.
 */
test('weave verify passes on the whole corpus with zero unaccounted lines', {
  skip: !HAS_CORPUS && 'no ../shared/corpus here',
}, async () => {
  const corpus = await corpusStore();
  const { dir } = corpus;
  try {
    const report = await verify({ storeDir: dir });
    const missing = report.files.flatMap((f) => f.missing.map((n) => `${f.path}:${n}`));
    const differ = report.files.flatMap((f) => f.mismatches.map((m) => `${f.path}:${m.lineNo}:${m.pointer}: ${m.message}`));
    assert.deepEqual([missing, differ, report.files.filter((f) => !f.inStore).map((f) => f.path)], [[], [], []]);
    assert.equal(report.ok, true);

    // The lines verify counted are the corpus's non-empty transcript lines, counted plainly (the
    // malformed and unfinished ones among them by JSON.parse line by line), and the texts not held
    // whole by default are the thinking signatures and the media, as a plain scan of first copies
    // (replays are not stored twice) counts them.
    const scan = plainScan(await discoverSessions([CORPUS]));
    const total = (key: 'lines' | 'events' | 'replayed' | 'malformed' | 'pending' | 'contents' | 'cut') =>
      report.sessions.reduce((n, r) => n + r[key], 0);
    assert.equal(total('lines'), scan.lines);
    assert.equal(total('events') + total('replayed') + total('malformed') + total('pending'), scan.lines);
    assert.deepEqual([total('malformed'), total('pending')], [scan.malformed, scan.pending]);
    assert.ok(scan.malformed > 0, 'the corpus holds lines that are not records');
    const { store } = await openStore(dir);
    const states = (state: string, property: string) =>
      count(store, `GRAPH ?g { ?c weave:contentState weave:${state} ; weave:contentOf weave:${property} }`);
    assert.equal(states('ContentOmitted', 'signature'), scan.signatures);
    assert.equal(states('ContentHashOnly', 'mediaData'), scan.media);
    assert.equal(states('ContentUnavailable', 'text'), scan.emptyThinking);
    assert.equal(total('cut'), count(store, 'GRAPH ?g { ?c weave:contentState ?s FILTER(?s != weave:ContentAvailable) }'));
  } finally {
    await releaseCorpusStore(corpus);
  }
});

type Scan = Record<'lines' | 'malformed' | 'pending' | 'signatures' | 'media' | 'emptyThinking', number>;
/** The fields of a record the scan reads. */
type ScannedRecord = { type: string; uuid?: string; message?: { content?: unknown }; attachment?: { type?: string; prompt?: unknown } };

/**
 * Non-empty lines; those that are no record (not JSON, not an object, no string "type"), apart from
 * an unfinished last line with no newline after it; and in first copies of records: signatures,
 * base64 media, empty thinking.
 */
function plainScan(sessions: SessionSource[]): Scan {
  const scan = { lines: 0, malformed: 0, pending: 0, signatures: 0, media: 0, emptyThinking: 0 };
  const blocks = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const b of list) {
      if (!b || typeof b !== 'object') continue;
      if (b.type === 'thinking' && typeof b.signature === 'string') scan.signatures++;
      if (b.type === 'thinking' && b.thinking === '') scan.emptyThinking++;
      if ((b.type === 'image' || b.type === 'document') && typeof b.source?.data === 'string') scan.media++;
      if (b.type === 'tool_result') blocks(b.content);
    }
  };
  for (const session of sessions) {
    const seen = new Set<string>();
    for (const { path } of transcriptsOf(session)) {
      const lines = readFileSync(path, 'utf8').split('\n');
      for (let i = 0; i < lines.length; i++) {
        const text = lines[i];
        if (!text.trim()) continue;
        scan.lines++;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          // The last piece has no newline after it: a record still being written.
          if (i === lines.length - 1) scan.pending++;
          else scan.malformed++;
          continue;
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || typeof (parsed as { type?: unknown }).type !== 'string') {
          scan.malformed++;
          continue;
        }
        const record = parsed as ScannedRecord;
        if (record.uuid) {
          if (seen.has(record.uuid)) continue;
          seen.add(record.uuid);
        }
        if (record.type === 'user' || record.type === 'assistant') blocks(record.message?.content);
        if (record.type === 'attachment' && record.attachment?.type === 'queued_command') blocks(record.attachment.prompt);
      }
    }
  }
  return scan;
}
