import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { discoverSessions } from '../../src/acquire/discover.ts';
import { transcriptsOf, type SessionSource } from '../../src/dialect/dialect.ts';
import { mintedAtRandom } from '../../src/dialect/claude-code/ids.ts';
import { sessionGraphIri } from '../../src/rdf/iri.ts';
import { CARD } from '../card/card.ts';
import { corpusStore, releaseCorpusStore } from '../corpus-store.ts';
import { opened, type Ingested } from './helpers.ts';

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
function plainScan(session: SessionSource): PlainCall[] {
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
  const calls: PlainCall[] = [];
  for (const [id, record] of last) {
    const message = record.message as Json;
    if (message.model === '<synthetic>' || typeof message.model !== 'string' || !message.model) continue;
    if (typeof record.timestamp !== 'string' || !record.timestamp || !isObject(message.usage)) continue;
    const request = typeof record.requestId === 'string' && record.requestId ? record.requestId : undefined;
    const key = mintedAtRandom(id) && (!request || mintedAtRandom(request)) ? id : `${session.sessionId}\u0000${id}`;
    calls.push({ key, time: record.timestamp, day: record.timestamp.slice(0, 10), model: message.model, usage: message.usage });
  }
  return calls;
}

interface PlainCall {
  /** The call's identity across sessions: its message id, or (session, id) for a hand-written id. */
  key: string;
  time: string;
  day: string;
  model: string;
  usage: Json;
}

/**
 * Each call once over all sessions. A fork may hold fewer of a call's fragments than the session
 * it copied: each figure is the largest any session's last fragment gives (fragments only grow).
 */
function acrossSessions(sessions: SessionSource[]): PlainCall[] {
  const calls = new Map<string, PlainCall>();
  const larger = (a: unknown, b: unknown) => (typeof a !== 'number' ? b : typeof b !== 'number' ? a : Math.max(a, b));
  for (const session of sessions)
    for (const call of plainScan(session)) {
      const seen = calls.get(call.key);
      if (!seen) {
        calls.set(call.key, call);
        continue;
      }
      const usage: Json = {};
      for (const key of new Set([...Object.keys(seen.usage), ...Object.keys(call.usage)]))
        usage[key] = larger(seen.usage[key], call.usage[key]);
      const time = call.time > seen.time ? call.time : seen.time;
      calls.set(call.key, { key: call.key, time, day: time.slice(0, 10), model: call.model > seen.model ? call.model : seen.model, usage });
    }
  return [...calls.values()];
}

/** Each session's records by plain JSON, file by file, a uuid seen before in the session skipped (the first copy stands). */
function* recordsOf(session: SessionSource): Generator<Json> {
  const seen = new Set<string>();
  for (const source of transcriptsOf(session))
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
      yield record;
    }
}

/** What a plain scan of the transcripts counts, once over all sessions and once per session. */
interface Census {
  messageIds: Set<string>;
  /** Call identities: the API's message id, or (session, id) where the id, or its request id, was written by hand. */
  calls: Set<string>;
  /** The messages the client wrote (model `<synthetic>`): no calls. */
  synthetic: Set<string>;
  callsPerSession: number;
  /** Tool use ids named by a tool_use block or a tool_result block, kept apart the same way. */
  tools: Set<string>;
  toolsPerSession: number;
  toolUseBlocks: Set<string>;
  toolUseBlocksPerSession: number;
}

