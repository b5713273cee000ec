import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fixture, ingested, lines, type Ingested } from './helpers.ts';

/**
 * One fixture per rule of the conversation model, with the figures worked out by hand from the
 * transcript (line numbers below are the fixture file's). Each link is checked whole: every row
 * the graph holds, not a sample of them.
 */

const within = `SELECT ?n ?p ?ev WHERE { ?n weave:within ?p ~ ?r {| weave:evidence ?ev |} }`;
const link = (p: string) => `SELECT ?s ?o ?ev WHERE { ?s ${p === 'a' ? 'a' : `weave:${p}`} ?o ~ ?r {| weave:evidence ?ev |} }`;
const ofClass = (c: string) => `SELECT ?n WHERE { ?n a weave:${c} }`;
const count = (g: Ingested, query: string) => g.select(query).length;
/** Where each run came from: its rule, with the rule's evidence. */
const rules = `SELECT ?s ?o ?ev WHERE { ?s weave:runRule ?o ~ ?r {| weave:evidence ?ev |} }`;
/** The windows of a session, in order, and the talks in each. */
const segments = `SELECT ?s ?state ?line ?from ?until ?policy WHERE { ?s a weave:Segment ; weave:segmentState ?state ; weave:firstLine ?line ;
  weave:segmentPolicy ?policy OPTIONAL { ?s weave:activeFrom ?from } OPTIONAL { ?s weave:activeUntil ?until } }`;

/** Tests of one fixture against one store, opened once. */
function withFixture(name: string, body: (g: () => Ingested) => void) {
  describe(name, () => {
    let g: Ingested;
    before(async () => {
      g = await ingested([fixture(name)]);
    });
    after(() => g.close());
    body(() => g);
  });
}

/** The containment of a session's skeleton: its streams, their first epochs, and the talks, runs and placeholders in them. */
const spine = (S: string, streams: string[]) => [
  ...streams.map((s) => `Stream/${S}/${s} | Session/${S} | weave:exact_unique`),
  ...streams.map((s) => `Epoch/${S}/${s}/start | Stream/${S}/${s} | weave:exact_unique`),
];

withFixture('run-through-attachments', (g) => {
  const S = '10000000-0000-4000-8000-000000000001';
  const turn = (n: string) => `Turn/${S.slice(0, 24)}00000000a0${n}`;
  const event = (n: string) => `Event/${S.slice(0, 24)}00000000a0${n}`;
  const block = (n: string) => `ContentBlock/${S.slice(0, 24)}00000000a0${n}/0`;
  const p = (n: number) => `p0000000-0000-4000-8000-00000000000${n}`;
  const run1 = `Run/${S}/main/${p(1)}`;
  const run2 = `Run/${S}/main/${p(2)}`;
  const talk = (n: number) => `Talk/${S}/main/${p(n)}`;
  const orphan = `Unresolved/${S}/run/main/start`;
  const call = (n: number) => `LlmCall/${S}/msg_shop_0${n}`;

  test('records reach their run through attachments; the ones before the first prompt reach none', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main']),
        `${talk(1)} | Epoch/${S}/main/start | weave:exact_unique`,
        `${talk(2)} | Epoch/${S}/main/start | weave:exact_unique`,
        `${run1} | ${talk(1)} | weave:exact_unique`,
        `${run2} | ${talk(2)} | weave:exact_unique`,
        `${orphan} | Epoch/${S}/main/start | weave:exact_unique`,
        `Event/${S}/L1 | ${orphan} | weave:unresolved`, // permission-mode: no parent at all
        `${event('02')} | ${orphan} | weave:unresolved`, // SessionStart hook: parentUuid null, and no response below it
        `${turn('03')} | ${run1} | weave:exact_unique`, // carries the promptId
        `${event('04')} | ${run1} | weave:strong_inference`, // attachment → prompt
        `${event('08')} | ${run1} | weave:strong_inference`, // hook after a tool result
        `${event('10')} | ${run1} | weave:strong_inference`, // turn_duration
        `${event('11')} | ${run1} | weave:strong_inference`, // queued prompt joins the running loop
        `${turn('12')} | ${run2} | weave:exact_unique`, // line 13
        `${call(1)} | ${run1} | weave:strong_inference`, // assistant → attachment → prompt
        `${call(2)} | ${run1} | weave:strong_inference`, // → hook → tool result → run
        `${call(3)} | ${run2} | weave:strong_inference`,
        `${block('05')} | ${call(1)} | weave:exact_unique`, // thinking
        `${block('09')} | ${call(2)} | weave:exact_unique`,
        `${block('13')} | ${call(3)} | weave:exact_unique`,
        `ToolCall/${S}/toolu_shop_read | ${call(1)} | weave:exact_unique`,
      ].sort(),
    );
    // Two runs; the placeholder standing for the runless records is no Run.
    assert.deepEqual(lines(g().select(ofClass('Run')), 'n'), [run1, run2]);
    assert.deepEqual(lines(g().select(rules), 's', 'o', 'ev'), [
      `${run1} | weave:byPromptId | weave:exact_unique`,
      `${run2} | weave:byPromptId | weave:exact_unique`,
    ]);
  });

  test('two talks, each opened by typed input: one inferred (no origin), one stated (origin human)', () => {
    assert.deepEqual(lines(g().select(link('trigger')), 's', 'o', 'ev'), [
      `${run1} | weave:external | weave:strong_inference`,
      `${run2} | weave:external | weave:exact_unique`,
    ]);
    assert.deepEqual(lines(g().select(link('labelledBy')), 's', 'o'), [`${talk(1)} | ${turn('03')}`, `${talk(2)} | ${turn('12')}`]);
  });

  test('step kinds', () => {
    assert.deepEqual(lines(g().select(ofClass('ExternalMessage')), 'n'), [turn('03'), event('11'), turn('12')].sort());
    assert.deepEqual(lines(g().select(ofClass('ContextInjection')), 'n'), [event('02'), event('04'), event('08')].sort());
    assert.deepEqual(lines(g().select(ofClass('TurnDuration')), 'n'), [event('10')]);
    assert.deepEqual(lines(g().select(ofClass('PermissionDecision')), 'n'), [`Event/${S}/L1`]); // line 12 repeats the mode
    assert.deepEqual(lines(g().select(ofClass('Thinking')), 'n'), [block('05')]);
  });

  test('a call is its fragments in line order; the tool joins by id', () => {
    assert.deepEqual(
      lines(
        g().select(`SELECT ?c ?n ?first ?last WHERE { ?c weave:fragmentCount ?n ; weave:firstFragment ?first ; weave:lastFragment ?last }`),
        'c',
        'n',
        'first',
        'last',
      ),
      [
        `${call(1)} | 2 | ${turn('05')} | ${turn('06')}`,
        `${call(2)} | 1 | ${turn('09')} | ${turn('09')}`,
        `${call(3)} | 1 | ${turn('13')} | ${turn('13')}`,
      ],
    );
    assert.deepEqual(lines(g().select(link('resultOf')), 's', 'o', 'ev'), [
      `${turn('07')} | ToolCall/${S}/toolu_shop_read | weave:exact_unique`,
    ]);
  });

  test('one conversation, one open window: the session never stood idle for ten minutes', () => {
    assert.deepEqual(
      lines(g().select(`SELECT ?s ?c ?ev WHERE { ?s weave:inConversation ?c ~ ?r {| weave:evidence ?ev |} }`), 's', 'c', 'ev'),
      [`Segment/${S}/1 | Conversation/${S} | weave:exact_unique`, `Session/${S} | Conversation/${S} | weave:exact_unique`],
    );
    // Line 1 states no time: the window's times are its first and last timed records (lines 2 and 14).
    assert.deepEqual(lines(g().select(segments), 's', 'state', 'line', 'from', 'until', 'policy'), [
      `Segment/${S}/1 | open | 1 | 2026-05-04T09:00:00Z | 2026-05-04T09:01:04Z | v1+idle=10m0s`,
    ]);
    assert.deepEqual(lines(g().select(link('inSegment')), 's', 'o', 'ev'), [
      `${talk(1)} | Segment/${S}/1 | weave:exact_unique`,
      `${talk(2)} | Segment/${S}/1 | weave:exact_unique`,
    ]);
  });
});

