import type { Term } from '../rdf/terms.ts';
import { join } from 'node:path';
import { exists } from '../acquire/files.ts';
import { storeSecretKey } from '../readers/secret/key.ts';
import type { FileEntry, GraphEntry, SourceStamp } from '../store/manifest.ts';
import type { StoreWriter } from '../store/writer.ts';
import {
  staleness,
  stampOf,
  type Collector,
  type Derivation,
  type DeriveRun,
  type RecordDerivation,
  type Input,
  type Made,
  type Output,
  type Reason,
  type AnySessionDerivation,
  type SessionRef,
  type StoreDerivation,
} from './derivation.ts';
import { feedGraph, graphStamp } from './graph-input.ts';
import { holdHeapGrowth } from './heap.ts';

/**
 * The loop that runs the session and store derivations (derivation.ts): for each session graph,
 * the derivations whose output is stale, from one pass over the graph's triples (tapped as the
 * graph is written, or read back from its files); then the store derivations. It writes what they
 * make through the store writer, stamped with the derivation and the graph version it read.
 *
 * A large session is not tapped: every input of it is read back from its files, one input at a
 * time, each dropped before the next is made. Its memory is then that of the largest input, or
 * of the read, where tapping holds every input beside the read's own state.
 */

/** Transcripts past this size (a graph of about 100 MB) make a large session. */
export const LARGE_SESSION_BYTES = 16 << 20;

/**
 * A full collection, where node was started with --expose-gc (bin/weave does): run between the
 * passes over a large session. V8 sizes its heap from what its last collection found alive, so a
 * pass begun on the last one's garbage grows the heap well past what the pass itself holds.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** A derivation's text failed while it was being written: the derivation's failure, not the store's. */
class MadeFailure extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/** The parts of a derivation's text, any failure in making them told apart from the store's. */
function* madeBy(text: Iterable<string>): Generator<string> {
  try {
    yield* text;
  } catch (e) {
    throw new MadeFailure(e as Error);
  }
}

/** A derivation that failed on one session (or on the store): only its output is missing or old. */
export interface DeriveProblem {
  sessionId?: string;
  derivation: string;
  message: string;
}

/** What one derivation did in a run. */
export interface DerivationRuns {
  runs: number;
  why: Partial<Record<Reason, number>>;
  /** Findings, for a reader. */
  findings?: number;
}

export interface DeriveReport {
  /** Per derivation that ran at least once. */
  ran: Record<string, DerivationRuns>;
  /** Sessions at least one derivation ran on. */
  sessions: number;
  /** Sessions every derivation was current on. */
  skipped: number;
  /** Graphs written by session derivations. */
  graphs: number;
  problems: DeriveProblem[];
  millis: number;
  cpuMillis: number;
}

export interface DeriveHooks {
  /** After a derivation wrote (or removed: no entry) a graph, e.g. to load it into a live store. */
  onGraph?: (
    graph: string,
    entry: GraphEntry | undefined,
    by: { derivation: string; sessionId?: string; findings?: number },
  ) => void | Promise<void>;
  onProblem?: (problem: DeriveProblem) => void;
}

/** A graph a derivation wrote (no entry: removed), as the loop tells its hooks of it. */
export interface ToldGraph {
  graph: string;
  entry?: GraphEntry;
  by: { derivation: string; sessionId?: string; findings?: number };
}

/** The manifest's entry for a derivation's output: a graph's or a store file's. */
type OutputEntry = GraphEntry | FileEntry;

/** A derivation due on a session, why, and its output's entry before. */
interface Due {
  d: AnySessionDerivation;
  why: Reason;
  was?: OutputEntry;
}

/** What writing one derivation's output did: a graph to tell of, or its failure (a problem of the derivation alone). */
interface Written {
  name: string;
  why: Reason;
  told?: ToldGraph & { entry: GraphEntry };
  problem?: DeriveProblem;
}

/** The inputs tapped from a session's triples as they are written. */
export class Tap {
  constructor(readonly carriedOn: boolean) {}
  readonly collectors = new Map<Input<unknown>, Collector<unknown>>();

  add(s: Term, p: Term, o: Term): void {
    for (const c of this.collectors.values()) c.add(s, p, o);
  }
}

