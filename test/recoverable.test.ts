import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import oxigraph from 'oxigraph';
import { discoverSessions } from '../src/acquire/discover.ts';
import { tooDeep } from '../src/acquire/json-depth.ts';
import { NAMED_BY_CLASS, RECORD_CLASS } from '../src/dialect/claude-code/emit/spine.ts';
import { transcriptsOf } from '../src/dialect/dialect.ts';
import { WEAVE_NS } from '../src/rdf/vocab.ts';
import { loadOntology, type OxStore } from '../src/store/store.ts';
import { openStore } from '../src/store/store.ts';
import { corpusStore, releaseCorpusStore } from './corpus-store.ts';
import { CORPUS, FIXTURES, HAS_CORPUS, ingestFresh, removeDir, REPO, select } from './helpers.ts';

/**
 * The lean graph states what is constant for a transcript once, on the transcript; a record's
 * type once, on its class; an id once, on what it names (but a turn's role and a tool result's
 * tool use id on every one, as the card draws them). Every value the
 * old form stated on each record is still answered: by the record's own statement, or by the
 * documented queries (queries/record-envelope.rq, queries/record-derived.rq). The values the old
 * form held are read here from the sources by a plain JSON scan, field by field, and must equal
 * what the store answers, no more and no fewer.
 */

/** The old form's per-record properties, as the scan reads them from a record's fields. */
const ENVELOPE: [field: string, property: string][] = [
  ['cwd', 'cwd'],
  ['gitBranch', 'gitBranch'],
  ['version', 'cliVersion'],
  ['userType', 'userType'],
  ['slug', 'sessionNickname'],
  ['entrypoint', 'entrypoint'],
  ['sessionId', 'recordSessionId'],
  ['agentId', 'recordAgentId'],
];
const PROPERTIES = [
  ...ENVELOPE.map(([, p]) => p),
  'isSidechain',
  'recordType',
  'role',
  'parentEventId',
  'logicalParentEventId',
  'sourceToolAssistantId',
  'sourceEventId',
  'leafEventId',
  'parentToolUseId',
  'toolUseId',
  'hookEvent',
];

type Rec = Record<string, unknown> & { type: string };
const text = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** `path:line[#block] property value` for every value the old form stated, from the sources. */
async function scanned(paths: string[]): Promise<Set<string>> {
  const facts = new Set<string>();
  for (const session of await discoverSessions(paths)) {
    const seen = new Set<string>();
    for (const { path } of transcriptsOf(session)) {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // A line nested too deep is kept as a malformed line, as the dialect reads it.
          if (tooDeep(line)) return;
          let r: Rec;
          try {
            // A byte order mark before the first line is not the record's (the dialect drops it).
            r = JSON.parse(i === 0 ? line.replace(/^\uFEFF/, '') : line);
          } catch {
            return;
          }
          if (!r || typeof r !== 'object' || Array.isArray(r) || typeof r.type !== 'string') return;
          if (typeof r.uuid === 'string' && r.uuid) {
            if (seen.has(r.uuid)) return; // a replay: the first copy stands
            seen.add(r.uuid);
          }
          const key = `${path}:${i + 1}`;
          // A lone surrogate is stored as U+FFFD (src/rdf/terms.ts).
          const add = (property: string, value: unknown, at = key) =>
            facts.add(`${at} ${property} ${typeof value === 'string' ? value.toWellFormed() : value}`);
          add('recordType', r.type);
          const turn = r.type === 'user' || r.type === 'assistant';
          if (turn) add('role', r.type);
          for (const [field, property] of ENVELOPE) if (text(r[field])) add(property, r[field]);
          if (typeof r.isSidechain === 'boolean') add('isSidechain', r.isSidechain);
          if (text(r.parentUuid)) add('parentEventId', r.parentUuid);
          if (text(r.logicalParentUuid)) add('logicalParentEventId', r.logicalParentUuid);
          if (r.type === 'user' && text(r.sourceToolAssistantUUID)) add('sourceToolAssistantId', r.sourceToolAssistantUUID);
          const attachment = r.attachment as Record<string, unknown> | undefined;
          if (r.type === 'attachment' && attachment?.type === 'queued_command' && text(attachment.source_uuid))
            add('sourceEventId', attachment.source_uuid);
          if ((r.type === 'summary' || r.type === 'last-prompt') && text(r.leafUuid)) add('leafEventId', r.leafUuid);
          if (r.type === 'progress') {
            if (text(r.parentToolUseID)) add('parentToolUseId', r.parentToolUseID);
            if (text(r.toolUseID)) add('toolUseId', r.toolUseID);
            const data = r.data as Record<string, unknown> | undefined;
            if (data && typeof data === 'object' && data.type === 'hook_progress' && text(data.hookEvent)) add('hookEvent', data.hookEvent);
          }
          const content = turn ? (r.message as { content?: unknown } | undefined)?.content : undefined;
          if (Array.isArray(content))
            content.forEach((b, order) => {
              if (b && (b.type === 'tool_result' || b.type === 'advisor_tool_result') && typeof b.tool_use_id === 'string')
                add('toolUseId', b.tool_use_id, `${key}#${order}`);
            });
        });
    }
  }
  return facts;
}

