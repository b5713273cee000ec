import { hostname, userInfo } from 'node:os';
import { archiveUnread } from './acquire/archiving.ts';
import { discoverSessions } from './acquire/discover.ts';
import { canonicalPath } from './acquire/files.ts';
import { planSessions, type Plan, type Planned } from './acquire/sessions.ts';
import { sameStamps } from './acquire/stamps.ts';
import type { Derivation, RecordDerivation } from './derive/derivation.ts';
import { holdHeapGrowth, LARGE_RUN_BYTES } from './derive/heap.ts';
import {
  derivationLoop,
  LARGE_SESSION_BYTES,
  recordDerivations,
  type DerivationLoop,
  type DeriveProblem,
  type DeriveReport,
  type Tap,
} from './derive/loop.ts';
import { DERIVATIONS } from './derive/registry.ts';
import { transcriptsOf, type Dialect, type FactObserver, type SessionSource } from './dialect/dialect.ts';
import { DIALECTS } from './dialect/index.ts';
import { contentPolicyKey, type ContentPolicy } from './emit/content.ts';
import type { SessionCounts } from './emit/contract.ts';
import { searchDocuments, searchIndex } from './search/derivation.ts';
import type { Reader } from './readers/reader.ts';
import { READERS } from './readers/registry.ts';
import { storeSecretKey } from './readers/secret/key.ts';
import { readerDerivation } from './readers/run.ts';
import {
  readSession,
  SessionFailure,
  StoreFailure,
  type LineProblem,
  type ReadTally,
  type SessionRead,
  type SessionReadOptions,
  type SessionToRead,
  type WrittenBy,
} from './session-read.ts';
import { defaultJobs, jobOf, revived, SessionPool, type PooledRead } from './session-pool.ts';
import type { GraphDelta, GraphEntry, Manifest } from './store/manifest.ts';
import { RemoteStore, tellOfCut } from './store/remote/client.ts';
import { readRemoteConfig } from './store/remote/config.ts';
import { heldElsewhere, pathInSession, recordHeld, type HeldCopy, type HeldSession } from './store/remote/owners.ts';
import { lockStore, openStoreForWriting, recoverStore, type StoreWriter } from './store/writer.ts';
import { WEAVE } from './store/emitter.ts';

export type { LineProblem } from './session-read.ts';

/**
 * Ingest: the sessions found under the paths, each read into its graph when its files changed
 * (with the record derivations watching), then one loop of derivations (src/derive/) over every
 * session graph whose derived outputs are stale, and the derivations across sessions last. All of
 * it is written through one store writer, under the store's lock.
 */

export interface IngestProgress {
  sessionsDone: number;
  sessionsTotal: number;
  files: number;
  records: number;
  bytes: number;
  /** Graphs the external store holds from this run so far (a store with remote.json). */
  sent?: number;
}

/** A graph a reader wrote, as `weave detect` and the server's loader take it. */
export interface ReaderGraph {
  /** Absent for a reader's own graph (the detector's description). */
  sessionId?: string;
  reader: string;
  graph: string;
  entry: GraphEntry;
  findings: number;
}