/** The derivations `list` holds that read records: they run inside a session's read (session-read.ts). */
export function recordDerivations(list: readonly Derivation[]): RecordDerivation[] {
  return list.filter((d): d is RecordDerivation => d.reads === 'records');
}

/** How a loop runs: its hooks, and what the run asks of it. */
export interface LoopOptions extends DeriveHooks {
  /** Run every session derivation on every session handed over, current or not. */
  force?: boolean;
  /** Transcripts past this many bytes make a large session (default LARGE_SESSION_BYTES). */
  largeSession?: number;
  /** A pass of live reading (weave serve, ingest --watch): see DeriveRun.live. */
  live?: boolean;
}

/** A loop over `list`'s session and store derivations, writing through `writer`. */
export function derivationLoop(writer: StoreWriter, list: readonly Derivation[], options: LoopOptions = {}): DerivationLoop {
  let key: Promise<Buffer> | undefined;
  const run: DeriveRun = {
    writer,
    soul: writer.soul,
    live: options.live ?? false,
    secretKey: () => (key ??= storeSecretKey(writer)),
    wrote: async (graph, entry) => {
      await options.onGraph?.(graph, entry, { derivation: entry?.reader ?? 'store' });
    },
  };
  const session = list.filter((d): d is AnySessionDerivation => typeof d.reads === 'object');
  const store = list.filter((d): d is StoreDerivation => d.reads === 'store');
  return new DerivationLoop(run, session, store, options);
}

export class DerivationLoop {
  readonly report: DeriveReport = { ran: {}, sessions: 0, skipped: 0, graphs: 0, problems: [], millis: 0, cpuMillis: 0 };
  private begun = false;

  constructor(
    private readonly run: DeriveRun,
    private readonly sessionDerivations: readonly AnySessionDerivation[],
    private readonly storeDerivations: readonly StoreDerivation[],
    private readonly options: LoopOptions = {},
  ) {}

  get storeDir(): string {
    return this.run.writer.dir;
  }

  /**
   * Collectors for a session about to be read from `sources`; a read carried on taps
   * only the inputs that take appends, a large session read whole none.
   */
  tap(session: Omit<SessionRef, 'entry'>, carriedOn: boolean, sources: readonly SourceStamp[] = []): Tap {
    const tap = new Tap(carriedOn);
    if (!carriedOn && this.large(sources)) return tap;
    for (const d of this.sessionDerivations)
      if (!tap.collectors.has(d.reads) && (!carriedOn || d.reads.appends)) tap.collectors.set(d.reads, d.reads.collect(session, carriedOn));
    return tap;
  }

  /** Whether a session read from `sources` is large: its transcripts past `largeSession` bytes. */
  large(sources: readonly SourceStamp[]): boolean {
    return sources.reduce((n, s) => n + s.size, 0) > (this.options.largeSession ?? LARGE_SESSION_BYTES);
  }

  /** Runs each session derivation whose output for `session` is stale, from `tap` where it was fed, else from the graph's files. */
  async session(session: SessionRef, tap?: Tap): Promise<void> {
    await this.timed(async () => {
      const from = await graphStamp(this.storeDir, session.entry);
      const due: Due[] = [];
      for (const d of this.sessionDerivations) {
        const was = await this.outputEntry(d, session.sessionId);
        const why = staleness(was, d, from) ?? (this.options.force ? 'asked' : undefined);
        if (why) due.push({ d, why, was });
      }
      if (!due.length) {
        this.report.skipped++;
        return;
      }
      await this.begin();
      // A read carried on fed its appending inputs only the new triples: enough only for an output made from the graph before.
      const whole = due.filter(({ why }) => why !== 'input changed').map(({ d }) => d.reads);
      const usable = tap?.carriedOn && whole.length ? undefined : tap;
      // A large session's inputs one at a time (each a pass over its graph's files), else all in one pass.
      const large = this.large(session.entry.sources ?? []);
      const passes = large ? [...new Set(due.map(({ d }) => d.reads))].map((input) => due.filter(({ d }) => d.reads === input)) : [due];
      let ran = false;
      const release = large ? holdHeapGrowth() : undefined;
      try {
        for (const pass of passes) {
          if (passes.length > 1) collectGarbage?.();
          ran = (await this.pass(session, pass, from, usable, large)) || ran;
        }
      } finally {
        release?.();
      }
      if (passes.length > 1) collectGarbage?.();
      if (ran) this.report.sessions++;
    });
  }

