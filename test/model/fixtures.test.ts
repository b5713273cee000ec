import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fixture, ingested, lines, type Ingested } from './helpers.ts';

/**
 * One fixture per rule of the conversation model, with the figures worked out by hand from the
 * transcript (line numbers below are the fixture file's).
 */

const within = `SELECT ?n ?p ?ev WHERE { ?n weave:within ?p ~ ?r {| weave:evidence ?ev |} }`;
const link = (p: string) => `SELECT ?s ?o ?ev WHERE { ?s ${p === 'a' ? 'a' : `weave:${p}`} ?o ~ ?r {| weave:evidence ?ev |} }`;
const ofClass = (c: string) => `SELECT ?n WHERE { ?n a weave:${c} }`;
const count = (g: Ingested, query: string) => g.select(query).length;

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

withFixture('run-through-attachments', (g) => {
  const S = '10000000-0000-4000-8000-000000000001';
  const turn = (n: string) => `Turn/${S.slice(0, 24)}00000000a0${n}`;
  const event = (n: string) => `Event/${S.slice(0, 24)}00000000a0${n}`;
  const run1 = `Run/${S}/main/p0000000-0000-4000-8000-000000000001`;
  const run2 = `Run/${S}/main/p0000000-0000-4000-8000-000000000002`;
  const orphan = `Unresolved/${S}/run/main/start`;

  test('records reach their run through attachments; the ones before the first prompt reach none', () => {
    const rows = lines(g().select(within), 'n', 'p', 'ev');
    for (const expected of [
      `${event('02')} | ${orphan} | weave:unresolved`, // SessionStart hook: parentUuid null
      `Event/${S}/L1 | ${orphan} | weave:unresolved`, // permission-mode: no parent at all
      `${turn('03')} | ${run1} | weave:exact_unique`, // carries the promptId
      `${event('04')} | ${run1} | weave:strong_inference`, // attachment → prompt
      `${event('08')} | ${run1} | weave:strong_inference`, // hook after a tool result
      `${event('10')} | ${run1} | weave:strong_inference`, // turn_duration
      `${event('11')} | ${run1} | weave:strong_inference`, // queued prompt joins the running loop
      `${turn('12')} | ${run2} | weave:exact_unique`,
      `LlmCall/${S}/msg_shop_01 | ${run1} | weave:strong_inference`, // assistant → attachment → prompt
      `LlmCall/${S}/msg_shop_02 | ${run1} | weave:strong_inference`, // → hook → tool result → run
      `LlmCall/${S}/msg_shop_03 | ${run2} | weave:strong_inference`,
      `ToolCall/${S}/toolu_shop_read | LlmCall/${S}/msg_shop_01 | weave:exact_unique`,
    ]) assert.ok(rows.includes(expected), expected);
    assert.equal(count(g(), ofClass('Run')), 3); // two runs and the Unresolved one
  });

  test('two talks, each opened by typed input: one inferred (no origin), one stated (origin human)', () => {
    assert.deepEqual(lines(g().select(link('trigger')), 's', 'o', 'ev'), [
      `${run1} | weave:external | weave:strong_inference`,
      `${run2} | weave:external | weave:exact_unique`,
    ]);
    assert.deepEqual(lines(g().select(link('labelledBy')), 's', 'o'), [
      `Talk/${S}/main/p0000000-0000-4000-8000-000000000001 | ${turn('03')}`,
      `Talk/${S}/main/p0000000-0000-4000-8000-000000000002 | ${turn('12')}`,
    ]);
  });

  test('step kinds', () => {
    assert.deepEqual(lines(g().select(ofClass('ExternalMessage')), 'n'), [turn('03'), event('11'), turn('12')].sort());
    assert.deepEqual(lines(g().select(ofClass('ContextInjection')), 'n'), [event('02'), event('04'), event('08')].sort());
    assert.deepEqual(lines(g().select(ofClass('TurnDuration')), 'n'), [event('10')]);
    assert.deepEqual(lines(g().select(ofClass('PermissionDecision')), 'n'), [`Event/${S}/L1`]); // line 12 repeats the mode
    assert.deepEqual(lines(g().select(ofClass('Thinking')), 'n'), [`ContentBlock/${S.slice(0, 24)}00000000a005/0`]);
  });

  test('a call is its fragments in line order; the tool joins by id', () => {
    const [call] = g().select(`SELECT ?n ?first ?last WHERE { ?c weave:fragmentCount ?n ; weave:firstFragment ?first ; weave:lastFragment ?last
      FILTER(STRENDS(STR(?c), "msg_shop_01")) }`);
    assert.deepEqual(call, { n: '2', first: turn('05'), last: turn('06') });
    assert.deepEqual(lines(g().select(link('resultOf')), 's', 'o', 'ev'), [`${turn('07')} | ToolCall/${S}/toolu_shop_read | weave:exact_unique`]);
  });
});

