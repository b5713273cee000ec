import { instanceIri } from '../rdf/iri.ts';
import { int, type Term } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';

/**
 * Context epochs: a stream's records between two compaction boundaries. A boundary is known by
 * its subtype, never by its text, and epochs are ordered by position in the file: a summary's
 * timestamp is earlier than its own boundary's.
 */

interface Epoch {
  stream: number;
  /** `start` for a stream's first epoch, else the uuid of the boundary that opened it. */
  key: string;
  node: Term;
  firstLine: number;
  /** Index of the boundary record that opened it. */
  boundary?: number;
}

export interface Epochs {
  list: Epoch[];
  /** Index into `list` for every fact. */
  ofFact: Int32Array;
  /** Each stream's first epoch. */
  firstOfStream: number[];
}

export function findEpochs(ctx: ModelContext): Epochs {
  const { d, streams, facts } = ctx;
  const list: Epoch[] = [];
  const ofFact = new Int32Array(facts.length);
  const current: number[] = [];
  const firstOfStream = streams.map((s) => {
    current[s.index] = list.length;
    list.push({ stream: s.index, key: 'start', node: instanceIri(d.soul, 'Epoch', d.sessionId, s.name, 'start'), firstLine: 1 });
    return current[s.index];
  });
  facts.forEach((f, i) => {
    if (f.step === 'epoch.boundary') {
      const key = f.uuid ?? `L${f.line}`;
      current[f.stream] = list.length;
      list.push({
        stream: f.stream,
        key,
        node: instanceIri(d.soul, 'Epoch', d.sessionId, streams[f.stream].name, key),
        firstLine: f.line,
        boundary: i,
      });
    }
    ofFact[i] = current[f.stream];
  });
  return { list, ofFact, firstOfStream };
}

export function emitEpochs(ctx: ModelContext, epochs: Epochs): void {
  const { d, streams, facts, byUuid } = ctx;
  for (const epoch of epochs.list) {
    d.typed(epoch.node, 'Epoch');
    d.add(epoch.node, weave.firstLine, int(epoch.firstLine));
    d.link(epoch.node, weave.within, streams[epoch.stream].node, 'exact_unique');
    if (epoch.boundary === undefined) continue;
    const boundary = facts[epoch.boundary];
    d.typed(boundary.event, 'EpochBoundary', 'exact_unique');
    d.link(boundary.event, weave.within, epoch.node, 'exact_unique');
    // logicalParentUuid is the only way back: the boundary's own parent is null.
    const tail = boundary.logicalParent ? byUuid.get(boundary.logicalParent) : undefined;
    if (tail !== undefined) d.link(epoch.node, weave.follows, epochs.list[epochs.ofFact[tail]].node, 'exact_unique');
    else {
      const missing = d.unresolved('epoch_continuation', boundary.logicalParent ?? epoch.key);
      d.link(epoch.node, weave.follows, missing, 'unresolved');
    }
  }
  facts.forEach((f, i) => {
    if (f.step !== 'epoch.summary') return;
    d.typed(f.event, 'EpochSummary', 'exact_unique');
    d.link(f.event, weave.within, epochs.list[epochs.ofFact[i]].node, 'exact_unique');
    // The summary's parent is the boundary that produced it.
    const parent = f.parent !== undefined ? byUuid.get(f.parent) : undefined;
    if (parent !== undefined && facts[parent].step === 'epoch.boundary')
      d.link(f.event, weave.summarizes, facts[parent].event, 'exact_unique');
    else d.link(f.event, weave.summarizes, d.unresolved('summarized_boundary', f.parent ?? f.blockKey), 'unresolved');
  });
}
