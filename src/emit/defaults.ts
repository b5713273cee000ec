import type { Term, Triple } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';

/**
 * What is constant for a transcript is stated once, on the transcript, and again on a record only
 * where the record differs. The transcript's value of a property is the first one a record of it
 * states; a later record states its own value only when it is another, and a record that has no
 * value while the transcript has one says so with `weave:lacks <property>`. So every record's
 * value is answered exactly by one query (`queries/record-envelope.rq`):
 *
 *   its own value if stated, else none if it lacks the property, else its transcript's.
 *
 * A record read before the transcript's value is known, and without a value of its own, is
 * marked as lacking the property once the value is known; if no record of the transcript ever
 * states one, nothing is said.
 */
/**
 * The properties stated so: what Claude Code's envelope carries on every record. A dialect states
 * these through `TranscriptDefaults` and no others; the self-contained export and
 * `queries/record-envelope.rq` give every record its value of each.
 */
export const ENVELOPE_PROPERTIES: ReadonlySet<Term> = new Set([
  weave.cwd,
  weave.gitBranch,
  weave.cliVersion,
  weave.userType,
  weave.sessionNickname,
  weave.entrypoint,
  weave.recordSessionId,
  weave.recordAgentId,
  weave.isSidechain,
]);

/**
 * A transcript's defaults as the emitter's saved state holds them (a read carried on loads them):
 * the records waiting for a property's value named once, in `events`, and each property's waiting
 * records as runs of their places there (`[from, to)`).
 */
export interface SavedDefaults {
  stated: [Term, Term][];
  events: Term[];
  waiting: [Term, [number, number][]][];
}

export class TranscriptDefaults {
  private readonly stated = new Map<Term, Term>();
  /**
   * The records read while some property had no value yet and lacked it, in order, each once: a
   * property no record states (a main transcript's agent id) keeps every record of the
   * transcript waiting, and a list per property held each record's IRI once per such property,
   * in memory and in the saved state. Emptied once nothing waits.
   */
  private events: Term[] = [];
  /** Per property without a value yet, the runs of `events` (`[from, to)`) that lack it. */
  private readonly waiting = new Map<Term, [number, number][]>();

  constructor(readonly transcript: Term) {}

  save(): SavedDefaults {
    return {
      stated: [...this.stated],
      events: [...this.events],
      waiting: [...this.waiting].map(([p, runs]) => [p, copied(runs)]),
    };
  }

  static load(transcript: Term, saved: SavedDefaults): TranscriptDefaults {
    const defaults = new TranscriptDefaults(transcript);
    for (const [p, o] of saved.stated) defaults.stated.set(p, o);
    defaults.events = [...saved.events];
    for (const [p, runs] of saved.waiting) defaults.waiting.set(p, copied(runs));
    return defaults;
  }

  /** The `event`'s value of `property` (undefined: the record has none), as triples into `out`. */
  state(event: Term, property: Term, value: Term | undefined, out: Triple[]): void {
    // A property stated once per transcript that no reader of the graph knows to default is lost to it.
    if (!ENVELOPE_PROPERTIES.has(property)) throw new Error(`${property} is not an envelope property (src/emit/defaults.ts)`);
    const known = this.stated.get(property);
    if (value === undefined) {
      if (known !== undefined) out.push({ s: event, p: weave.lacks, o: property });
      else this.wait(event, property);
      return;
    }
    if (known === undefined) {
      this.stated.set(property, value);
      out.push({ s: this.transcript, p: property, o: value });
      for (const [from, to] of this.waiting.get(property) ?? [])
        for (let i = from; i < to; i++) out.push({ s: this.events[i], p: weave.lacks, o: property });
      this.waiting.delete(property);
      if (!this.waiting.size) this.events = [];
    } else if (known !== value) out.push({ s: event, p: property, o: value });
  }

  /** `event` waits for the value of `property`: it lacks it, if a later record states one. */
  private wait(event: Term, property: Term): void {
    if (this.events[this.events.length - 1] !== event) this.events.push(event);
    const at = this.events.length - 1;
    const runs = this.waiting.get(property);
    if (!runs) return void this.waiting.set(property, [[at, at + 1]]);
    const last = runs[runs.length - 1];
    // A run ending just before this record grows; one ending with it already holds it.
    if (last[1] === at) last[1] = at + 1;
    else if (last[1] < at) runs.push([at, at + 1]);
  }
}

/** Runs copied, so the saved state and the live one never share a run that grows. */
function copied(runs: [number, number][]): [number, number][] {
  return runs.map(([from, to]) => [from, to]);
}