  /**
   * One pass: the inputs of `due` made together, then each derivation run on its own. A method of
   * its own so that its inputs go when it returns: a loop's variable would hold the last pass's
   * inputs while the next pass reads.
   *
   * Each output is written while the next derivation makes its own, so the loop waits on the disk
   * once a pass rather than once an output; what they did is counted and told in their order. A
   * large session's are written one at a time, so that it holds one output at once.
   */
  private async pass(session: SessionRef, due: Due[], from: SourceStamp, tap: Tap | undefined, large: boolean): Promise<boolean> {
    const inputs = await this.inputs(
      session,
      due.map(({ d }) => d.reads),
      tap,
    );
    const writes: Promise<Written>[] = [];
    for (const { d, why, was } of due) {
      const input = inputs.get(d.reads);
      if (input instanceof Error) {
        this.problem({ sessionId: session.sessionId, derivation: d.name, message: input.message });
        continue;
      }
      const made = await this.make(d, session, input, was);
      if (!made) continue;
      const written = this.write(d, why, session, made.made, from);
      // Awaited in order below; until then a failure is not left unhandled.
      written.catch(() => undefined);
      writes.push(written);
      if (large) await written.catch(() => undefined);
    }
    const settled = await Promise.allSettled(writes);
    let ran = false;
    for (const result of settled) {
      if (result.status === 'rejected') throw result.reason;
      const written = result.value;
      if (written.problem) {
        this.problem(written.problem);
        continue;
      }
      ran = true;
      if (written.told) {
        this.report.graphs++;
        await this.options.onGraph?.(written.told.graph, written.told.entry, written.told.by);
      }
      this.count(written.name, written.why, written.told?.by.findings);
    }
    return ran;
  }

  /** The store derivations, after the sessions: `changed` names the sessions whose graphs changed. */
  async end(changed: ReadonlySet<string>): Promise<void> {
    await this.timed(async () => {
      for (const d of this.storeDerivations) {
        try {
          const done = await d.derive(this.run, changed);
          if (done.wrote) this.count(d.name, changed.size ? 'input changed' : 'version changed');
        } catch (e) {
          this.problem({ derivation: d.name, message: (e as Error).message });
        }
      }
    });
  }

  /** Where the session derivations write for one session. */
  outputsOf(sessionId: string): Output[] {
    return this.sessionDerivations.map((d) => d.output(this.run.soul, sessionId));
  }