export interface IngestOptions {
  storeDir: string;
  soul: string;
  /** Read every session again, even those whose files have not changed. */
  force?: boolean;
  onProgress?: (progress: IngestProgress) => void;
  onProblem?: (problem: LineProblem) => void;
  /** Called after each session's graph file is in place (its manifest entry may still be pending). */
  onSession?: (
    session: SessionSource,
    graph: string,
    counts: SessionCounts & { entry: GraphEntry; delta?: GraphDelta },
  ) => void | Promise<void>;
  /**
   * Called when a graph a derivation wrote changed (a reader's, the links across sessions); no
   * entry: it went (so do a session's graph and its readers' when its files now make another session).
   */
  onGraph?: (graph: string, entry: GraphEntry | undefined) => void | Promise<void>;
  /** Per-session observers of the records' facts, in place of the record derivations (the conversation model). */
  observers?: (session: SessionSource, soul: string) => FactObserver[];
  /** How much of each text to store (`--content`, `--text-limit`); default DEFAULT_POLICY. */
  content?: ContentPolicy;
  /** The dialects that find and read the sources; default every one Weave knows (src/dialect/index.ts). */
  dialects?: readonly Dialect[];
  /** Keep the store's full-text index (`<store>/search/`) current; default true. */
  search?: boolean;
  /** Told when the store lock is taken over from a process that no longer runs, and what it left is removed. */
  onNote?: (note: string) => void;
  /** Keep a compressed copy of every source line read in the store (default true; `--no-archive` says false). */
  archive?: boolean;
  /** Read every session the store holds again: from its files, or from the archive where they are gone. */
  rebuild?: boolean;
  /** The readers to run (each a derivation, on every session whose reader graph is stale); none when not given. */
  readers?: {
    list: readonly Reader[];
    onGraph?: (graph: ReaderGraph) => void | Promise<void>;
    onProblem?: (problem: DeriveProblem) => void;
  };
  /** The derivations to run, in place of those `observers`, `search` and `readers` choose from the registry. */
  derivations?: readonly Derivation[];
  /** Transcripts past this many bytes make a large session, whose derivations read its graph files one input at a time (derive/loop.ts). */
  largeSessionBytes?: number;
  /** A run reading more than this many bytes holds the heap's growth throughout (derive/heap.ts; default LARGE_RUN_BYTES). */
  largeRunBytes?: number;
  /**
   * Sessions read side by side, each in a thread of its own (session-pool.ts); default one per
   * core, and only for a run with at least POOL_FROM_BYTES to read. 1: every session in this thread.
   */
  jobs?: number;
  /** A pass of live reading (weave serve, ingest --watch) after a first run: see DeriveRun.live. */
  live?: boolean;
  /** Asked to stop (Ctrl-C): no session is begun after it, and what was read is stored as at the end of a run. */
  stop?: AbortSignal;
}

export interface IngestReport {
  sessions: number;
  skipped: number;
  /** Sessions read before whose files only grew: only their appended lines were read. */
  carriedOn: number;
  files: number;
  records: number;
  bytes: number;
  quads: number;
  malformed: number;
  pending: number;
  replayed: number;
  /** Source bytes newly copied into the archive. */
  archived: number;
  /** Sessions read with files that are gone, from the archive: their transcripts are marked archived-only. */
  archivedOnly: number;
  /** Sessions whose files are gone without an archive to read them from: their graphs stay as they are. */
  unarchived: string[];
  /** Records read with a field kept as JSON only (see LineProblem). */
  warnings: number;
  /** Sessions skipped because a file of theirs could not be read. */
  unreadable: number;
  /** Sessions skipped because reading them failed inside Weave. */
  failed: number;
  problems: LineProblem[];
  millis: number;
  /** Why the search index could not be kept current this run (weave search rebuilds it), if it could not. */
  searchIndex?: string;
  /** Graphs sent to the external store (a store with remote.json), and how many of them its bulk loader loaded. */
  external?: { graphs: number; bulk: number };
  /** What the derivations did: which ran, on how many sessions and why, with the wall and CPU time they took. */
  derived: DeriveReport;
  /** Sessions left unread because the run was asked to stop (`stop`): the next run reads them. */
  notRead?: number;
  /**
   * Sessions new to this machine that the external store already holds under another soul (a
   * copy of a session read on another machine): not added again. Each with the soul holding it.
   */
  heldElsewhere?: { sessionId: string; soul: string }[];
  /** The readers' share of it (when asked for): sessions, graphs and findings. */
  readers?: {
    sessions: number;
    skipped: number;
    graphs: number;
    findings: Record<string, number>;
    problems: DeriveProblem[];
    millis: number;
    cpuMillis: number;
  };
}

/** The emitter version, kept where the light entry can read it without the ingest (store/emitter.ts). */
export { WEAVE };

/** Sessions to read of fewer bytes than this are read in one thread: starting the reading threads takes longer. */
export const POOL_FROM_BYTES = 8 << 20;

/** Reads transcripts into the store directory, one graph per session, holding the store's lock. */
export async function ingest(paths: string[], options: IngestOptions): Promise<IngestReport> {
  const lock = await lockStore(options.storeDir, { onNote: options.onNote });
  try {
    const run = await Ingest.open(paths, options);
    return await run.all();
  } finally {
    await lock.release();
  }
}