withFixture('split-call', (g) => {
  const S = '20000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000b0${n}`;

  test('fragments split by their own tool results stay one call, usage from the last fragment', () => {
    assert.deepEqual(lines(g().select(`SELECT ?c ?n ?last ?out ?final WHERE { ?c a weave:LlmCall ; weave:fragmentCount ?n ; weave:lastFragment ?last .
        OPTIONAL { ?last weave:hasUsage/weave:outputTokens ?out } OPTIONAL { ?c weave:usageFinal ?final } }`), 'c', 'n', 'last', 'out', 'final'), [
      `LlmCall/${S}/6b1c0f3e-5d1a-4e6b-9f55-0d3c2b1a0e99 | 1 | Turn/${id('13')} | 0 | -`,
      `LlmCall/${S}/msg_api_01 | 3 | Turn/${id('05')} | 180 | true`,
      `LlmCall/${S}/msg_api_02 | 2 | Turn/${id('08')} | 60 | true`,
      `LlmCall/${S}/msg_api_03 | 1 | Turn/${id('10')} | 25 | true`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?c WHERE { ?t a weave:ToolCall ; weave:within ?c }`), 't', 'c'), [
      `ToolCall/${S}/toolu_api_edit | LlmCall/${S}/msg_api_01`,
      `ToolCall/${S}/toolu_api_fetch | LlmCall/${S}/msg_api_02`,
      `ToolCall/${S}/toolu_api_grep | LlmCall/${S}/msg_api_01`,
    ]);
  });

  test('tokens per day per model count each call once and leave the synthetic one out', async () => {
    const query = await readFile(new URL('../../queries/tokens-per-day-per-model.rq', import.meta.url), 'utf8');
    // Summing every fragment would give 670 input and 327 output tokens.
    assert.deepEqual(g().select(query), [
      { day: '2026-05-05', model: 'claude-sonnet-4-5-20250929', calls: '3', input: '350', output: '265', cacheCreation: '0', cacheRead: '15700' },
    ]);
  });

  test('the synthetic response is marked and is not agent output', () => {
    assert.deepEqual(lines(g().select(ofClass('SyntheticMessage')), 'n'), [`LlmCall/${S}/6b1c0f3e-5d1a-4e6b-9f55-0d3c2b1a0e99`]);
    assert.deepEqual(lines(g().select(ofClass('AssistantMessage')), 'n'), [`ContentBlock/${id('10')}/0`]);
    assert.deepEqual(lines(g().select(ofClass('ApiError')), 'n'), [`Event/${id('12')}`]);
  });

  test('thinking, redacted or not, and the tool durations the runtime measured', () => {
    assert.deepEqual(lines(g().select(`SELECT ?n ?c WHERE { ?n a weave:Thinking ; weave:within ?c }`), 'n', 'c'), [
      `ContentBlock/${id('02')}/0 | LlmCall/${S}/msg_api_01`,
      `ContentBlock/${id('07')}/0 | LlmCall/${S}/msg_api_02`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?ms WHERE { ?t weave:runtimeDurationMs ?ms }`), 't', 'ms'), [`ToolCall/${S}/toolu_api_fetch | 812`]);
  });

  test('without promptIds each typed prompt opens a run', () => {
    assert.deepEqual(lines(g().select(link('trigger')), 's', 'o', 'ev'), [
      `Run/${S}/main/${id('01')} | weave:external | weave:strong_inference`,
      `Run/${S}/main/${id('11')} | weave:external | weave:strong_inference`,
    ]);
    assert.equal(count(g(), ofClass('Talk')), 2);
  });
});

