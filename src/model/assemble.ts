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
 * reads what the earlier ones found; none reads record content.
 */
export function assemble(ctx: ModelContext): Iterable<Triple> {
  emitStreams(ctx.d, ctx.streams);
  const epochs = findEpochs(ctx);
  emitEpochs(ctx, epochs);
  const runs = findRuns(ctx, epochs);
  emitRuns(ctx, runs);
  const talks = findTalks(ctx, runs);
  emitTalks(ctx, epochs, talks);
  emitConversation(ctx, talks);
  const placer = new Placer(ctx, epochs, runs);
  const calls = findCalls(ctx);
  emitCalls(ctx, calls.list, runs, placer);
  const tools = findTools(ctx);
  emitTools(ctx, tools, calls.ofFact, placer);
  emitAgents(ctx, tools, calls.list, placer);
  emitCompactions(ctx);
  emitRecordSteps(ctx, placer, tools, calls.ofFact);
  placer.finish();
  return ctx.d.triples();
}