/** The derivations an ingest runs: `derivations` as given, else those its options choose from the registry. */
export function derivationsOf(options: Pick<IngestOptions, 'derivations' | 'observers' | 'search' | 'readers'>): readonly Derivation[] {
  if (options.derivations) return options.derivations;
  const chosen: Derivation[] = DERIVATIONS.filter((d) => {
    if (d === searchDocuments || d === searchIndex) return options.search !== false;
    if (d.reads === 'records') return !options.observers;
    return typeof d.reads !== 'object' || d.reads.name !== 'spine';
  });
  // The readers asked for (a test's own too), in the order given.
  chosen.push(...(options.readers?.list ?? []).map(readerDerivation));
  if (options.observers)
    chosen.unshift({
      name: 'observers',
      version: 'given',
      description: 'observers given to ingest',
      reads: 'records',
      observers: options.observers,
    });
  return chosen;
}

/** One ingest run: its store writer, its derivations, what it has read so far. */
class Ingest {
  readonly report: IngestReport;
  private readonly progress: IngestProgress = { sessionsDone: 0, sessionsTotal: 0, files: 0, records: 0, bytes: 0 };
  private readonly tally: ReadTally;
  /** Sessions whose graphs this run wrote or removed: the store derivations' input. */
  private readonly changed = new Set<string>();
  private readonly records: RecordDerivation[];
  private readonly policy: string;

  private constructor(
    private readonly options: IngestOptions,
    private readonly writer: StoreWriter,
    private readonly loop: DerivationLoop,
    private readonly plan: Plan,
    problems: LineProblem[],
    list: readonly Derivation[],
    /** When the run began, discovery included. */
    private readonly started: number,
    /** An external store, fed by several machines: who writes, and the sessions found that another soul holds. */
    private readonly shared?: SharedStore,
  ) {
    this.report = emptyReport(problems, loop.report);
    this.report.unarchived = plan.unarchived;
    this.tally = { files: 0, records: 0, bytes: 0, archived: 0, problems: this.report.problems };
    this.progress.sessionsTotal = plan.sessions.length;
    this.records = recordDerivations(list);
    // A store built under another content policy holds other texts: it is rebuilt.
    this.policy = contentPolicyKey(options.content);
  }

  /** Finds the sessions, opens the store writer (the one place ingest's options reach it) and plans the run. */
  static async open(paths: string[], options: IngestOptions): Promise<Ingest> {
    const started = performance.now();
    const problems: LineProblem[] = [];
    const problem = (p: LineProblem) => {
      problems.push(p);
      options.onProblem?.(p);
    };
    // A folder or file that cannot be read is reported and skipped; the rest is read.
    const discovered = await discoverSessions(paths, options.dialects, (p) => problem({ ...p, kind: 'unreadable' }));
    const external = { graphs: 0, bulk: 0 };
    let run: Ingest | undefined;
    const writer = await openStoreForWriting(options.storeDir, options.soul, {
      onSent: (graphs, bulk) => {
        external.graphs += graphs;
        if (bulk) external.bulk += graphs;
        run?.sent(external);
      },
      onNote: options.onNote,
    });
    const roots = await Promise.all(paths.map(canonicalPath));
    writer.addRoots(roots);
    const list = derivationsOf(options);
    const loop = derivationLoop(writer, list, { ...hooksOf(options), largeSession: options.largeSessionBytes, live: options.live });
    try {
      const plan = await planSessions(discovered, writer.manifest, options.storeDir, { roots, rebuild: options.rebuild });
      const shared = await sharedStore(options.storeDir, options.soul, plan, writer.manifest, options.onNote);
      run = new Ingest(options, writer, loop, plan, problems, list, started, shared);
      if (shared?.held.length) run.report.heldElsewhere = shared.held.map(({ sessionId, soul }) => ({ sessionId, soul }));
      // Graphs a cut load left, sent again as the writer opened.
      if (external.graphs) run.sent(external);
      return run;
    } catch (e) {
      await writer.close().catch(() => writer.abandon());
      throw e;
    }
  }

  async all(): Promise<IngestReport> {
    // A large session due, or much to read: the heap held from the first read to the index.
    const due = this.plan.sessions.filter((p) => this.due(p));
    const bytes = due.reduce((n, p) => n + sizeOf(p), 0);
    const large = due.some((p) => this.loop.large(p.stamps)) || bytes > (this.options.largeRunBytes ?? LARGE_RUN_BYTES);
    const release = large ? holdHeapGrowth() : undefined;
    try {
      return await this.readAll();
    } finally {
      release?.();
    }
  }