withFixture('split-call', (g) => {
  const S = '20000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000b0${n}`;
  const run = (n: string) => `Run/${S}/main/${id(n)}`;
  const talk = (n: string) => `Talk/${S}/main/${id(n)}`;
  const call = (n: number) => `LlmCall/${S}/msg_api_0${n}`;
  // The synthetic response's message id is a random UUID, so it is named by it alone; the client
  // wrote it, so it is a SyntheticMessage and no LlmCall (the glossary's llm.call is a provider attempt).
  const synthetic = 'SyntheticMessage/6b1c0f3e-5d1a-4e6b-9f55-0d3c2b1a0e99';

  test('every step in its place: calls in their run, blocks and tools in their call', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main']),
        `${talk('01')} | Epoch/${S}/main/start | weave:exact_unique`,
        `${talk('11')} | Epoch/${S}/main/start | weave:exact_unique`,
        `${run('01')} | ${talk('01')} | weave:exact_unique`,
        `${run('11')} | ${talk('11')} | weave:exact_unique`,
        `Turn/${id('01')} | ${run('01')} | weave:exact_unique`,
        `Turn/${id('11')} | ${run('11')} | weave:exact_unique`,
        `Event/${id('12')} | ${run('11')} | weave:strong_inference`, // api_error
        `${call(1)} | ${run('01')} | weave:strong_inference`,
        `${call(2)} | ${run('01')} | weave:strong_inference`,
        `${call(3)} | ${run('01')} | weave:strong_inference`,
        `${synthetic} | ${run('11')} | weave:strong_inference`,
        `ContentBlock/${id('02')}/0 | ${call(1)} | weave:exact_unique`, // thinking
        `ContentBlock/${id('07')}/0 | ${call(2)} | weave:exact_unique`, // redacted thinking
        `ContentBlock/${id('10')}/0 | ${call(3)} | weave:exact_unique`, // text; the synthetic one's text is no step
        `ToolCall/${S}/toolu_api_edit | ${call(1)} | weave:exact_unique`,
        `ToolCall/${S}/toolu_api_fetch | ${call(2)} | weave:exact_unique`,
        `ToolCall/${S}/toolu_api_grep | ${call(1)} | weave:exact_unique`,
      ].sort(),
    );
  });

  test('fragments split by their own tool results stay one call, usage from the last fragment', () => {
    assert.deepEqual(
      lines(
        g().select(`SELECT ?c ?n ?last ?out ?final WHERE { ?c a weave:LlmCall ; weave:fragmentCount ?n ; weave:lastFragment ?last .
        OPTIONAL { ?last weave:hasUsage/weave:outputTokens ?out } OPTIONAL { ?c weave:usageFinal ?final } }`),
        'c',
        'n',
        'last',
        'out',
        'final',
      ),
      [
        `${call(1)} | 3 | Turn/${id('05')} | 180 | true`,
        `${call(2)} | 2 | Turn/${id('08')} | 60 | true`,
        `${call(3)} | 1 | Turn/${id('10')} | 25 | true`,
      ].sort(),
    );
  });

  test('tokens per day per model count each call once and leave the synthetic one out', async () => {
    const query = await readFile(new URL('../../queries/tokens-per-day-per-model.rq', import.meta.url), 'utf8');
    // Summing every fragment would give 670 input and 327 output tokens.
    assert.deepEqual(g().select(query), [
      {
        day: '2026-05-05',
        model: 'claude-sonnet-4-5-20250929',
        calls: '3',
        input: '350',
        output: '265',
        cacheCreation: '0',
        cacheRead: '15700',
      },
    ]);
  });

  test('the synthetic response is marked and is not agent output', () => {
    assert.deepEqual(lines(g().select(ofClass('SyntheticMessage')), 'n'), [synthetic]);
    assert.deepEqual(lines(g().select(ofClass('LlmCall')), 'n'), [call(1), call(2), call(3)]);
    // Still grouped like a call: one fragment, the record the client wrote.
    assert.deepEqual(
      lines(
        g().select(`SELECT ?n ?k ?last WHERE { ?n a weave:SyntheticMessage ; weave:fragmentCount ?k ; weave:lastFragment ?last }`),
        'n',
        'k',
        'last',
      ),
      [`${synthetic} | 1 | Turn/${id('13')}`],
    );
    assert.deepEqual(lines(g().select(ofClass('AssistantMessage')), 'n'), [`ContentBlock/${id('10')}/0`]);
    assert.deepEqual(lines(g().select(ofClass('ApiError')), 'n'), [`Event/${id('12')}`]);
  });

  test('thinking, redacted or not, and the tool durations the runtime measured', () => {
    assert.deepEqual(lines(g().select(ofClass('Thinking')), 'n'), [`ContentBlock/${id('02')}/0`, `ContentBlock/${id('07')}/0`]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?ms WHERE { ?t weave:runtimeDurationMs ?ms }`), 't', 'ms'), [
      `ToolCall/${S}/toolu_api_fetch | 812`,
    ]);
  });

  test('without promptIds each typed prompt opens a run', () => {
    assert.deepEqual(lines(g().select(link('trigger')), 's', 'o', 'ev'), [
      `${run('01')} | weave:external | weave:strong_inference`,
      `${run('11')} | weave:external | weave:strong_inference`,
    ]);
    assert.deepEqual(lines(g().select(rules), 's', 'o', 'ev'), [
      `${run('01')} | weave:byOpeningRecord | weave:strong_inference`,
      `${run('11')} | weave:byOpeningRecord | weave:strong_inference`,
    ]);
    assert.equal(count(g(), ofClass('Talk')), 2);
  });
});

withFixture('tool-joins', (g) => {
  const S = '30000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000c0${n}`;
  const run = `Run/${S}/main/${id('01')}`;
  const tool = (name: string) => `ToolCall/${S}/toolu_tools_${name}`;

  test('two results for one id are both linked, ambiguous; a use without result and a result without use end at Unresolved nodes', () => {
    assert.deepEqual(lines(g().select(link('toolResponse')), 's', 'o', 'ev'), [
      `${tool('fmt')} | Unresolved/${S}/tool_result/toolu_tools_fmt | weave:unresolved`,
      `${tool('ghost')} | ContentBlock/${id('06')}/0 | weave:exact_unique`,
      `${tool('lint')} | ContentBlock/${id('04')}/0 | weave:exact_ambiguous`,
      `${tool('lint')} | ContentBlock/${id('05')}/0 | weave:exact_ambiguous`,
    ]);
    assert.deepEqual(lines(g().select(link('toolRequest')), 's', 'o', 'ev'), [
      `${tool('fmt')} | ContentBlock/${id('03')}/0 | weave:exact_unique`,
      `${tool('ghost')} | Unresolved/${S}/tool_use/toolu_tools_ghost | weave:unresolved`,
      `${tool('lint')} | ContentBlock/${id('02')}/0 | weave:exact_unique`,
    ]);
    // The answer to nothing sits in the run its record walked to.
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main']),
        `Talk/${S}/main/${id('01')} | Epoch/${S}/main/start | weave:exact_unique`,
        `${run} | Talk/${S}/main/${id('01')} | weave:exact_unique`,
        `Turn/${id('01')} | ${run} | weave:exact_unique`,
        `LlmCall/${S}/msg_tools_01 | ${run} | weave:strong_inference`,
        `LlmCall/${S}/msg_tools_02 | ${run} | weave:strong_inference`,
        `ContentBlock/${id('07')}/0 | LlmCall/${S}/msg_tools_02 | weave:exact_unique`,
        `${tool('fmt')} | LlmCall/${S}/msg_tools_01 | weave:exact_unique`,
        `${tool('ghost')} | ${run} | weave:strong_inference`,
        `${tool('lint')} | LlmCall/${S}/msg_tools_01 | weave:exact_unique`,
      ].sort(),
    );
    assert.deepEqual(lines(g().select(`SELECT ?t ?e WHERE { ?t weave:resultIsError ?e }`), 't', 'e'), [
      `${tool('ghost')} | true`,
      `${tool('lint')} | false`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?i WHERE { ?t weave:interrupted ?i }`), 't', 'i'), [`${tool('lint')} | false`]);
  });

  test('a placeholder is Unresolved and nothing else: no query for blocks or tools meets one', () => {
    assert.deepEqual(lines(g().select(`SELECT ?u ?c WHERE { ?u a weave:Unresolved ; a ?c }`), 'u', 'c'), [
      `Unresolved/${S}/tool_result/toolu_tools_fmt | weave:Unresolved`,
      `Unresolved/${S}/tool_use/toolu_tools_ghost | weave:Unresolved`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?u ?k ?id WHERE { ?u weave:unresolvedKind ?k ; weave:missingId ?id }`), 'u', 'k', 'id'), [
      `Unresolved/${S}/tool_result/toolu_tools_fmt | tool_result | toolu_tools_fmt`,
      `Unresolved/${S}/tool_use/toolu_tools_ghost | tool_use | toolu_tools_ghost`,
    ]);
    // Lines 2 and 3 hold two tool_use blocks; lines 4, 5 and 6 three tool_result blocks.
    assert.equal(count(g(), ofClass('ToolUseBlock')), 2);
    assert.equal(count(g(), ofClass('ToolResultBlock')), 3);
  });
});

