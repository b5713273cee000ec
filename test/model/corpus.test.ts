import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { discoverSessions } from '../../src/acquire/discover.ts';
import { transcriptsOf, type SessionSource } from '../../src/dialect/dialect.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { ingested, short, SOUL, type Ingested } from './helpers.ts';

/**
 * The conversation model over the real corpus (`<repo>/../shared/corpus`, skipped when absent):
 * nothing dangles silently, and token totals from the graph equal a plain JSON scan that takes
 * the last fragment of each message.id.
 */

const CORPUS = fileURLToPath(new URL('../shared/corpus/', new URL('../../', import.meta.url)));
const skip = existsSync(CORPUS) ? false : 'no corpus at ../shared/corpus';

interface Tokens {
  calls: number;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Each session's provider calls by plain JSON: records read in file order, a uuid seen before in
 * the session skipped (the first copy stands), the last assistant record of each message.id kept;
 * responses the client wrote itself (model <synthetic>) are not model output.
 */
function plainScan(session: SessionSource): { day: string; model: string; usage: Json }[] {
  const seen = new Set<string>();
  const last = new Map<string, Json>();
  for (const source of transcriptsOf(session)) {
    for (const line of readFileSync(source.path, 'utf8').split('\n')) {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isObject(record) || typeof record.type !== 'string') continue;
      if (typeof record.uuid === 'string' && record.uuid) {
        if (seen.has(record.uuid)) continue;
        seen.add(record.uuid);
      }
      const message = record.message;
      if (record.type !== 'assistant' || !isObject(message)) continue;
      const key = typeof message.id === 'string' && message.id ? message.id : `uuid:${record.uuid}`;
      last.set(key, record);
    }
  }
  const calls: { day: string; model: string; usage: Json }[] = [];
  for (const record of last.values()) {
    const message = record.message as Json;
    if (message.model === '<synthetic>' || typeof message.model !== 'string' || !message.model) continue;
    if (typeof record.timestamp !== 'string' || !record.timestamp || !isObject(message.usage)) continue;
    calls.push({ day: record.timestamp.slice(0, 10), model: message.model, usage: message.usage });
  }
  return calls;
}

/** The agent ids the session's tool results say they launched (toolUseResult.agentId). */
function launchedAgentIds(session: SessionSource): Set<string> {
  const ids = new Set<string>();
  for (const source of transcriptsOf(session))
    for (const line of readFileSync(source.path, 'utf8').split('\n')) {
      if (!line.includes('"agentId"')) continue;
      try {
        const record = JSON.parse(line);
        if (record?.type === 'user' && isObject(record.toolUseResult) && typeof record.toolUseResult.agentId === 'string') ids.add(record.toolUseResult.agentId);
      } catch {
        /* not a record */
      }
    }
  return ids;
}

function add(into: Tokens, usage: Json): void {
  const n = (key: string) => (typeof usage[key] === 'number' ? Math.trunc(usage[key] as number) : 0);
  into.calls++;
  into.input += n('input_tokens');
  into.output += n('output_tokens');
  into.cacheCreation += n('cache_creation_input_tokens');
  into.cacheRead += n('cache_read_input_tokens');
}

/** The model's links between nodes (rdf:type links are annotated too, but the spine asserts types as well). */
const RELATIONS = ['within', 'starts', 'reports', 'resultOf', 'follows', 'summarizes', 'produces', 'cancels', 'endsWith', 'trigger', 'fragmentOf',
  'firstFragment', 'lastFragment', 'toolRequest', 'toolResponse', 'outputCall', 'labelledBy', 'recordedIn'].map((p) => `weave:${p}`).join(' ');

const zero = (): Tokens => ({ calls: 0, input: 0, output: 0, cacheCreation: 0, cacheRead: 0 });
const tokensOf = (row: Record<string, string>): Tokens => ({
  calls: Number(row.calls), input: Number(row.input), output: Number(row.output),
  cacheCreation: Number(row.cacheCreation), cacheRead: Number(row.cacheRead),
});