withFixture('tool-joins', (g) => {
  const S = '30000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000c0${n}`;

  test('two results for one id are both linked, ambiguous; a use without result and a result without use end at Unresolved nodes', () => {
    assert.deepEqual(lines(g().select(link('toolResponse')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_tools_fmt | Unresolved/${S}/tool_result/toolu_tools_fmt | weave:unresolved`,
      `ToolCall/${S}/toolu_tools_ghost | ContentBlock/${id('06')}/0 | weave:exact_unique`,
      `ToolCall/${S}/toolu_tools_lint | ContentBlock/${id('04')}/0 | weave:exact_ambiguous`,
      `ToolCall/${S}/toolu_tools_lint | ContentBlock/${id('05')}/0 | weave:exact_ambiguous`,
    ]);
    assert.deepEqual(lines(g().select(link('toolRequest')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_tools_fmt | ContentBlock/${id('03')}/0 | weave:exact_unique`,
      `ToolCall/${S}/toolu_tools_ghost | Unresolved/${S}/tool_use/toolu_tools_ghost | weave:unresolved`,
      `ToolCall/${S}/toolu_tools_lint | ContentBlock/${id('02')}/0 | weave:exact_unique`,
    ]);
    // The answer to nothing sits in the run its record walked to.
    assert.deepEqual(lines(g().select(`SELECT ?p ?ev WHERE { ?t weave:within ?p ~ ?r {| weave:evidence ?ev |} FILTER(STRENDS(STR(?t), "ghost")) }`), 'p', 'ev'), [
      `Run/${S}/main/${id('01')} | weave:strong_inference`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?e WHERE { ?t weave:resultIsError ?e }`), 't', 'e'), [
      `ToolCall/${S}/toolu_tools_ghost | true`,
      `ToolCall/${S}/toolu_tools_lint | false`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?i WHERE { ?t weave:interrupted ?i }`), 't', 'i'), [`ToolCall/${S}/toolu_tools_lint | false`]);
  });
});