withFixture('async-agent', (g) => {
  const S = '40000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000${n}`;
  const q = (n: number) => `q0000000-0000-4000-8000-00000000000${n}`;
  const child = `Stream/${S}/a1b2c3d4e5f607182`;
  const orphan = `Stream/${S}/aorphan000000001`;
  const run = (n: number) => `Run/${S}/main/${q(n)}`;
  const childRun = `Run/${S}/a1b2c3d4e5f607182/${q(1)}`;
  const orphanRun = `Run/${S}/aorphan000000001/${id('f001')}`;
  const talk = `Talk/${S}/main/${q(1)}`;
  const call = (name: string) => `LlmCall/${S}/msg_docs_${name}`;

  test('every step in its place, in the main stream and in each child', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main', 'a1b2c3d4e5f607182', 'aorphan000000001']),
        `${talk} | Epoch/${S}/main/start | weave:exact_unique`,
        `Talk/${S}/a1b2c3d4e5f607182 | Epoch/${S}/a1b2c3d4e5f607182/start | weave:exact_unique`,
        `Talk/${S}/aorphan000000001 | Epoch/${S}/aorphan000000001/start | weave:exact_unique`,
        `${run(1)} | ${talk} | weave:exact_unique`,
        `${run(2)} | ${talk} | weave:strong_inference`, // notified: continues the talk
        `${run(3)} | ${talk} | weave:strong_inference`,
        `${childRun} | Talk/${S}/a1b2c3d4e5f607182 | weave:exact_unique`,
        `${orphanRun} | Talk/${S}/aorphan000000001 | weave:exact_unique`,
        `Turn/${id('d001')} | ${run(1)} | weave:exact_unique`,
        `Turn/${id('d003')} | ${run(1)} | weave:exact_unique`, // launch ack
        `Turn/${id('d007')} | ${run(1)} | weave:exact_unique`, // launch ack
        `Turn/${id('d009')} | ${run(2)} | weave:exact_unique`, // notification
        `Turn/${id('d011')} | ${run(3)} | weave:exact_unique`, // notification
        `Turn/${id('e001')} | ${childRun} | weave:exact_unique`,
        `Turn/${id('f001')} | ${orphanRun} | weave:exact_unique`,
        ...['01', '02', '03', '04'].map((n) => `${call(n)} | ${run(1)} | weave:strong_inference`),
        `${call('05')} | ${run(2)} | weave:strong_inference`,
        `${call('06')} | ${run(3)} | weave:strong_inference`,
        `${call('child_01')} | ${childRun} | weave:strong_inference`,
        `${call('child_02')} | ${childRun} | weave:strong_inference`,
        `${call('orphan_01')} | ${orphanRun} | weave:strong_inference`,
        `ContentBlock/${id('d008')}/0 | ${call('04')} | weave:exact_unique`,
        `ContentBlock/${id('d010')}/0 | ${call('05')} | weave:exact_unique`,
        `ContentBlock/${id('d012')}/0 | ${call('06')} | weave:exact_unique`,
        `ContentBlock/${id('e004')}/0 | ${call('child_02')} | weave:exact_unique`,
        `ContentBlock/${id('f002')}/0 | ${call('orphan_01')} | weave:exact_unique`,
        `ToolCall/${S}/toolu_docs_agent | ${call('01')} | weave:exact_unique`,
        `ToolCall/${S}/toolu_docs_lint | ${call('02')} | weave:exact_unique`,
        `ToolCall/${S}/toolu_docs_lost | ${call('03')} | weave:exact_unique`,
        `ToolCall/${S}/toolu_docs_write | ${call('child_01')} | weave:exact_unique`,
        `AgentOutput/${S}/a1b2c3d4e5f607182 | ${childRun} | weave:strong_inference`,
        `AgentOutput/${S}/aorphan000000001 | ${orphanRun} | weave:strong_inference`,
      ].sort(),
    );
  });

  test('agent.call → launch ack → child stream → agent.output → notification', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_docs_agent | ${child} | weave:exact_unique`, // toolUseResult.agentId and the sidecar agree
      `ToolCall/${S}/toolu_docs_lost | Unresolved/${S}/child_stream/a9999999999999999 | weave:unresolved`, // announced, never written
      `Unresolved/${S}/spawn_of_child/aorphan000000001 | ${orphan} | weave:unresolved`, // nothing launched it
    ]);
    // The placeholder for the missing launch is no agent call.
    assert.deepEqual(lines(g().select(ofClass('AgentCall')), 'n'), [`ToolCall/${S}/toolu_docs_agent`, `ToolCall/${S}/toolu_docs_lost`]);
    assert.deepEqual(lines(g().select(ofClass('AgentLaunchAck')), 'n'), [`Turn/${id('d003')}`, `Turn/${id('d007')}`]);
    assert.deepEqual(lines(g().select(`SELECT ?s ?o ?call WHERE { ?s weave:endsWith ?o . ?o weave:outputCall ?call }`), 's', 'o', 'call'), [
      `${child} | AgentOutput/${S}/a1b2c3d4e5f607182 | ${call('child_02')}`,
      `${orphan} | AgentOutput/${S}/aorphan000000001 | ${call('orphan_01')}`,
    ]);
    assert.deepEqual(
      lines(g().select(`SELECT ?o ?ev WHERE { ?o a weave:AgentOutput ; weave:resultOf ?c ~ ?r {| weave:evidence ?ev |} }`), 'o', 'ev'),
      [`AgentOutput/${S}/a1b2c3d4e5f607182 | weave:exact_unique`, `AgentOutput/${S}/aorphan000000001 | weave:unresolved`],
    );
  });

  test('a notification reports the child or the background task its <task-id> names', () => {
    assert.deepEqual(lines(g().select(link('reports')), 's', 'o', 'ev'), [
      `Turn/${id('d009')} | ToolCall/${S}/toolu_docs_lint | weave:exact_unique`,
      `Turn/${id('d011')} | ${child} | weave:exact_unique`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?b WHERE { ?t weave:backgroundTaskId ?b }`), 't', 'b'), [
      `ToolCall/${S}/toolu_docs_lint | b7c8d9e`,
    ]);
  });

  test('notified runs continue the talk; each child stream is one talk with an unknown trigger', () => {
    assert.deepEqual(
      lines(
        g().select(
          `SELECT ?run ?t ?trig ?ev WHERE { ?run a weave:Run ; weave:within ?t ~ ?r {| weave:evidence ?ev |} ; weave:trigger ?trig }`,
        ),
        'run',
        't',
        'trig',
        'ev',
      ),
      [
        `${childRun} | Talk/${S}/a1b2c3d4e5f607182 | weave:unknown | weave:exact_unique`,
        `${orphanRun} | Talk/${S}/aorphan000000001 | weave:unknown | weave:exact_unique`,
        `${run(1)} | ${talk} | weave:external | weave:exact_unique`,
        `${run(2)} | ${talk} | weave:notification | weave:strong_inference`,
        `${run(3)} | ${talk} | weave:notification | weave:strong_inference`,
      ],
    );
  });

  test("a child's talk joins the window its first record's time falls in", () => {
    assert.deepEqual(
      lines(g().select(link('inSegment')), 's', 'o', 'ev'),
      [
        `${talk} | Segment/${S}/1 | weave:exact_unique`,
        `Talk/${S}/a1b2c3d4e5f607182 | Segment/${S}/1 | weave:strong_inference`,
        `Talk/${S}/aorphan000000001 | Segment/${S}/1 | weave:strong_inference`,
      ].sort(),
    );
  });
});