  private async readAll(): Promise<IngestReport> {
    let pool: SessionPool | undefined;
    // Sessions a worker took whose reads this writer has not adopted: their files go once the manifest is written.
    let unadopted = 0;
    try {
      await this.removeRegrouped();
      // The sessions a reading thread may take: due, and not large (a large one is read in this thread, whose heap is sized for it).
      const threadable = this.plan.sessions.map((p) => (this.loop.large(p.stamps) ? undefined : this.due(p)));
      pool = await this.pool(threadable);
      // The sessions the pool's threads take are handed to it at once, and what they read is
      // adopted in the plan's order. This thread reads its share in its turn: the sessions that keep
      // its bytes at one part in (threads + 1), so it works from the start, while the threads start.
      let [here, there] = [0, 0];
      const reads = this.plan.sessions.map((planned, i) => {
        const target = threadable[i];
        if (!pool || !target) return undefined;
        const bytes = sizeOf(planned);
        if (here * pool.size <= there) {
          here += bytes;
          return undefined;
        }
        there += bytes;
        unadopted++;
        const read = pool.read(jobOf(target, this.writer.manifest, this.loop.outputsOf(target.sessionId)));
        read.catch(() => undefined); // a session left unread after a stop or a failure: not waited for
        return { read };
      });
      for (const [i, planned] of this.plan.sessions.entries()) {
        if (this.options.stop?.aborted) {
          this.report.notRead = this.plan.sessions.length - this.progress.sessionsDone;
          break;
        }
        const pooled = reads[i];
        const done = pooled && (await pooled.read.catch((e: Error) => e));
        if (done && !(done instanceof Error)) await this.adoptRead(planned, done);
        // Not read by a thread (this thread's share, or its thread died or could not start): read here.
        else await this.session(planned);
        if (pooled && !(done instanceof Error)) unadopted--;
        this.progress.sessionsDone++;
        this.options.onProgress?.(this.progress);
      }
      await pool?.close();
      Object.assign(this.report, { files: this.tally.files, records: this.tally.records, bytes: this.tally.bytes });
      this.report.warnings = this.report.problems.filter((p) => p.kind === 'warning').length;
      this.report.archived += this.tally.archived;
      // An external store loads the last sessions while the links and the search index are made.
      this.writer.sendGathered();
      await this.loop.end(this.changed);
      if (this.shared) await recordHeld(this.writer, this.shared.found, this.shared.held);
    } catch (e) {
      // The sessions stored before the failure keep their entries; the error is the one to report.
      await pool?.close();
      await this.writer.close().catch(() => this.writer.abandon());
      if (unadopted) await recoverStore(this.options.storeDir).catch(() => undefined);
      throw e;
    }
    await this.writer.close();
    // What workers wrote for sessions left unread (a stop): no manifest names it.
    if (unadopted) await recoverStore(this.options.storeDir);
    return this.finish();
  }

  /** Graphs the external store now holds from this run: in the report, and on the progress line as they are loaded. */
  sent(external: { graphs: number; bulk: number }): void {
    this.report.external = { ...external };
    this.progress.sent = external.graphs;
    this.options.onProgress?.(this.progress);
  }

  /** Sessions now part of another go, with every graph derived from them. */
  private async removeRegrouped(): Promise<void> {
    for (const graph of this.plan.regrouped) {
      const sessionId = this.writer.manifest.graphs[graph].sessionId;
      for (const [name, entry] of Object.entries(this.writer.manifest.graphs))
        if (name === graph || (entry.reader && entry.sessionId === sessionId)) {
          await this.writer.removeGraph(name);
          // A live server holds them too: told, it drops them as the manifest does.
          await this.options.onGraph?.(name, undefined);
        }
      for (const [name, entry] of Object.entries(this.writer.manifest.files ?? {}))
        if (entry.sessionId === sessionId) await this.writer.removeFile(name);
      if (sessionId) this.changed.add(sessionId);
    }
  }

  /** What reading a planned session takes, when its files (or how it is read) changed; none when it is current. */
  private due({ session, graph, stamps }: Planned): SessionToRead | undefined {
    const options = this.options;
    const builtWith = [`${session.dialect.id}+${WEAVE}`, ...this.records.map((d) => `${d.name}@${d.version}`)].join('+');
    const stamp = `${builtWith} ${this.policy}`;
    const previous = this.writer.manifest.graphs[graph];
    if (!options.force && !options.rebuild && previous?.builtWith === stamp && sameStamps(previous.sources, stamps)) return undefined;
    return {
      session,
      graph,
      stamps,
      sessionId: session.sessionId,
      builtWith: stamp,
      previous,
      keep: this.keep(),
      whole: options.force || options.rebuild,
    };
  }

