import { instanceIri } from '../rdf/iri.ts';
import { int, type Term } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';
import type { Epochs } from './epochs.ts';
import type { Evidence } from './evidence.ts';
import type { Run, Runs } from './runs.ts';

/**
 * Talks: what a person would call one exchange. In the main stream a run opens a talk when it
 * was triggered from outside, or when none of its records states a trigger at all (a locally
 * typed command writes no origin); a run started by a notification, or by a kind of origin the
 * model does not map, continues the talk in progress, since nobody said anything; so does the
 * loop that goes on after a compaction. A child stream is one talk, whatever its runs say.
 */

export interface Talk {
  stream: number;
  node: Term;
  runs: Run[];
  /** How each run joined: it opened the talk, or continued the one in progress. */
  joined: Evidence[];
}

export function findTalks(ctx: ModelContext, runs: Runs): Talk[] {
  const { d, streams } = ctx;
  const talks: Talk[] = [];
  const byStream = new Map<number, Run[]>();
  for (const run of runs.list) {
    const list = byStream.get(run.stream) ?? [];
    list.push(run);
    byStream.set(run.stream, list);
  }
  for (const [stream, list] of byStream) {
    const name = streams[stream].name;
    list.sort((x, y) => x.firstLine - y.firstLine);
    if (!streams[stream].main) {
      talks.push({ stream, node: instanceIri(d.soul, 'Talk', d.sessionId, name), runs: list, joined: list.map(() => 'exact_unique') });
      continue;
    }
    let current: Talk | undefined;
    for (const run of list) {
      const opens = run.trigger === 'external' || (run.trigger === 'unknown' && !run.triggerStated && run.rule !== 'afterCompaction');
      if (opens || !current) {
        current = { stream, node: instanceIri(d.soul, 'Talk', d.sessionId, name, run.key), runs: [run], joined: ['exact_unique'] };
        talks.push(current);
      } else {
        current.runs.push(run);
        current.joined.push('strong_inference');
      }
    }
  }
  return talks;
}

export function emitTalks(ctx: ModelContext, epochs: Epochs, talks: Talk[]): void {
  const { d, facts } = ctx;
  for (const talk of talks) {
    const first = talk.runs[0];
    d.typed(talk.node, 'Talk');
    d.add(talk.node, weave.firstLine, int(first.firstLine));
    d.link(talk.node, weave.within, epochs.list[first.epoch].node, 'exact_unique');
    for (const [i, run] of talk.runs.entries()) d.link(run.node, weave.within, talk.node, talk.joined[i]);
    // Named by its first external message in line order, else by the command that opened it.
    const members = talk.runs.flatMap((run) => run.members).sort((x, y) => facts[x].line - facts[y].line);
    const label = members.find((i) => facts[i].step === 'message.external') ?? members.find((i) => facts[i].opensRun);
    if (label !== undefined) d.link(talk.node, weave.labelledBy, facts[label].event, 'exact_unique');
  }
}