withFixture('workflow-batch', (g) => {
  const S = '50000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}0000000${n}`;
  const run = `Run/${S}/main/r0000000-0000-4000-8000-000000000001`;
  const talk = `Talk/${S}/main/r0000000-0000-4000-8000-000000000001`;
  const w = (n: number, key: string) => `Run/${S}/w${n}/${id(key)}`;

  test('every step in its place, in the main stream and in each workflow child', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main', 'w1', 'w2']),
        `${talk} | Epoch/${S}/main/start | weave:exact_unique`,
        `Talk/${S}/w1 | Epoch/${S}/w1/start | weave:exact_unique`,
        `Talk/${S}/w2 | Epoch/${S}/w2/start | weave:exact_unique`,
        `${run} | ${talk} | weave:exact_unique`,
        `${w(1, '7b001')} | Talk/${S}/w1 | weave:exact_unique`,
        `${w(2, '7c001')} | Talk/${S}/w2 | weave:exact_unique`,
        `Turn/${id('7a001')} | ${run} | weave:exact_unique`,
        `Turn/${id('7a003')} | ${run} | weave:exact_unique`, // launch ack
        `Turn/${id('7b001')} | ${w(1, '7b001')} | weave:exact_unique`,
        `Turn/${id('7c001')} | ${w(2, '7c001')} | weave:exact_unique`,
        `LlmCall/${S}/msg_rev_01 | ${run} | weave:strong_inference`,
        `LlmCall/${S}/msg_rev_02 | ${run} | weave:strong_inference`,
        `LlmCall/${S}/msg_rev_w1_01 | ${w(1, '7b001')} | weave:strong_inference`,
        `LlmCall/${S}/msg_rev_w2_01 | ${w(2, '7c001')} | weave:strong_inference`,
        `LlmCall/${S}/msg_rev_w2_02 | ${w(2, '7c001')} | weave:strong_inference`,
        `ContentBlock/${id('7a004')}/0 | LlmCall/${S}/msg_rev_02 | weave:exact_unique`,
        `ContentBlock/${id('7b002')}/0 | LlmCall/${S}/msg_rev_w1_01 | weave:exact_unique`,
        `ContentBlock/${id('7c004')}/0 | LlmCall/${S}/msg_rev_w2_02 | weave:exact_unique`,
        `ToolCall/${S}/toolu_rev_wf | LlmCall/${S}/msg_rev_01 | weave:exact_unique`,
        `ToolCall/${S}/toolu_rev_w2_read | LlmCall/${S}/msg_rev_w2_01 | weave:exact_unique`,
        `AgentOutput/${S}/w1 | ${w(1, '7b001')} | weave:strong_inference`,
        `AgentOutput/${S}/w2 | ${w(2, '7c001')} | weave:strong_inference`,
      ].sort(),
    );
  });

  test('a workflow starts its children through the run id and the journal', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_rev_wf | Stream/${S}/w1 | weave:strong_inference`,
      `ToolCall/${S}/toolu_rev_wf | Stream/${S}/w2 | weave:strong_inference`,
      `ToolCall/${S}/toolu_rev_wf | Unresolved/${S}/child_stream/w3 | weave:unresolved`, // journal started it; no file landed
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?n ?b WHERE { ?n weave:batchId ?b }`), 'n', 'b'), [
      `Stream/${S}/w1 | wf_r1`,
      `Stream/${S}/w2 | wf_r1`,
      `ToolCall/${S}/toolu_rev_wf | wf_r1`,
    ]);
    assert.deepEqual(
      lines(g().select(link('a')), 's', 'o', 'ev').filter((l) => l.includes('AgentCall')),
      [`ToolCall/${S}/toolu_rev_wf | weave:AgentCall | weave:strong_inference`],
    );
  });

  test('each child owns its output, with what the journal says it returned', () => {
    assert.deepEqual(lines(g().select(`SELECT ?o ?v WHERE { ?o weave:returnedValue ?v }`), 'o', 'v'), [
      `AgentOutput/${S}/w1 | {"area":"loader","ok":true}`,
      `AgentOutput/${S}/w2 | "no issues"`,
    ]);
    assert.deepEqual(lines(g().select(ofClass('AgentLaunchAck')), 'n'), [`Turn/${id('7a003')}`]);
  });
});