  /** Whether what is read is copied into the archive: a redacted store keeps none (it would hold every secret the graph does not). */
  private keep(): boolean {
    return (this.options.archive ?? true) && !this.options.content?.redactSecrets;
  }

  /** One planned session: read when it is due, then its stale derivations. */
  private async session(planned: Planned): Promise<void> {
    const { session, graph, stamps } = planned;
    const target = this.due(planned);
    if (!target) {
      const previous = this.writer.manifest.graphs[graph];
      this.report.skipped++;
      // A session read before the archive was kept (or without it) is copied in now, unread.
      if (this.keep()) this.report.archived += await archiveUnread(this.writer, graph, previous, session, stamps);
      await this.loop.session({ sessionId: session.sessionId, graph, entry: previous });
      return;
    }
    let done: Awaited<ReturnType<typeof readTapped>>;
    try {
      done = await readTapped(this.readContext(), target);
    } catch (e) {
      // One session that cannot be read costs that session only; its earlier graph stays.
      if (e instanceof StoreFailure) throw e.cause;
      this.failed(e, session);
      return;
    }
    await this.stored(planned, done.read);
    await this.loop.session({ sessionId: session.sessionId, graph, entry: done.read.entry }, done.tap);
  }

  /** A session's read now in the store: counted, and told to the run's hook. */
  private async stored({ session, graph, stamps }: Planned, read: SessionRead): Promise<void> {
    this.counted(
      read,
      stamps.some((s) => s.gone),
    );
    this.changed.add(session.sessionId);
    await this.options.onSession?.(session, graph, { ...read.counts, entry: read.entry, delta: read.delta });
  }

  /** Takes in what a worker did with a session, as if this thread had read it: its files, problems, counts and derivations. */
  private async adoptRead(planned: Planned, done: PooledRead): Promise<void> {
    if (done.storeFailure) throw revived(done.storeFailure);
    await this.writer.adopt(done.recorded);
    const { tally } = this;
    tally.files += done.tally.files;
    tally.records += done.tally.records;
    tally.bytes += done.tally.bytes;
    tally.archived += done.tally.archived;
    for (const p of done.problems) {
      tally.problems.push(p);
      this.options.onProblem?.(p);
    }
    for (const note of done.notes) this.options.onNote?.(note);
    this.tallied();
    if (done.failure) {
      this.failed(new SessionFailure(done.failure.path, done.failure.lineNo, revived(done.failure.cause)), planned.session);
      return;
    }
    await this.stored(planned, done.read!);
    await this.loop.adopt(done.derived, done.told);
  }

  /**
   * The pool of reading threads for this run, when it is worth one: more than one job asked for (by
   * default one per core), sessions to read of at least POOL_FROM_BYTES (a few small sessions are
   * read sooner than threads start) unless `jobs` was given, and a run of the registry's own
   * derivations and dialects, which a thread can make again from their names.
   */
  private async pool(threadable: readonly (SessionToRead | undefined)[]): Promise<SessionPool | undefined> {
    const { options } = this;
    const jobs = options.jobs ?? defaultJobs();
    if (jobs < 2 || options.derivations || options.observers) return undefined;
    const readers = options.readers?.list ?? [];
    if (!readers.every((r) => READERS.includes(r))) return undefined;
    const dialects = (options.dialects ?? DIALECTS).map((d) => d.module);
    if (dialects.some((m) => !m)) return undefined;
    const toRead = this.plan.sessions.filter((_, i) => threadable[i]);
    const bytes = toRead.reduce((n, p) => n + sizeOf(p), 0);
    if (toRead.length < 2 || (options.jobs === undefined && bytes < POOL_FROM_BYTES)) return undefined;
    // The key the secret reader digests with is made here, under the lock, before a thread reads it.
    if (readers.length) await storeSecretKey(this.writer);
    // This thread is one of the jobs: it reads too.
    return new SessionPool(Math.min(jobs - 1, toRead.length - 1), {
      storeDir: options.storeDir,
      soul: options.soul,
      content: options.content,
      search: options.search !== false,
      readers: readers.map((r) => r.name),
      largeSession: options.largeSessionBytes ?? LARGE_SESSION_BYTES,
      writtenBy: this.shared?.writtenBy,
      dialects,
    });
  }

