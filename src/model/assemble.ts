import type { Triple } from '../rdf/terms.ts';
import { emitAgents } from './agents.ts';
import { emitCalls, findCalls } from './calls.ts';
import { emitCompactions } from './compactions.ts';
import type { ModelContext } from './context.ts';
import { emitConversation } from './conversation.ts';
import { emitEpochs, findEpochs } from './epochs.ts';
import { Placer } from './placement.ts';
import { emitRuns, findRuns } from './runs.ts';
import { emitRecordSteps } from './steps.ts';
import { emitStreams } from './streams.ts';
import { emitTalks, findTalks } from './talks.ts';
import { emitTools, findTools } from './tools.ts';

/**
 * The conversation model of one session, from its record facts: the conversation and its
 * segments, session → stream → epoch → talk → run → step, the relations across streams, and
 * the evidence of every link. Each part
 * reads what the earlier ones found; none reads record content. What each part states is handed
 * on before the next part runs: a long session's derived part is written as it is made, not held whole.
 */
export function* assemble(ctx: ModelContext): Generator<Triple> {
  const { d } = ctx;
  emitStreams(d, ctx.streams);
  yield* d.taken();
  const epochs = findEpochs(ctx);
  emitEpochs(ctx, epochs);
  yield* d.taken();
  const runs = findRuns(ctx, epochs);
  emitRuns(ctx, runs);
  yield* d.taken();
  const talks = findTalks(ctx, runs);
  emitTalks(ctx, epochs, talks);
  yield* d.taken();
  emitConversation(ctx, talks);
  yield* d.taken();
  const placer = new Placer(ctx, epochs, runs);
  const calls = findCalls(ctx);
  yield* emitCalls(ctx, calls.list, runs, placer);
  yield* d.taken();
  const tools = findTools(ctx);
  yield* emitTools(ctx, tools, calls.ofFact, placer);
  yield* d.taken();
  emitAgents(ctx, tools, calls.list, placer);
  yield* d.taken();
  emitCompactions(ctx);
  yield* d.taken();
  yield* emitRecordSteps(ctx, placer, tools, calls.ofFact);
  yield* d.taken();
  placer.finish();
  yield* d.taken();
}