withFixture('compaction-replay', (g) => {
  const S = '60000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000a0${n}`;
  const epoch = (key: string) => `Epoch/${S}/main/${key}`;
  const s = (n: number) => `s0000000-0000-4000-8000-00000000000${n}`;
  const run = (n: number) => `Run/${S}/main/${s(n)}`;
  const talk = (n: number) => `Talk/${S}/main/${s(n)}`;
  // The loop after the second compaction, whose tail never landed: a run the boundary opens.
  const after = `Run/${S}/main/${id('11')}`;
  const call = (n: number) => `LlmCall/${S}/msg_etl_0${n}`;

  test('epochs are cut at boundaries; follows goes back by logicalParentUuid, or to an Unresolved epoch', () => {
    assert.deepEqual(lines(g().select(`SELECT ?e ?line WHERE { ?e a weave:Epoch ; weave:firstLine ?line }`), 'e', 'line'), [
      `${epoch(id('07'))} | 7`,
      `${epoch(id('11'))} | 11`,
      `${epoch('start')} | 1`,
    ]);
    assert.deepEqual(lines(g().select(link('follows')), 's', 'o', 'ev'), [
      `${epoch(id('07'))} | ${epoch('start')} | weave:exact_unique`,
      `${epoch(id('11'))} | Unresolved/${S}/epoch_continuation/${S.slice(0, 24)}00000000ffff | weave:unresolved`,
    ]);
    assert.deepEqual(lines(g().select(link('summarizes')), 's', 'o', 'ev'), [
      `Turn/${id('08')} | Event/${id('07')} | weave:exact_unique`,
      `Turn/${id('12')} | Event/${id('11')} | weave:exact_unique`,
    ]);
  });

  test('replayed records keep their first copy: the rewritten promptId makes no run', () => {
    assert.equal(count(g(), ofClass('ReplayedRecord')), 2);
    assert.deepEqual(lines(g().select(`SELECT ?k WHERE { ?r weave:runKey ?k }`), 'k'), [id('11'), s(1), s(2)]);
  });

  test('a response after a reset reaches its run across the boundary; one after a lost tail is a run of its own, continuing the talk', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        `Stream/${S}/main | Session/${S} | weave:exact_unique`,
        ...['start', id('07'), id('11')].map((k) => `${epoch(k)} | Stream/${S}/main | weave:exact_unique`),
        `${talk(1)} | ${epoch('start')} | weave:exact_unique`,
        `${talk(2)} | ${epoch(id('07'))} | weave:exact_unique`,
        `${run(1)} | ${talk(1)} | weave:exact_unique`,
        `${run(2)} | ${talk(2)} | weave:exact_unique`,
        `${after} | ${talk(2)} | weave:strong_inference`,
        `Turn/${id('01')} | ${run(1)} | weave:exact_unique`,
        `Turn/${id('10')} | ${run(2)} | weave:exact_unique`,
        `Event/${id('07')} | ${epoch(id('07'))} | weave:exact_unique`,
        `Event/${id('11')} | ${epoch(id('11'))} | weave:exact_unique`,
        `Turn/${id('08')} | ${epoch(id('07'))} | weave:exact_unique`,
        `Turn/${id('12')} | ${epoch(id('11'))} | weave:exact_unique`,
        `${call(1)} | ${run(1)} | weave:strong_inference`,
        `${call(2)} | ${run(1)} | weave:strong_inference`,
        `${call(3)} | ${run(1)} | weave:strong_inference`, // across the first reset, by logicalParentUuid
        `${call(4)} | ${after} | weave:strong_inference`,
        `ToolCall/${S}/toolu_etl_prof | ${call(1)} | weave:exact_unique`,
        `ContentBlock/${id('04')}/0 | ${call(2)} | weave:exact_unique`,
        `ContentBlock/${id('09')}/0 | ${call(3)} | weave:exact_unique`,
        `ContentBlock/${id('13')}/0 | ${call(4)} | weave:exact_unique`,
      ].sort(),
    );
    assert.deepEqual(lines(g().select(rules), 's', 'o', 'ev'), [
      `${after} | weave:afterCompaction | weave:strong_inference`,
      `${run(1)} | weave:byPromptId | weave:exact_unique`,
      `${run(2)} | weave:byPromptId | weave:exact_unique`,
    ]);
    assert.deepEqual(
      lines(g().select(link('trigger')), 's', 'o', 'ev').filter((l) => l.startsWith(after)),
      [`${after} | weave:unknown | weave:unresolved`],
    );
  });

  test('twenty-five idle minutes cut the session in two windows; a summary written a second early cuts nothing', () => {
    // Line 4 is at 22:04:20 and line 7 (the boundary) at 22:30:01; lines 5 and 6 are replays, which
    // the model never sees. Line 8's summary is stamped 22:30:00, before its boundary: no gap.
    assert.deepEqual(lines(g().select(segments), 's', 'state', 'line', 'from', 'until'), [
      `Segment/${S}/1 | candidate | 1 | 2026-06-10T22:00:00Z | 2026-06-10T22:04:20Z`,
      `Segment/${S}/2 | open | 7 | 2026-06-10T22:30:01Z | 2026-06-10T22:41:00Z`,
    ]);
    assert.deepEqual(lines(g().select(link('inSegment')), 's', 'o', 'ev'), [
      `${talk(1)} | Segment/${S}/1 | weave:exact_unique`,
      `${talk(2)} | Segment/${S}/2 | weave:exact_unique`,
    ]);
  });
});