  private failed(e: unknown, session: SessionSource): void {
    failedSession(
      e instanceof SessionFailure ? e : new SessionFailure(transcriptsOf(session)[0]?.path ?? session.projectDir, 0, e),
      session.sessionId,
      this.report,
      this.options.onProblem,
    );
  }

  /** What a session's read is handed here: the run's writer, loop, record derivations and tally. */
  private readContext(): ReadContext {
    const { storeDir, soul, content, onProblem, onProgress, onNote } = this.options;
    return {
      writer: this.writer,
      loop: this.loop,
      records: this.records,
      tally: this.tally,
      options: {
        storeDir,
        soul,
        writtenBy: this.shared?.writtenBy,
        content,
        onProblem,
        onNote,
        onFile: () => {
          this.tallied();
          onProgress?.(this.progress);
        },
      },
    };
  }

  /** The progress line's counts, as the tally has them now. */
  private tallied(): void {
    Object.assign(this.progress, { files: this.tally.files, records: this.tally.records, bytes: this.tally.bytes });
  }

  private counted(read: SessionRead, archivedOnly: boolean): void {
    const { counts, carriedOn } = read;
    this.report.sessions++;
    if (carriedOn) this.report.carriedOn++;
    if (archivedOnly) this.report.archivedOnly++;
    this.report.quads += counts.triples;
    this.report.malformed += counts.malformed;
    this.report.pending += counts.pending;
    this.report.replayed += counts.replayed;
  }

  private finish(): IngestReport {
    const derived = this.loop.report;
    const search = derived.problems.find((p) => p.derivation.startsWith('search/'));
    if (search) this.report.searchIndex = search.message;
    const readers = this.options.readers?.list;
    if (readers) {
      const names = new Set(readers.map((r) => r.name));
      this.report.readers = {
        sessions: derived.sessions,
        skipped: derived.skipped,
        graphs: derived.graphs,
        findings: Object.fromEntries(readers.map((r) => [r.name, derived.ran[r.name]?.findings ?? 0])),
        problems: derived.problems.filter((p) => names.has(p.derivation)),
        millis: derived.millis,
        cpuMillis: derived.cpuMillis,
      };
    }
    this.report.millis = performance.now() - this.started;
    return this.report;
  }
}

/**
 * For an external store (remote.json), which several machines may feed: who writes (stated on
 * each session graph), and the sessions new to this machine that another soul already holds
 * there, taken out of the plan (a session copied to two machines is one session).
 */
interface SharedStore {
  writtenBy: WrittenBy;
  /** Every session this run found. */
  found: Set<string>;
  held: HeldSession[];
}

async function sharedStore(
  storeDir: string,
  soul: string,
  plan: Plan,
  manifest: Readonly<Manifest>,
  onNote?: (note: string) => void,
): Promise<SharedStore | undefined> {
  const config = await readRemoteConfig(storeDir);
  if (!config) return undefined;
  const remote = new RemoteStore(config);
  // Asked once a process (a live one ingests every few seconds); a store that cannot be reached
  // now fails this run only where it would have without the question.
  await tellOfCut(remote, (note) => onNote?.(note));
  const fresh = plan.sessions.filter((p) => !manifest.graphs[p.graph]).map((p) => p.session.sessionId);
  const copies = fresh.length ? await heldElsewhere(remote, soul, fresh) : new Map<string, HeldCopy>();
  // A copy held there whole is left to its soul; one that went on here (a file it lacks, or longer) is read, or its new lines are lost.
  const owner = (p: Planned) => {
    const copy = copies.get(p.session.sessionId);
    if (!copy) return undefined;
    for (const { path } of transcriptsOf(p.session)) {
      const size = p.stamps.find((s) => s.path === path)?.size ?? 0;
      if ((copy.bytes.get(pathInSession(path, p.session.sessionId)) ?? -1) < size) return undefined;
    }
    return copy.soul;
  };
  const found = new Set(plan.sessions.map((p) => p.session.sessionId));
  const held = plan.sessions
    .map((p) => ({ sessionId: p.session.sessionId, soul: owner(p), paths: p.stamps.map((s) => s.path).sort() }))
    .filter((h): h is HeldSession => h.soul !== undefined)
    .sort((x, y) => x.sessionId.localeCompare(y.sessionId));
  const left = new Set(held.map((h) => h.sessionId));
  plan.sessions = plan.sessions.filter((p) => !left.has(p.session.sessionId));
  return { writtenBy: whoWrites(), found, held };
}