describe('the conversation model on the corpus', { skip }, () => {
  let g: Ingested;
  let sessions: SessionSource[];
  before(async () => {
    sessions = await discoverSessions([CORPUS]);
    g = await ingested([CORPUS]);
  });
  after(() => g?.close());

  test('every tool use is joined to its result or ends at an explicit Unresolved result', () => {
    const [uses] = g.select(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?b a weave:ToolUseBlock ; weave:toolUseId ?id } }`);
    assert.ok(Number(uses.n) > 1000, `only ${uses.n} tool uses`);
    assert.deepEqual(g.select(`SELECT ?g ?b WHERE { GRAPH ?g { ?b a weave:ToolUseBlock ; weave:toolUseId ?id
      FILTER NOT EXISTS { ?t a weave:ToolCall ; weave:toolRequest ?b } } }`), []);
    // (An Unresolved call standing for a child's lost launch is no tool call of the session.)
    assert.deepEqual(g.select(`SELECT ?g ?t WHERE { GRAPH ?g { ?t a weave:ToolCall
      FILTER NOT EXISTS { ?t weave:toolResponse ?r } FILTER NOT EXISTS { ?t a weave:Unresolved } } }`), []);
    assert.deepEqual(g.select(`SELECT ?g ?b WHERE { GRAPH ?g { ?e weave:hasContentBlock ?b . ?b a weave:ToolResultBlock ; weave:toolUseId ?id
      FILTER NOT EXISTS { ?t weave:toolResponse ?b } } }`), []);
    // An unanswered use ends at an Unresolved result, linked as unresolved and nothing else.
    assert.deepEqual(g.select(`SELECT ?t ?ev WHERE { GRAPH ?g { ?t weave:toolResponse ?u ~ ?r {| weave:evidence ?ev |} . ?u a weave:Unresolved
      FILTER(?ev != weave:unresolved) } }`), []);
  });

  test('every child stream is started by a call, or by an explicit Unresolved one, or produces a compaction summary', () => {
    const children = g.select(`SELECT ?g ?s WHERE { GRAPH ?g { ?s a weave:Stream ; weave:streamRole "child" } }`);
    assert.equal(children.length, sessions.reduce((n, s) => n + s.subagents.length, 0));
    assert.deepEqual(g.select(`SELECT ?g ?s WHERE { GRAPH ?g { ?s a weave:Stream ; weave:streamRole "child"
      FILTER NOT EXISTS { ?c weave:starts ?s } FILTER NOT EXISTS { ?s weave:produces ?summary } } }`), []);
    // A child whose agentId a launch result of its session names is joined exactly (plain scan).
    const named = sessions.flatMap((session) => {
      const ids = launchedAgentIds(session);
      return session.subagents.filter((t) => t.agentId && ids.has(t.agentId)).map((t) => `${short(sessionGraphIri(SOUL, session.sessionId))} ${t.agentId}`);
    });
    const exact = new Set(g.select(`SELECT ?g ?name WHERE { GRAPH ?g { ?c weave:starts ?s ~ ?r {| weave:evidence weave:exact_unique |} . ?s weave:streamName ?name } }`)
      .map((row) => `${row.g} ${row.name}`));
    assert.ok(named.length > 20, `only ${named.length} children named by a launch result`);
    assert.deepEqual(named.filter((child) => !exact.has(child)), []);
  });

  test('each compaction summariser produces the summary of its session, exactly (its text is in it)', () => {
    const summarisers = sessions.flatMap((session) => session.subagents.filter((t) => t.agentId?.startsWith('acompact-'))
      .map((t) => `${short(sessionGraphIri(SOUL, session.sessionId))} ${t.agentId}`));
    // As many as the corpus has summariser files, found by name in a plain walk of its folders.
    const files = readdirSync(CORPUS, { recursive: true, encoding: 'utf8' }).filter((p) => /(^|\/)agent-acompact-[^/]*\.jsonl$/.test(p));
    assert.ok(files.length > 0);
    assert.equal(summarisers.length, files.length);
    const rows = g.select(`SELECT ?g ?name ?ev WHERE { GRAPH ?g { ?s weave:produces ?o ~ ?r {| weave:evidence ?ev |} .
      ?s weave:streamName ?name . ?o a weave:EpochSummary ; weave:isCompactSummary true } }`);
    assert.deepEqual(rows.map((r) => `${r.g} ${r.name}`).sort(), summarisers.sort());
    assert.deepEqual(new Set(rows.map((r) => r.ev)), new Set(['weave:exact_unique']));
    // No call starts one, and none stands as an orphan child.
    assert.deepEqual(g.select(`SELECT ?s WHERE { GRAPH ?g { ?c weave:starts ?s . ?s weave:streamName ?name FILTER(STRSTARTS(?name, "acompact-")) } }`), []);
  });

  test('every link carries exactly one evidence level', () => {
    assert.deepEqual(g.select(`SELECT ?r (COUNT(?e) AS ?n) WHERE { GRAPH ?g { ?r weave:evidence ?e } } GROUP BY ?r HAVING (COUNT(?e) != 1)`), []);
    // Each reifier names an asserted triple, and each link triple has one (reifier IRIs are per triple).
    assert.deepEqual(g.select(`SELECT ?r WHERE { GRAPH ?g { ?r rdf:reifies ?t
      BIND(SUBJECT(?t) AS ?s) BIND(PREDICATE(?t) AS ?p) BIND(OBJECT(?t) AS ?o) FILTER NOT EXISTS { ?s ?p ?o } } } LIMIT 5`), []);
    const key = (row: Record<string, string>) => `${row.g} ${row.p} ${row.n}`;
    const links = g.select(`SELECT ?g ?p (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } VALUES ?p { ${RELATIONS} } } GROUP BY ?g ?p`).map(key);
    const reified = g.select(`SELECT ?g ?p (COUNT(DISTINCT ?t) AS ?n) WHERE { GRAPH ?g { ?r rdf:reifies ?t } BIND(PREDICATE(?t) AS ?p) VALUES ?p { ${RELATIONS} } } GROUP BY ?g ?p`).map(key);
    assert.ok(links.length > 500);
    assert.deepEqual(reified.sort(), links.sort());
  });

  test('token totals per session equal a plain scan of the last fragment of each message.id', () => {
    const fromGraph = new Map(g.select(`SELECT ?g (COUNT(?call) AS ?calls) (SUM(?in) AS ?input) (SUM(?out) AS ?output) (SUM(?cw) AS ?cacheCreation) (SUM(?cr) AS ?cacheRead)
      WHERE { GRAPH ?g { ?call a weave:LlmCall ; weave:lastFragment ?last FILTER NOT EXISTS { ?call a weave:SyntheticMessage }
        ?last weave:model ?model ; weave:timestamp ?time ; weave:hasUsage ?u
        OPTIONAL { ?u weave:inputTokens ?i0 } OPTIONAL { ?u weave:outputTokens ?o0 }
        OPTIONAL { ?u weave:cacheCreationInputTokens ?w0 } OPTIONAL { ?u weave:cacheReadInputTokens ?r0 } }
        BIND(COALESCE(?i0, 0) AS ?in) BIND(COALESCE(?o0, 0) AS ?out) BIND(COALESCE(?w0, 0) AS ?cw) BIND(COALESCE(?r0, 0) AS ?cr) }
      GROUP BY ?g`).map((row) => [row.g, tokensOf(row)]));
    let compared = 0;
    for (const session of sessions) {
      const expected = zero();
      for (const call of plainScan(session)) add(expected, call.usage);
      const graph = short(sessionGraphIri(SOUL, session.sessionId));
      assert.deepEqual(fromGraph.get(graph) ?? zero(), expected, session.sessionId);
      if (expected.calls) compared++;
    }
    assert.ok(compared > 100, `only ${compared} sessions with calls`);
  });

  test('SPARQL tokens per day per model equal the plain scan exactly', async () => {
    const expected = new Map<string, Tokens>();
    for (const session of sessions)
      for (const call of plainScan(session)) {
        const key = `${call.day} ${call.model}`;
        if (!expected.has(key)) expected.set(key, zero());
        add(expected.get(key)!, call.usage);
      }
    const query = await readFile(new URL('../../queries/tokens-per-day-per-model.rq', import.meta.url), 'utf8');
    const rows = g.select(query);
    const actual = new Map(rows.map((row) => [`${row.day} ${row.model}`, tokensOf(row)]));
    assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
    for (const [key, tokens] of expected) assert.deepEqual(actual.get(key), tokens, key);
    assert.ok(rows.length > 20, `only ${rows.length} day × model rows`);
  });
});