withFixture('interrupted-tool', (g) => {
  const S = '70000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000b0${n}`;
  const run = (n: string) => `Run/${S}/main/${id(n)}`;
  const talk = (n: string) => `Talk/${S}/main/${id(n)}`;
  const orphan = `Unresolved/${S}/run/main/start`;
  const call = (n: number) => `LlmCall/${S}/msg_infra_0${n}`;

  test('every step in its place', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main']),
        ...['01', '06', '11', '14'].map((n) => `${talk(n)} | Epoch/${S}/main/start | weave:exact_unique`),
        ...['01', '06', '11', '14'].map((n) => `${run(n)} | ${talk(n)} | weave:exact_unique`),
        `${orphan} | Epoch/${S}/main/start | weave:exact_unique`,
        ...['01', '06', '11', '14'].map((n) => `Turn/${id(n)} | ${run(n)} | weave:exact_unique`),
        `Turn/${id('03')} | ${run('01')} | weave:strong_inference`,
        `Turn/${id('04')} | ${run('01')} | weave:strong_inference`,
        `Turn/${id('08')} | ${run('06')} | weave:strong_inference`,
        `Turn/${id('09')} | ${run('06')} | weave:strong_inference`,
        `Turn/${id('13')} | ${run('11')} | weave:strong_inference`,
        `Turn/${id('15')} | ${run('14')} | weave:strong_inference`,
        `Event/${S}/L1 | ${orphan} | weave:unresolved`,
        `Event/${S}/L11 | ${run('06')} | weave:weak_inference`, // placed by position only
        `${call(1)} | ${run('01')} | weave:strong_inference`,
        `${call(2)} | ${run('06')} | weave:strong_inference`,
        `${call(3)} | ${run('11')} | weave:strong_inference`,
        `ContentBlock/${id('12')}/0 | ${call(3)} | weave:exact_unique`,
        `ToolCall/${S}/toolu_infra_build | ${call(1)} | weave:exact_unique`,
        `ToolCall/${S}/toolu_infra_rm | ${call(2)} | weave:exact_unique`,
      ].sort(),
    );
  });

  test('interruptions and what they cancel', () => {
    assert.deepEqual(lines(g().select(link('cancels')), 's', 'o', 'ev'), [
      `Turn/${id('03')} | ToolCall/${S}/toolu_infra_build | weave:exact_unique`, // toolUseResult.interrupted
      `Turn/${id('04')} | ToolCall/${S}/toolu_infra_build | weave:strong_inference`, // marker after that result
      `Turn/${id('09')} | ToolCall/${S}/toolu_infra_rm | weave:strong_inference`, // marker after a refusal
      `Turn/${id('13')} | ${call(3)} | weave:strong_inference`, // stopped a streaming response
      `Turn/${id('15')} | ${run('14')} | weave:weak_inference`, // follows a prompt: its run, plausibly
    ]);
    assert.equal(count(g(), ofClass('Interrupt')), 5);
    assert.deepEqual(lines(g().select(`SELECT ?t ?i WHERE { ?t weave:interrupted ?i }`), 't', 'i'), [
      `ToolCall/${S}/toolu_infra_build | true`,
    ]);
  });

  test('permission decisions: a mode that changes, and a refused tool use', () => {
    assert.deepEqual(
      lines(
        g().select(`SELECT ?n ?p ?ev WHERE { ?n a weave:PermissionDecision ; weave:within ?p ~ ?r {| weave:evidence ?ev |} }`),
        'n',
        'p',
        'ev',
      ),
      [
        `Event/${S}/L1 | ${orphan} | weave:unresolved`,
        `Event/${S}/L11 | ${run('06')} | weave:weak_inference`,
        `Turn/${id('08')} | ${run('06')} | weave:strong_inference`,
      ],
    );
  });
});