/** This machine's name and the user running Weave (a system without a user database: $USER). */
function whoWrites(): WrittenBy {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
  return { host: hostname(), user };
}

function emptyReport(problems: LineProblem[], derived: DeriveReport): IngestReport {
  return {
    sessions: 0,
    skipped: 0,
    carriedOn: 0,
    files: 0,
    records: 0,
    bytes: 0,
    quads: 0,
    malformed: 0,
    pending: 0,
    replayed: 0,
    archived: 0,
    archivedOnly: 0,
    unarchived: [],
    warnings: 0,
    unreadable: 0,
    failed: 0,
    problems,
    millis: 0,
    derived,
  };
}

/** What reading one session needs of its run, in this thread or a pool worker's (session-pool.ts). */
export interface ReadContext {
  writer: StoreWriter;
  loop: DerivationLoop;
  records: readonly RecordDerivation[];
  tally: ReadTally;
  options: Omit<SessionReadOptions, 'observers' | 'onBegin' | 'onTriple'>;
}

/**
 * Reads one session into its graph with the record derivations watching, its triples tapped for
 * the session derivations to read next; throws a SessionFailure, or a StoreFailure for the store's own.
 */
export async function readTapped(ctx: ReadContext, target: SessionToRead): Promise<{ read: SessionRead; tap?: Tap }> {
  let tap: Tap | undefined;
  const { session, graph, stamps } = target;
  const read = await readSession(
    ctx.writer,
    target,
    {
      ...ctx.options,
      observers: (source, soul) => ctx.records.flatMap((d) => d.observers(source, soul)),
      // Begun again with each read: a read carried on that must be read whole starts over.
      onBegin: (carriedOn) => void (tap = ctx.loop.tap({ sessionId: session.sessionId, graph }, carriedOn, stamps)),
      onTriple: (t) => tap?.add(t.s, t.p, t.o),
    },
    ctx.tally,
  );
  return { read, tap };
}

/** The derivation loop's hooks, as ingest's options ask for them: a reader's graphs to its hook, others to `onGraph`. */
function hooksOf(options: IngestOptions) {
  const readers = options.readers;
  return {
    onGraph: async (graph: string, entry: GraphEntry | undefined, by: { sessionId?: string; findings?: number }) => {
      if (entry?.reader && readers)
        await readers.onGraph?.({ sessionId: by.sessionId, reader: entry.reader, graph, entry, findings: by.findings ?? 0 });
      else await options.onGraph?.(graph, entry);
    },
    onProblem: (p: DeriveProblem) => {
      if (readers?.list.some((r) => r.name === p.derivation)) readers.onProblem?.(p);
    },
  };
}

/** A planned session's size: its files' bytes. */
function sizeOf({ stamps }: Planned): number {
  return stamps.reduce((n, s) => n + s.size, 0);
}

/** Errors of the sources' own files and folders: the session is skipped, the run goes on. */
const IO_ERRORS = new Set(['EACCES', 'EPERM', 'ENOENT', 'EISDIR', 'ENOTDIR', 'ELOOP', 'EIO', 'EMFILE', 'ENFILE', 'ENAMETOOLONG']);

/** Counts and reports a session skipped: unreadable (a file error) or failed (a fault inside Weave, with its frames). */
function failedSession(at: SessionFailure, sessionId: string, report: IngestReport, onProblem?: (p: LineProblem) => void): void {
  const io = (at.cause as NodeJS.ErrnoException)?.code;
  const unreadable = !!io && IO_ERRORS.has(io);
  if (unreadable) report.unreadable++;
  else report.failed++;
  const problem: LineProblem = {
    path: at.path,
    lineNo: at.lineNo,
    kind: unreadable ? 'unreadable' : 'failed',
    // The error's kind, never its message: it can quote the data.
    message: unreadable
      ? `cannot be read (${io}); session ${sessionId} skipped`
      : `reading failed (${(at.cause as Error)?.name ?? 'error'}); session ${sessionId} skipped`,
    ...(unreadable
      ? {}
      : {
          frames: String((at.cause as Error)?.stack ?? '')
            .split('\n')
            .filter((l) => /^\s+at /.test(l))
            .map((l) => l.trim()),
        }),
  };
  report.problems.push(problem);
  onProblem?.(problem);
}