/** The same, as the store answers: stated on the record (or its result block), or by the documented queries. */
async function answered(store: OxStore): Promise<Set<string>> {
  const where = new Map<string, string>();
  for (const r of select(
    store,
    'SELECT ?g ?e ?path ?line WHERE { GRAPH ?g { ?t weave:sourcePath ?path ; weave:hasEvent ?e . ?e weave:sourceLine ?line } }',
  ))
    where.set(`${r.g} ${r.e}`, `${r.path}:${r.line}`);
  for (const r of select(
    store,
    'SELECT ?g ?b ?e ?o WHERE { GRAPH ?g { ?e weave:hasContentBlock ?b . ?b a weave:ToolResultBlock ; weave:blockOrder ?o } }',
  ))
    if (where.has(`${r.g} ${r.e}`)) where.set(`${r.g} ${r.b}`, `${where.get(`${r.g} ${r.e}`)}#${r.o}`);
  // Attachments state their hook event and toolUseID as they always did; the scan reads progress records' and results'.
  const progress = new Set(select(store, 'SELECT ?g ?e WHERE { GRAPH ?g { ?e a weave:ProgressEvent } }').map((r) => `${r.g} ${r.e}`));
  const facts = new Set<string>();
  const add = (graph: string, subject: string, property: string, value: string) => {
    const at = where.get(`${graph} ${subject}`);
    const local = property.slice(WEAVE_NS.length);
    // A record's own toolUseID (progress, hook attachments) is stated as it always was; the scan reads results' ids.
    if (!at || !property.startsWith(WEAVE_NS)) return;
    if ((local === 'hookEvent' || (local === 'toolUseId' && !at.includes('#'))) && !progress.has(`${graph} ${subject}`)) return;
    facts.add(`${at} ${local} ${value}`);
  };
  const values = PROPERTIES.map((p) => `weave:${p}`).join(' ');
  for (const r of select(store, `SELECT ?g ?s ?p ?v WHERE { GRAPH ?g { ?s ?p ?v } VALUES ?p { ${values} } }`)) add(r.g, r.s, r.p, r.v);
  for (const name of ['record-envelope', 'record-derived']) {
    const query = readFileSync(join(REPO, 'queries', `${name}.rq`), 'utf8');
    for (const r of select(store, query)) add(r.graph, r.event ?? r.subject, r.property, r.value);
  }
  return facts;
}

/** Checks a store of `paths`; `given`, a store already made of them, is read where given. */
async function check(paths: string[], given?: string): Promise<number> {
  const fresh = given === undefined ? await ingestFresh(paths) : undefined;
  const { store } = fresh ?? (await openStore(given as string));
  try {
    const [expected, actual] = [await scanned(paths), await answered(store)];
    assert.deepEqual(
      [...expected].filter((f) => !actual.has(f)).slice(0, 10),
      [],
      'values the old form held that the store no longer answers',
    );
    assert.deepEqual([...actual].filter((f) => !expected.has(f)).slice(0, 10), [], 'values the store answers that the sources do not hold');
    return expected.size;
  } finally {
    if (fresh) await removeDir(fresh.dir);
  }
}

test('every per-record value of the old form is answered on the fixtures', async () => {
  const n = await check([FIXTURES]);
  assert.ok(n > 1000, `${n} values checked`);
});

test('every per-record value of the old form is answered on the corpus', { skip: !HAS_CORPUS && 'no ../shared/corpus here' }, async () => {
  const corpus = await corpusStore();
  try {
    const n = await check([CORPUS], corpus.dir);
    assert.ok(n > 200_000, `${n} values checked`);
  } finally {
    await releaseCorpusStore(corpus);
  }
});

test('the ontology names exactly the record types the dialect leaves to their class', async () => {
  const store = new oxigraph.Store();
  await loadOntology(store);
  const named = select(store, 'SELECT ?class ?type WHERE { ?class weave:recordTypeName ?type }').map(
    (r) => `${r.type} ${r.class.slice(WEAVE_NS.length)}`,
  );
  const classes = Object.entries(RECORD_CLASS);
  const leftToClass = classes.filter(([type]) => NAMED_BY_CLASS.has(type)).map(([type, cls]) => `${type} ${cls}`);
  assert.deepEqual(named.sort(), leftToClass.sort());
  // Those a class shares state their type: two types of context collapse, two of artifact ledgers.
  assert.deepEqual(
    classes.filter(([type]) => !NAMED_BY_CLASS.has(type)).map(([, cls]) => cls),
    ['ContextCollapseEvent', 'ContextCollapseEvent', 'ArtifactLedgerEvent', 'ArtifactLedgerEvent'],
  );
});