  /** Each session derivation's `begin`, once per run, before the first one runs (a reader describes itself). */
  async begin(): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    for (const d of this.sessionDerivations) await d.begin?.(this.run);
  }

  /**
   * Takes in what a pool worker's loop did on one session (session-pool.ts): its counts and
   * problems, and the graphs it wrote, told to the hooks in order as if this loop had written them.
   */
  async adopt(part: DeriveReport, told: readonly ToldGraph[]): Promise<void> {
    if (Object.keys(part.ran).length) await this.begin();
    for (const [name, runs] of Object.entries(part.ran)) {
      const mine = (this.report.ran[name] ??= { runs: 0, why: {} });
      mine.runs += runs.runs;
      for (const [why, n] of Object.entries(runs.why) as [Reason, number][]) mine.why[why] = (mine.why[why] ?? 0) + n;
      if (runs.findings !== undefined) mine.findings = (mine.findings ?? 0) + runs.findings;
    }
    this.report.sessions += part.sessions;
    this.report.skipped += part.skipped;
    this.report.graphs += part.graphs;
    this.report.millis += part.millis;
    this.report.cpuMillis += part.cpuMillis;
    for (const p of part.problems) this.problem(p);
    for (const { graph, entry, by } of told) await this.options.onGraph?.(graph, entry, by);
  }

  /** Each input the due derivations read, made once: from the tap, else from the graph's files. */
  private async inputs(session: SessionRef, wanted: Input<unknown>[], tap?: Tap): Promise<Map<Input<unknown>, unknown>> {
    const made = new Map<Input<unknown>, unknown>();
    const collectors = new Map<Input<unknown>, Collector<unknown>>();
    for (const input of new Set(wanted)) {
      const tapped = tap?.collectors.get(input);
      if (tapped) made.set(input, tapped.done());
      else collectors.set(input, input.collect(session, false));
    }
    if (!collectors.size) return made;
    try {
      const all = [...collectors.values()];
      await feedGraph(this.storeDir, session.entry, (s, p, o, line) => {
        for (const c of all) c.add(s, p, o, line);
      });
      for (const [input, c] of collectors) made.set(input, c.done());
    } catch (e) {
      for (const input of collectors.keys()) made.set(input, e as Error);
    }
    return made;
  }

  /** What `d` makes of `input` for `session`; a failure is a problem of that derivation alone, and nothing is made. */
  private async make(
    d: AnySessionDerivation,
    session: SessionRef,
    input: unknown,
    was: OutputEntry | undefined,
  ): Promise<{ made: Made } | undefined> {
    const output = d.output(this.run.soul, session.sessionId);
    try {
      // Its last output, for an input that appends: only a file, and only one this version made.
      const previous = 'file' in output && was?.builtWith === stampOf(d) ? (was as FileEntry) : undefined;
      return { made: await d.derive(input, session, this.run, previous) };
    } catch (e) {
      // One derivation failing on one session costs only its output, which keeps its last version.
      this.problem({ sessionId: session.sessionId, derivation: d.name, message: (e as Error).message });
      return undefined;
    }
  }

  /** Writes what `d` made through the store writer, stamped with its version and the graph version it read. */
  private async write(d: AnySessionDerivation, why: Reason, session: SessionRef, made: Made, from: SourceStamp): Promise<Written> {
    const output = d.output(this.run.soul, session.sessionId);
    const stamp = { sessionId: session.sessionId, builtWith: stampOf(d), sources: [from] };
    const writer = this.run.writer;
    if ('graph' in output) {
      if (!made || !('text' in made)) throw new Error(`the derivation ${d.name} writes a graph, and made none`);
      const { text, quads, reader, findings } = made;
      try {
        const entry = await writer.writeGraph(output.graph, typeof text === 'string' ? text : madeBy(text), {
          ...(quads === undefined ? {} : { quads }),
          ...(reader ? { reader } : {}),
          ...stamp,
        });
        return {
          name: d.name,
          why,
          told: { graph: output.graph, entry, by: { derivation: d.name, sessionId: session.sessionId, findings } },
        };
      } catch (e) {
        // Text made as it is written fails its derivation alone, as one made before would have.
        if (!(e instanceof MadeFailure)) throw e;
        return { name: d.name, why, problem: { sessionId: session.sessionId, derivation: d.name, message: e.cause.message } };
      }
    }
    if (!made || !('data' in made)) throw new Error(`the derivation ${d.name} writes a file, and made none`);
    await writer.writeFile(output.file, output.path, made.data, stamp);
    return { name: d.name, why };
  }

  /** The manifest's entry for a derivation's output; a file named there but gone from the disk (a search folder removed) is none. */
  private async outputEntry(d: AnySessionDerivation, sessionId: string): Promise<OutputEntry | undefined> {
    const output = d.output(this.run.soul, sessionId);
    if ('graph' in output) return this.run.writer.manifest.graphs[output.graph];
    const entry = this.run.writer.manifest.files?.[output.file];
    return entry && (await exists(join(this.storeDir, entry.file))) ? entry : undefined;
  }

  private count(name: string, why: Reason, findings?: number): void {
    const runs = (this.report.ran[name] ??= { runs: 0, why: {} });
    runs.runs++;
    runs.why[why] = (runs.why[why] ?? 0) + 1;
    if (findings !== undefined) runs.findings = (runs.findings ?? 0) + findings;
  }

  private problem(p: DeriveProblem): void {
    this.report.problems.push(p);
    this.options.onProblem?.(p);
  }

  private async timed(work: () => Promise<void>): Promise<void> {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    try {
      await work();
    } finally {
      const used = process.cpuUsage(cpu);
      this.report.cpuMillis += (used.user + used.system) / 1000;
      this.report.millis += performance.now() - wall;
    }
  }
}