withFixture('async-agent', (g) => {
  const S = '40000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000${n}`;
  const child = `Stream/${S}/a1b2c3d4e5f607182`;
  const orphan = `Stream/${S}/aorphan000000001`;

  test('agent.call → launch ack → child stream → agent.output → notification', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_docs_agent | ${child} | weave:exact_unique`, // toolUseResult.agentId and the sidecar agree
      `ToolCall/${S}/toolu_docs_lost | Unresolved/${S}/child_stream/a9999999999999999 | weave:unresolved`, // announced, never written
      `Unresolved/${S}/spawn_of_child/aorphan000000001 | ${orphan} | weave:unresolved`, // nothing launched it
    ]);
    assert.deepEqual(lines(g().select(ofClass('AgentCall')), 'n'), [
      `ToolCall/${S}/toolu_docs_agent`, `ToolCall/${S}/toolu_docs_lost`, `Unresolved/${S}/spawn_of_child/aorphan000000001`,
    ]);
    assert.deepEqual(lines(g().select(ofClass('AgentLaunchAck')), 'n'), [`Turn/${id('d003')}`, `Turn/${id('d007')}`]);
    assert.deepEqual(lines(g().select(`SELECT ?s ?o ?call WHERE { ?s weave:endsWith ?o . ?o weave:outputCall ?call }`), 's', 'o', 'call'), [
      `${child} | AgentOutput/${S}/a1b2c3d4e5f607182 | LlmCall/${S}/msg_docs_child_02`,
      `${orphan} | AgentOutput/${S}/aorphan000000001 | LlmCall/${S}/msg_docs_orphan_01`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?o ?ev WHERE { ?o a weave:AgentOutput ; weave:resultOf ?c ~ ?r {| weave:evidence ?ev |} }`), 'o', 'ev'), [
      `AgentOutput/${S}/a1b2c3d4e5f607182 | weave:exact_unique`,
      `AgentOutput/${S}/aorphan000000001 | weave:unresolved`,
    ]);
  });

  test('a notification reports the child or the background task its <task-id> names', () => {
    assert.deepEqual(lines(g().select(link('reports')), 's', 'o', 'ev'), [
      `Turn/${id('d009')} | ToolCall/${S}/toolu_docs_lint | weave:exact_unique`,
      `Turn/${id('d011')} | ${child} | weave:exact_unique`,
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?b WHERE { ?t weave:backgroundTaskId ?b }`), 't', 'b'), [`ToolCall/${S}/toolu_docs_lint | b7c8d9e`]);
  });

  test('notified runs continue the talk; each child stream is one talk with an unknown trigger', () => {
    const talk = `Talk/${S}/main/q0000000-0000-4000-8000-000000000001`;
    assert.deepEqual(lines(g().select(`SELECT ?run ?t ?trig ?ev WHERE { ?run a weave:Run ; weave:within ?t ~ ?r {| weave:evidence ?ev |} ; weave:trigger ?trig }`), 'run', 't', 'trig', 'ev'), [
      `Run/${S}/a1b2c3d4e5f607182/q0000000-0000-4000-8000-000000000001 | Talk/${S}/a1b2c3d4e5f607182 | weave:unknown | weave:exact_unique`,
      `Run/${S}/aorphan000000001/${id('f001')} | Talk/${S}/aorphan000000001 | weave:unknown | weave:exact_unique`,
      `Run/${S}/main/q0000000-0000-4000-8000-000000000001 | ${talk} | weave:external | weave:exact_unique`,
      `Run/${S}/main/q0000000-0000-4000-8000-000000000002 | ${talk} | weave:notification | weave:strong_inference`,
      `Run/${S}/main/q0000000-0000-4000-8000-000000000003 | ${talk} | weave:notification | weave:strong_inference`,
    ]);
  });
});

withFixture('workflow-batch', (g) => {
  const S = '50000000-0000-4000-8000-000000000001';

  test('a workflow starts its children through the run id and the journal', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_rev_wf | Stream/${S}/w1 | weave:strong_inference`,
      `ToolCall/${S}/toolu_rev_wf | Stream/${S}/w2 | weave:strong_inference`,
      `ToolCall/${S}/toolu_rev_wf | Unresolved/${S}/child_stream/w3 | weave:unresolved`, // journal started it; no file landed
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?n ?b WHERE { ?n weave:batchId ?b }`), 'n', 'b'), [
      `Stream/${S}/w1 | wf_r1`, `Stream/${S}/w2 | wf_r1`, `ToolCall/${S}/toolu_rev_wf | wf_r1`,
    ]);
    assert.deepEqual(lines(g().select(link('a')), 's', 'o', 'ev').filter((l) => l.includes('AgentCall')), [
      `ToolCall/${S}/toolu_rev_wf | weave:AgentCall | weave:strong_inference`,
    ]);
  });

  test('each child owns its output, with what the journal says it returned', () => {
    assert.deepEqual(lines(g().select(`SELECT ?o ?v WHERE { ?o weave:returnedValue ?v }`), 'o', 'v'), [
      `AgentOutput/${S}/w1 | {"area":"loader","ok":true}`,
      `AgentOutput/${S}/w2 | "no issues"`,
    ]);
    assert.deepEqual(lines(g().select(ofClass('AgentLaunchAck')), 'n'), [`Turn/${S.slice(0, 24)}00000007a003`]);
  });
});

withFixture('compaction-replay', (g) => {
  const S = '60000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000a0${n}`;
  const epoch = (key: string) => `Epoch/${S}/main/${key}`;

  test('epochs are cut at boundaries; follows goes back by logicalParentUuid, or to an Unresolved epoch', () => {
    assert.deepEqual(lines(g().select(`SELECT ?e ?line WHERE { ?e a weave:Epoch ; weave:firstLine ?line }`), 'e', 'line'), [
      `${epoch(id('07'))} | 7`, `${epoch(id('11'))} | 11`, `${epoch('start')} | 1`,
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
    assert.deepEqual(lines(g().select(`SELECT ?k WHERE { ?r weave:runKey ?k }`), 'k'), [
      's0000000-0000-4000-8000-000000000001', 's0000000-0000-4000-8000-000000000002',
    ]);
  });

  test('a response after a reset reaches its run across the boundary; one after a lost tail reaches none', () => {
    const rows = lines(g().select(within), 'n', 'p', 'ev');
    assert.ok(rows.includes(`LlmCall/${S}/msg_etl_03 | Run/${S}/main/s0000000-0000-4000-8000-000000000001 | weave:strong_inference`));
    assert.ok(rows.includes(`LlmCall/${S}/msg_etl_04 | Unresolved/${S}/run/main/${id('11')} | weave:unresolved`));
    assert.ok(rows.includes(`Unresolved/${S}/run/main/${id('11')} | ${epoch(id('11'))} | weave:exact_unique`));
    assert.ok(rows.includes(`Event/${id('07')} | ${epoch(id('07'))} | weave:exact_unique`));
  });
});

withFixture('interrupted-tool', (g) => {
  const S = '70000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000b0${n}`;

  test('interruptions and what they cancel', () => {
    assert.deepEqual(lines(g().select(link('cancels')), 's', 'o', 'ev'), [
      `Turn/${id('03')} | ToolCall/${S}/toolu_infra_build | weave:exact_unique`, // toolUseResult.interrupted
      `Turn/${id('04')} | ToolCall/${S}/toolu_infra_build | weave:strong_inference`, // marker after that result
      `Turn/${id('09')} | ToolCall/${S}/toolu_infra_rm | weave:strong_inference`, // marker after a refusal
      `Turn/${id('13')} | LlmCall/${S}/msg_infra_03 | weave:strong_inference`, // stopped a streaming response
      `Turn/${id('15')} | Run/${S}/main/${id('14')} | weave:weak_inference`, // follows a prompt: its run, plausibly
    ]);
    assert.equal(count(g(), ofClass('Interrupt')), 5);
    assert.deepEqual(lines(g().select(`SELECT ?t ?i WHERE { ?t weave:interrupted ?i }`), 't', 'i'), [`ToolCall/${S}/toolu_infra_build | true`]);
  });

  test('permission decisions: a mode that changes, and a refused tool use', () => {
    assert.deepEqual(lines(g().select(`SELECT ?n ?p ?ev WHERE { ?n a weave:PermissionDecision ; weave:within ?p ~ ?r {| weave:evidence ?ev |} }`), 'n', 'p', 'ev'), [
      `Event/${S}/L1 | Unresolved/${S}/run/main/start | weave:unresolved`,
      `Event/${S}/L11 | Run/${S}/main/${id('06')} | weave:weak_inference`, // placed by position only
      `Turn/${id('08')} | Run/${S}/main/${id('06')} | weave:strong_inference`,
    ]);
  });
});

withFixture('legacy-runs', (g) => {
  const S = '80000000-0000-4000-8000-000000000001';
  const id = (n: string) => `${S.slice(0, 24)}00000000c0${n}`;

  test('a typed command opens a talk; a notification found by its text continues it', () => {
    assert.deepEqual(lines(g().select(`SELECT ?run ?t ?trig ?ev WHERE { ?run weave:within ?t ; weave:trigger ?trig ~ ?r {| weave:evidence ?ev |} }`), 'run', 't', 'trig', 'ev'), [
      `Run/${S}/5e6f7a8b/${S.slice(0, 24)}00000000d001 | Talk/${S}/5e6f7a8b | weave:unknown | weave:unresolved`,
      `Run/${S}/main/${id('01')} | Talk/${S}/main/${id('01')} | weave:external | weave:strong_inference`,
      `Run/${S}/main/${id('07')} | Talk/${S}/main/${id('07')} | weave:external | weave:strong_inference`,
      `Run/${S}/main/${id('09')} | Talk/${S}/main/${id('07')} | weave:notification | weave:strong_inference`,
    ]);
    assert.deepEqual(lines(g().select(link('labelledBy')), 's', 'o'), [
      `Talk/${S}/5e6f7a8b | Turn/${S.slice(0, 24)}00000000d001`,
      `Talk/${S}/main/${id('01')} | Turn/${id('01')}`,
      `Talk/${S}/main/${id('07')} | Turn/${id('07')}`, // no external message: the command names it
    ]);
    assert.deepEqual(lines(g().select(`SELECT ?n ?ev WHERE { ?n a weave:RuntimeNotification ~ ?r {| weave:evidence ?ev |} }`), 'n', 'ev'), [
      `Turn/${id('09')} | weave:strong_inference`,
    ]);
    assert.deepEqual(lines(g().select(link('reports')), 's', 'o', 'ev'), [`Turn/${id('09')} | Unresolved/${S}/notified_child/bq12 | weave:unresolved`]);
  });

  test('an agent file beside the session joins its call by toolUseResult.agentId', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [`ToolCall/${S}/toolu_cli_task | Stream/${S}/5e6f7a8b | weave:exact_unique`]);
    assert.deepEqual(lines(g().select(`SELECT ?t ?ms ?st WHERE { ?t weave:runtimeDurationMs ?ms ; weave:toolStatus ?st }`), 't', 'ms', 'st'), [
      `ToolCall/${S}/toolu_cli_task | 15000 | completed`,
    ]);
    assert.deepEqual(lines(g().select(ofClass('LocalCommand')), 'n'), [`Turn/${id('07')}`, `Turn/${id('08')}`]);
    assert.deepEqual(lines(g().select(ofClass('RuntimeNotice')), 'n'), [`Event/${id('05')}`]);
    assert.deepEqual(lines(g().select(ofClass('ContextInjection')), 'n'), [`Turn/${id('06')}`]);
  });
});

withFixture('spawn-conflict', (g) => {
  const S = '90000000-0000-4000-8000-000000000001';

  test('when the launch result and the sidecar name different calls, both are linked as a conflict', () => {
    assert.deepEqual(lines(g().select(link('starts')), 's', 'o', 'ev'), [
      `ToolCall/${S}/toolu_pair_x | Stream/${S}/c0ffee01 | weave:conflict`,
      `ToolCall/${S}/toolu_pair_y | Stream/${S}/c0ffee01 | weave:conflict`,
    ]);
    assert.deepEqual(lines(g().select(link('a')), 's', 'o', 'ev').filter((l) => l.includes('AgentCall')), [
      `ToolCall/${S}/toolu_pair_x | weave:AgentCall | weave:conflict`,
      `ToolCall/${S}/toolu_pair_y | weave:AgentCall | weave:conflict`,
    ]);
  });
});