function census(sessions: SessionSource[]): Census {
  const c: Census = {
    messageIds: new Set(),
    calls: new Set(),
    synthetic: new Set(),
    callsPerSession: 0,
    tools: new Set(),
    toolsPerSession: 0,
    toolUseBlocks: new Set(),
    toolUseBlocksPerSession: 0,
  };
  for (const session of sessions) {
    const apart = (id: string) => (mintedAtRandom(id) ? id : `${session.sessionId}\u0000${id}`);
    const calls = new Set<string>();
    const tools = new Set<string>();
    for (const record of recordsOf(session)) {
      const message = isObject(record.message) ? record.message : {};
      const content = Array.isArray(message.content) ? message.content : [];
      if (record.type === 'assistant') {
        const id = typeof message.id === 'string' && message.id ? message.id : undefined;
        const request = typeof record.requestId === 'string' && record.requestId ? record.requestId : undefined;
        if (id) c.messageIds.add(id);
        // A record that names no message (very old files) is a call of its own; one the client
        // wrote (`<synthetic>`) is none: the glossary's llm.call is a provider attempt.
        if (message.model === '<synthetic>') c.synthetic.add(id ?? `${session.sessionId}\u0000record ${record.uuid}`);
        else if (!id) calls.add(`${session.sessionId}\u0000record ${record.uuid}`);
        else calls.add(mintedAtRandom(id) && (!request || mintedAtRandom(request)) ? id : `${session.sessionId}\u0000${id}`);
        content.forEach((block, order) => {
          if (!isObject(block) || block.type !== 'tool_use') return;
          c.toolUseBlocksPerSession++;
          c.toolUseBlocks.add(`${apart(record.uuid as string)}/${order}`);
          if (typeof block.id === 'string') tools.add(apart(block.id));
        });
      }
      if (record.type === 'user')
        for (const block of content)
          if (isObject(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string') tools.add(apart(block.tool_use_id));
    }
    c.callsPerSession += calls.size;
    c.toolsPerSession += tools.size;
    for (const call of calls) c.calls.add(call);
    for (const tool of tools) c.tools.add(tool);
  }
  return c;
}

/** The agent ids the session's tool results say they launched (toolUseResult.agentId). */
function launchedAgentIds(session: SessionSource): Set<string> {
  const ids = new Set<string>();
  for (const source of transcriptsOf(session))
    for (const line of readFileSync(source.path, 'utf8').split('\n')) {
      if (!line.includes('"agentId"')) continue;
      try {
        const record = JSON.parse(line);
        if (record?.type === 'user' && isObject(record.toolUseResult) && typeof record.toolUseResult.agentId === 'string')
          ids.add(record.toolUseResult.agentId);
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
const RELATIONS = [
  'within',
  'starts',
  'reports',
  'resultOf',
  'follows',
  'summarizes',
  'produces',
  'cancels',
  'endsWith',
  'trigger',
  'fragmentOf',
  'firstFragment',
  'lastFragment',
  'toolRequest',
  'toolResponse',
  'outputCall',
  'labelledBy',
  'recordedIn',
]
  .map((p) => `weave:${p}`)
  .join(' ');

const zero = (): Tokens => ({ calls: 0, input: 0, output: 0, cacheCreation: 0, cacheRead: 0 });
const tokensOf = (row: Record<string, string>): Tokens => ({
  calls: Number(row.calls),
  input: Number(row.input),
  output: Number(row.output),
  cacheCreation: Number(row.cacheCreation),
  cacheRead: Number(row.cacheRead),
});

describe('the conversation model on the corpus', { skip }, () => {
  let g: Ingested;
  let sessions: SessionSource[];
  before(async () => {
    sessions = await discoverSessions([CORPUS]);
    // The run's one corpus store, of soul `local`, read by every reader (none of whose graphs holds the model's classes).
    const corpus = await corpusStore();
    g = await opened(corpus.dir, { soul: 'local', close: () => releaseCorpusStore(corpus) });
  });
  after(() => g?.close());

  test('one node per call, per tool use and per block, however many sessions hold it; the union counts each once', () => {
    const c = census(sessions);
    const figures = (query: string) => g.select(query)[0];
    // The union of the session graphs is a set (src/query/merge.ts): COUNT without DISTINCT counts
    // each call once, the distinct message ids with the hand-written ids that several sessions of
    // the corpus's test data reuse for different calls kept apart. Counted graph by graph, a call
    // copied into a fork counts once per session that holds it.
    const perGraph = (cls: string) => `{ SELECT (COUNT(?x) AS ?perSession) WHERE { GRAPH ?g { ?x a weave:${cls} } } }`;
    assert.deepEqual(
      figures(`SELECT ?calls ?perSession WHERE { { SELECT (COUNT(?c) AS ?calls) WHERE { ?c a weave:LlmCall } } ${perGraph('LlmCall')} }`),
      {
        calls: String(c.calls.size),
        perSession: String(c.callsPerSession),
      },
    );
    assert.ok(c.calls.size - c.messageIds.size < 20, `${c.calls.size} calls for ${c.messageIds.size} message ids`);
    // The client's own messages keep their class, and are no call.
    assert.deepEqual(
      figures(
        `SELECT (COUNT(?m) AS ?synthetic) (SUM(IF(EXISTS { ?m a weave:LlmCall }, 1, 0)) AS ?alsoCalls) WHERE { ?m a weave:SyntheticMessage }`,
      ),
      { synthetic: String(c.synthetic.size), alsoCalls: '0' },
    );
    assert.deepEqual(
      figures(`SELECT ?tools ?perSession WHERE { { SELECT (COUNT(?t) AS ?tools) WHERE { ?t a weave:ToolCall } } ${perGraph('ToolCall')} }`),
      {
        tools: String(c.tools.size),
        perSession: String(c.toolsPerSession),
      },
    );
    assert.deepEqual(
      figures(
        `SELECT ?blocks ?perSession WHERE { { SELECT (COUNT(?b) AS ?blocks) WHERE { ?b a weave:ToolUseBlock } } ${perGraph('ToolUseBlock')} }`,
      ),
      { blocks: String(c.toolUseBlocks.size), perSession: String(c.toolUseBlocksPerSession) },
    );
    assert.ok(c.callsPerSession > c.calls.size && c.toolUseBlocksPerSession > c.toolUseBlocks.size, 'the corpus holds copied records');
  });

  test("the card's diagram: every statement holds and nothing contradicts it; one role per turn (9,698)", () => {
    const figure = (query: string) => Number(g.select(query)[0].n);
    assert.deepEqual(
      CARD.filter((c) => figure(c.breaks) !== 0).map((c) => c.statement),
      [],
    );
    const turns = figure(CARD[0].holds);
    assert.equal(turns, 9698);
    assert.equal(figure(CARD.find((c) => c.statement.startsWith('weave:role'))!.holds), turns);
    // The glossary's agent.call: every Agent, Task, Skill or Workflow use (53 on the corpus), joined to a child or not.
    assert.equal(figure('SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ?x a weave:AgentCall }'), 53);
    assert.equal(
      figure(`SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ?b a weave:ToolUseBlock ; weave:toolName ?name ; weave:toolUseId ?id
        FILTER(?name IN ("Agent", "Task", "Skill", "Workflow")) ?x weave:toolRequest ?b }`),
      53,
    );
  });

  test('no node carries two roles or two timestamps, and no placeholder passes for what it stands for', () => {
    assert.deepEqual(g.select(`SELECT ?t WHERE { ?t a weave:UserTurn, weave:AssistantTurn }`), []);
    assert.deepEqual(g.select(`SELECT DISTINCT ?e WHERE { ?e weave:timestamp ?a, ?b FILTER(?a != ?b) }`), []);
    assert.deepEqual(g.select(`SELECT ?u ?c WHERE { ?u a weave:Unresolved ; a ?c FILTER(?c != weave:Unresolved) }`), []);
  });

  test('a run for every loop: at most 1% of calls outside one, and each Unresolved run holds no call', () => {
    const [all] = g.select(`SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?c a weave:LlmCall }`);
    const outside = g.select(`SELECT DISTINCT ?c WHERE { GRAPH ?g { ?c a weave:LlmCall ; weave:within ?r . ?r a weave:Unresolved } }`);
    assert.ok(outside.length <= Number(all.n) / 100, `${outside.length} of ${all.n} calls outside a run`);
    assert.deepEqual(outside, []);
    // What the rules found beyond prompt ids and opening records, each with its evidence.
    const rules = g.select(
      `SELECT DISTINCT ?rule ?ev WHERE { GRAPH ?g { ?r weave:runRule ?rule ~ ?x {| weave:evidence ?ev |} } } ORDER BY ?rule`,
    );
    assert.deepEqual(
      rules.map((r) => `${r.rule} ${r.ev}`),
      [
        'weave:afterCompaction weave:strong_inference',
        'weave:byOpeningRecord weave:strong_inference',
        'weave:byPromptId weave:exact_unique',
        'weave:fromChainRoot weave:strong_inference',
        'weave:fromElsewhere weave:strong_inference',
      ],
    );
  });

  test('every session has its conversation and its segments: one open window, each talk in one', () => {
    const graphs = sessions.map((s) => g.short(sessionGraphIri('local', s.sessionId))).sort();
    const rows = (query: string) =>
      g
        .select(query)
        .map((r) => r.g)
        .sort();
    assert.deepEqual(
      rows(`SELECT ?g WHERE { GRAPH ?g { ?s a weave:Session ; weave:inConversation ?c . ?c a weave:Conversation } }`),
      graphs,
    );
    assert.deepEqual(
      rows(`SELECT ?g WHERE { GRAPH ?g { ?s a weave:Segment ; weave:segmentState "open" ; weave:segmentPolicy "v1+idle=10m0s" } }`),
      graphs,
    );
    assert.deepEqual(g.select(`SELECT ?t WHERE { GRAPH ?g { ?t a weave:Talk FILTER NOT EXISTS { ?t weave:inSegment ?s } } }`), []);
    assert.deepEqual(g.select(`SELECT ?t WHERE { GRAPH ?g { ?t weave:inSegment ?a, ?b FILTER(?a != ?b) } }`), []);
  });

  test('every tool use is joined to its result or ends at an explicit Unresolved result', () => {
    const [uses] = g.select(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?b a weave:ToolUseBlock ; weave:toolUseId ?id } }`);
    assert.ok(Number(uses.n) > 1000, `only ${uses.n} tool uses`);
    assert.deepEqual(
      g.select(`SELECT ?g ?b WHERE { GRAPH ?g { ?b a weave:ToolUseBlock ; weave:toolUseId ?id
      FILTER NOT EXISTS { ?t a weave:ToolCall ; weave:toolRequest ?b } } }`),
      [],
    );
    // A session holding only the use of a tool call other sessions share states no placeholder
    // result on it; it says, unasserted, that its records leave the result open. (MINUS, as
    // FILTER NOT EXISTS has Oxigraph scan every reifier for each call: 15 s on the corpus.)
    assert.deepEqual(
      g.select(`SELECT ?g ?t WHERE { GRAPH ?g { { ?t a weave:ToolCall FILTER NOT EXISTS { ?t weave:toolResponse ?r } }
        MINUS { ?gap weave:evidence weave:unresolved ; rdf:reifies <<( ?t weave:toolResponse ?u )>> } } }`),
      [],
    );
    // No tool call has a placeholder beside a real request or response.
    assert.deepEqual(
      g.select(`SELECT DISTINCT ?t WHERE { VALUES ?p { weave:toolRequest weave:toolResponse }
        ?t ?p ?u . ?u a weave:Unresolved . ?t ?p ?real FILTER NOT EXISTS { ?real a weave:Unresolved } }`),
      [],
    );
    assert.deepEqual(
      g.select(`SELECT ?g ?b WHERE { GRAPH ?g { ?e weave:hasContentBlock ?b . ?b a weave:ToolResultBlock ; weave:toolUseId ?id
      FILTER NOT EXISTS { ?t weave:toolResponse ?b } } }`),
      [],
    );
    // An unanswered use ends at an Unresolved result, linked as unresolved and nothing else.
    assert.deepEqual(
      g.select(`SELECT ?t ?ev WHERE { GRAPH ?g { ?t weave:toolResponse ?u ~ ?r {| weave:evidence ?ev |} . ?u a weave:Unresolved
      FILTER(?ev != weave:unresolved) } }`),
      [],
    );
  });

  test('every child stream is started by a call, or by an explicit Unresolved one, or produces a compaction summary', () => {
    const children = g.select(`SELECT ?g ?s WHERE { GRAPH ?g { ?s a weave:Stream ; weave:streamRole "child" } }`);
    assert.equal(
      children.length,
      sessions.reduce((n, s) => n + s.subagents.length, 0),
    );
    assert.deepEqual(
      g.select(`SELECT ?g ?s WHERE { GRAPH ?g { ?s a weave:Stream ; weave:streamRole "child"
      FILTER NOT EXISTS { ?c weave:starts ?s } FILTER NOT EXISTS { ?s weave:produces ?summary } } }`),
      [],
    );
    // A child whose agentId a launch result of its session names is joined exactly (plain scan).
    const named = sessions.flatMap((session) => {
      const ids = launchedAgentIds(session);
      return session.subagents
        .filter((t) => t.agentId && ids.has(t.agentId))
        .map((t) => `${g.short(sessionGraphIri('local', session.sessionId))} ${t.agentId}`);
    });
    const exact = new Set(
      g
        .select(
          `SELECT ?g ?name WHERE { GRAPH ?g { ?c weave:starts ?s ~ ?r {| weave:evidence weave:exact_unique |} . ?s weave:streamName ?name } }`,
        )
        .map((row) => `${row.g} ${row.name}`),
    );
    assert.ok(named.length > 20, `only ${named.length} children named by a launch result`);
    assert.deepEqual(
      named.filter((child) => !exact.has(child)),
      [],
    );
  });

  test('each compaction summariser produces the summary of its session, exactly (its text is in it)', () => {
    const summarisers = sessions.flatMap((session) =>
      session.subagents
        .filter((t) => t.agentId?.startsWith('acompact-'))
        .map((t) => `${g.short(sessionGraphIri('local', session.sessionId))} ${t.agentId}`),
    );
    // As many as the corpus has summariser files, found by name in a plain walk of its folders.
    const files = readdirSync(CORPUS, { recursive: true, encoding: 'utf8' }).filter((p) => /(^|\/)agent-acompact-[^/]*\.jsonl$/.test(p));
    assert.ok(files.length > 0);
    assert.equal(summarisers.length, files.length);
    const rows = g.select(`SELECT ?g ?name ?ev WHERE { GRAPH ?g { ?s weave:produces ?o ~ ?r {| weave:evidence ?ev |} .
      ?s weave:streamName ?name . ?o a weave:EpochSummary ; weave:isCompactSummary true } }`);
    assert.deepEqual(rows.map((r) => `${r.g} ${r.name}`).sort(), summarisers.sort());
    assert.deepEqual(new Set(rows.map((r) => r.ev)), new Set(['weave:exact_unique']));
    // No call starts one, and none stands as an orphan child.
    assert.deepEqual(
      g.select(`SELECT ?s WHERE { GRAPH ?g { ?c weave:starts ?s . ?s weave:streamName ?name FILTER(STRSTARTS(?name, "acompact-")) } }`),
      [],
    );
  });

  test('every link carries exactly one evidence level', () => {
    assert.deepEqual(
      g.select(`SELECT ?r (COUNT(?e) AS ?n) WHERE { GRAPH ?g { ?r weave:evidence ?e } } GROUP BY ?r HAVING (COUNT(?e) != 1)`),
      [],
    );
    // Each reifier names an asserted triple, and each link triple has one (reifier IRIs are per
    // triple); only the gaps on shared nodes are unasserted, all unresolved, all to a placeholder.
    // A reader's claims are unasserted by design, and not the model's.
    assert.deepEqual(
      g.select(`SELECT ?r WHERE { GRAPH ?g { ?r rdf:reifies ?t FILTER NOT EXISTS { ?r a weave:Claim }
      BIND(SUBJECT(?t) AS ?s) BIND(PREDICATE(?t) AS ?p) BIND(OBJECT(?t) AS ?o) FILTER NOT EXISTS { ?s ?p ?o }
      FILTER NOT EXISTS { ?r weave:evidence weave:unresolved . ?o a weave:Unresolved } } } LIMIT 5`),
      [],
    );
    const key = (row: Record<string, string>) => `${row.g} ${row.p} ${row.n}`;
    const links = g
      .select(`SELECT ?g ?p (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } VALUES ?p { ${RELATIONS} } } GROUP BY ?g ?p`)
      .map(key);
    const reified = g
      .select(
        `SELECT ?g ?p (COUNT(DISTINCT ?t) AS ?n) WHERE { GRAPH ?g { ?r rdf:reifies ?t } BIND(PREDICATE(?t) AS ?p) VALUES ?p { ${RELATIONS} }
          BIND(SUBJECT(?t) AS ?s) BIND(OBJECT(?t) AS ?o) FILTER EXISTS { GRAPH ?g { ?s ?p ?o } } } GROUP BY ?g ?p`,
      )
      .map(key);
    assert.ok(links.length > 500);
    assert.deepEqual(reified.sort(), links.sort());
  });

  test('token totals per session equal a plain scan of the last fragment of each message.id', () => {
    const fromGraph = new Map(
      g
        .select(`SELECT ?g (COUNT(?call) AS ?calls) (SUM(?in) AS ?input) (SUM(?out) AS ?output) (SUM(?cw) AS ?cacheCreation) (SUM(?cr) AS ?cacheRead)
      WHERE { GRAPH ?g { ?call a weave:LlmCall ; weave:lastFragment ?last FILTER NOT EXISTS { ?call a weave:SyntheticMessage }
        ?last weave:model ?model ; weave:timestamp ?time ; weave:hasUsage ?u
        OPTIONAL { ?u weave:inputTokens ?i0 } OPTIONAL { ?u weave:outputTokens ?o0 }
        OPTIONAL { ?u weave:cacheCreationInputTokens ?w0 } OPTIONAL { ?u weave:cacheReadInputTokens ?r0 } }
        BIND(COALESCE(?i0, 0) AS ?in) BIND(COALESCE(?o0, 0) AS ?out) BIND(COALESCE(?w0, 0) AS ?cw) BIND(COALESCE(?r0, 0) AS ?cr) }
      GROUP BY ?g`)
        .map((row) => [row.g, tokensOf(row)]),
    );
    let compared = 0;
    for (const session of sessions) {
      const expected = zero();
      for (const call of plainScan(session)) add(expected, call.usage);
      const graph = g.short(sessionGraphIri('local', session.sessionId));
      assert.deepEqual(fromGraph.get(graph) ?? zero(), expected, session.sessionId);
      if (expected.calls) compared++;
    }
    assert.ok(compared > 100, `only ${compared} sessions with calls`);
  });

  test('SPARQL tokens per day per model equal the plain scan exactly, each call counted once across sessions', async () => {
    const expected = new Map<string, Tokens>();
    for (const call of acrossSessions(sessions)) {
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