withFixture('legacy-runs', (g) => {
  const S = '80000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000c0${n}`;
  const d = (n: string) => `${S.slice(0, 24)}00000000d0${n}`;
  const run = (n: string) => `Run/${S}/main/${id(n)}`;
  const childRun = `Run/${S}/5e6f7a8b/${d('01')}`;
  const call = (name: string) => `LlmCall/${S}/msg_cli_${name}`;

  test('every step in its place', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main', '5e6f7a8b']),
        `Talk/${S}/main/${id('01')} | Epoch/${S}/main/start | weave:exact_unique`,
        `Talk/${S}/main/${id('07')} | Epoch/${S}/main/start | weave:exact_unique`,
        `Talk/${S}/5e6f7a8b | Epoch/${S}/5e6f7a8b/start | weave:exact_unique`,
        `${run('01')} | Talk/${S}/main/${id('01')} | weave:exact_unique`,
        `${run('07')} | Talk/${S}/main/${id('07')} | weave:exact_unique`,
        `${run('09')} | Talk/${S}/main/${id('07')} | weave:strong_inference`,
        `${childRun} | Talk/${S}/5e6f7a8b | weave:exact_unique`,
        `Turn/${id('01')} | ${run('01')} | weave:exact_unique`,
        `Event/${id('05')} | ${run('01')} | weave:strong_inference`,
        `Turn/${id('06')} | ${run('01')} | weave:strong_inference`,
        `Turn/${id('07')} | ${run('07')} | weave:exact_unique`,
        `Turn/${id('08')} | ${run('07')} | weave:strong_inference`,
        `Turn/${id('09')} | ${run('09')} | weave:exact_unique`,
        `Turn/${d('01')} | ${childRun} | weave:exact_unique`,
        `${call('01')} | ${run('01')} | weave:strong_inference`,
        `${call('02')} | ${run('01')} | weave:strong_inference`,
        `${call('03')} | ${run('09')} | weave:strong_inference`,
        `${call('agent_01')} | ${childRun} | weave:strong_inference`,
        `ContentBlock/${id('04')}/0 | ${call('02')} | weave:exact_unique`,
        `ContentBlock/${id('10')}/0 | ${call('03')} | weave:exact_unique`,
        `ContentBlock/${d('02')}/0 | ${call('agent_01')} | weave:exact_unique`,
        `ToolCall/${S}/toolu_cli_task | ${call('01')} | weave:exact_unique`,
        `AgentOutput/${S}/5e6f7a8b | ${childRun} | weave:strong_inference`,
      ].sort(),
    );
  });

  test('a typed command opens a talk; a notification found by its text continues it', () => {
    assert.deepEqual(
      lines(
        g().select(`SELECT ?run ?t ?trig ?ev WHERE { ?run weave:within ?t ; weave:trigger ?trig ~ ?r {| weave:evidence ?ev |} }`),
        'run',
        't',
        'trig',
        'ev',
      ),
      [
        `${childRun} | Talk/${S}/5e6f7a8b | weave:unknown | weave:unresolved`,
        `${run('01')} | Talk/${S}/main/${id('01')} | weave:external | weave:strong_inference`,
        `${run('07')} | Talk/${S}/main/${id('07')} | weave:external | weave:strong_inference`,
        `${run('09')} | Talk/${S}/main/${id('07')} | weave:notification | weave:strong_inference`,
      ],
    );
    assert.deepEqual(lines(g().select(link('labelledBy')), 's', 'o'), [
      `Talk/${S}/5e6f7a8b | Turn/${d('01')}`,
      `Talk/${S}/main/${id('01')} | Turn/${id('01')}`,
      `Talk/${S}/main/${id('07')} | Turn/${id('07')}`, // no external message: the command names it
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?n ?ev WHERE { ?n a weave:RuntimeNotification ~ ?r {| weave:evidence ?ev |} }`), 'n', 'ev'), [
      `Turn/${id('09')} | weave:strong_inference`,
    ]);
    assert.deepEqual(lines(g().select(link('reports')), 's', 'o', 'ev'), [
      `Turn/${id('09')} | Unresolved/${S}/notified_child/bq12 | weave:unresolved`,
    ]);
  });

  test('an agent file beside the session joins its call by toolUseResult.agentId', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_cli_task | Stream/${S}/5e6f7a8b | weave:exact_unique`,
    ]);
    assert.deepEqual(
      lines(g().select(`SELECT ?t ?ms ?st WHERE { ?t weave:runtimeDurationMs ?ms ; weave:toolStatus ?st }`), 't', 'ms', 'st'),
      [`ToolCall/${S}/toolu_cli_task | 15000 | completed`],
    );
    assert.deepEqual(lines(g().select(ofClass('LocalCommand')), 'n'), [`Turn/${id('07')}`, `Turn/${id('08')}`]);
    assert.deepEqual(lines(g().select(ofClass('RuntimeNotice')), 'n'), [`Event/${id('05')}`]);
    assert.deepEqual(lines(g().select(ofClass('ContextInjection')), 'n'), [`Turn/${id('06')}`]);
  });
});

