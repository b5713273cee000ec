import { int, type Term } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { ModelContext, Placement } from './context.ts';
import type { Epochs } from './epochs.ts';
import type { Runs } from './runs.ts';

/**
 * Where a record's step hangs: in the run its walk reached, or, when it reached none, in an
 * explicit Unresolved run of its epoch, so that the gap is a node a query can find.
 */
export class Placer {
  private readonly orphans = new Map<number, { node: Term; firstLine: number }>();

  constructor(
    private readonly ctx: ModelContext,
    private readonly epochs: Epochs,
    private readonly runs: Runs,
  ) {}

  of(i: number): Placement {
    const run = this.runs.ofFact[i];
    if (run >= 0) return { node: this.runs.list[run].node, evidence: this.runs.evidenceOf[i] };
    return { node: this.orphanRun(i), evidence: 'unresolved' };
  }

  /**
   * For a record with no parent link at all (a metadata record): the run of the closest earlier
   * record of the same stream and epoch. Position is all there is, so the link is weak.
   */
  byPosition(i: number): Placement {
    const { facts } = this.ctx;
    const epoch = this.epochs.ofFact[i];
    for (let k = i - 1; k >= 0 && facts[k].stream === facts[i].stream && this.epochs.ofFact[k] === epoch; k--) {
      const run = this.runs.ofFact[k];
      if (run >= 0) return { node: this.runs.list[run].node, evidence: 'weak_inference' };
    }
    return { node: this.orphanRun(i), evidence: 'unresolved' };
  }

  private orphanRun(i: number): Term {
    const { d, streams, facts } = this.ctx;
    const epochIndex = this.epochs.ofFact[i];
    const found = this.orphans.get(epochIndex);
    if (found) {
      found.firstLine = Math.min(found.firstLine, facts[i].line);
      return found.node;
    }
    const epoch = this.epochs.list[epochIndex];
    const node = d.unresolved('run', `${streams[epoch.stream].name}/${epoch.key}`);
    d.link(node, weave.within, epoch.node, 'exact_unique');
    this.orphans.set(epochIndex, { node, firstLine: facts[i].line });
    return node;
  }

  /** Orders the Unresolved runs among their epoch's talks; call once every step is placed. */
  finish(): void {
    for (const { node, firstLine } of this.orphans.values()) this.ctx.d.add(node, weave.firstLine, int(firstLine));
  }
}