withFixture('spawn-conflict', (g) => {
  const S = '90000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000${n}`;
  const t = 't0000000-0000-4000-8000-000000000001';
  const run = `Run/${S}/main/${t}`;
  const childRun = `Run/${S}/c0ffee01/${t}`;

  test('every step in its place', () => {
    assert.deepEqual(
      lines(g().select(within), 'n', 'p', 'ev'),
      [
        ...spine(S, ['main', 'c0ffee01']),
        `Talk/${S}/main/${t} | Epoch/${S}/main/start | weave:exact_unique`,
        `Talk/${S}/c0ffee01 | Epoch/${S}/c0ffee01/start | weave:exact_unique`,
        `${run} | Talk/${S}/main/${t} | weave:exact_unique`,
        `${childRun} | Talk/${S}/c0ffee01 | weave:exact_unique`,
        `Turn/${id('e001')} | ${run} | weave:exact_unique`,
        `Turn/${id('f001')} | ${childRun} | weave:exact_unique`,
        `LlmCall/${S}/msg_pair_01 | ${run} | weave:strong_inference`,
        `LlmCall/${S}/msg_pair_02 | ${run} | weave:strong_inference`,
        `LlmCall/${S}/msg_pair_child_01 | ${childRun} | weave:strong_inference`,
        `ContentBlock/${id('e006')}/0 | LlmCall/${S}/msg_pair_02 | weave:exact_unique`,
        `ContentBlock/${id('f002')}/0 | LlmCall/${S}/msg_pair_child_01 | weave:exact_unique`,
        `ToolCall/${S}/toolu_pair_x | LlmCall/${S}/msg_pair_01 | weave:exact_unique`,
        `ToolCall/${S}/toolu_pair_y | LlmCall/${S}/msg_pair_01 | weave:exact_unique`,
        `AgentOutput/${S}/c0ffee01 | ${childRun} | weave:strong_inference`,
      ].sort(),
    );
  });

  test('when the launch result and the sidecar name different calls, both are linked as a conflict', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_pair_x | Stream/${S}/c0ffee01 | weave:conflict`,
      `ToolCall/${S}/toolu_pair_y | Stream/${S}/c0ffee01 | weave:conflict`,
    ]);
    assert.deepEqual(
      lines(g().select(link('a')), 's', 'o', 'ev').filter((l) => l.includes('AgentCall')),
      [`ToolCall/${S}/toolu_pair_x | weave:AgentCall | weave:conflict`, `ToolCall/${S}/toolu_pair_y | weave:AgentCall | weave:conflict`],
    );
  });
});

withFixture('agent-kinds', (g) => {
  const B = 'c2000000-0000-4000-8000-000000000002';
  const turn = (n: string) => `Turn/c1000000-0000-4000-8000-00000000c0${n}`;
  const block = (n: string) => `ContentBlock/c1000000-0000-4000-8000-00000000c0${n}/0`;
  const read = 'ToolCall/toolu_01SiteReadConfig0000001';

  test('every Skill, Agent, Task or Workflow use is an agent call, joined to a child or not; other tools are not', () => {
    // Line 2 uses Skill, line 4 Agent (its child's file is not here), line 6 Read.
    assert.deepEqual(
      lines(
        g()
          .select(link('a'))
          .filter((r) => r.o === 'weave:AgentCall'),
        's',
        'ev',
      ),
      ['ToolCall/toolu_01SiteAgentCheck00000001 | weave:exact_unique', 'ToolCall/toolu_01SiteSkillDeploy0000001 | weave:exact_unique'],
    );
    assert.equal(count(g(), link('starts')), 0);
  });

  test('a session holding only a copy of a shared tool result puts no placeholder on the tool call', () => {
    // B's first line is a copy of A's line 7 (the Read result); the Read use is only in A.
    assert.deepEqual(
      lines(
        g().select(`SELECT ?p ?o WHERE { <urn:soul:test:Weave/${read}> ?p ?o FILTER(?p IN (weave:toolRequest, weave:toolResponse)) }`),
        'p',
        'o',
      ),
      [`weave:toolRequest | ${block('06')}`, `weave:toolResponse | ${block('07')}`],
    );
    // B still says what its own records leave open: its placeholder, and the link as an unasserted annotation.
    const placeholder = `Unresolved/${B}/tool_use/toolu_01SiteReadConfig0000001`;
    assert.deepEqual(lines(g().select(ofClass('Unresolved')), 'n'), [placeholder]);
    assert.deepEqual(
      lines(
        g().select(`SELECT ?s ?o ?ev ?asserted WHERE { GRAPH ?g { ?r rdf:reifies <<( ?s weave:toolRequest ?o )>> ; weave:evidence ?ev }
          ?o a weave:Unresolved BIND(EXISTS { ?s weave:toolRequest ?o } AS ?asserted) }`),
        's',
        'o',
        'ev',
        'asserted',
      ),
      [`${read} | ${placeholder} | weave:unresolved | false`],
    );
  });

  test('every turn states its role, as the card draws it', () => {
    // A: four prompts or results and four responses; B: its copy of line 7 (the same turn) and one of each.
    assert.deepEqual(
      lines(g().select(`SELECT ?r (COUNT(DISTINCT ?t) AS ?n) WHERE { ?t a weave:Turn ; weave:role ?r } GROUP BY ?r`), 'r', 'n'),
      ['assistant | 5', 'user | 5'],
    );
    assert.equal(
      g()
        .select(`SELECT ?t WHERE { ?t weave:role "user" } `)
        .filter((r) => r.t === turn('07')).length,
      1,
    );
  });
});
