import { createHash } from 'node:crypto';
import type { FactObserver, SessionSource } from '../dialect/dialect.ts';
import type { Term } from '../rdf/terms.ts';
import type { GraphLine } from './graph-input.ts';
import type { FileEntry, GraphEntry, SourceStamp } from '../store/manifest.ts';
import type { StoreWriter } from '../store/writer.ts';

/**
 * A derivation: one thing ingest derives, with a name, a version, what it reads and what it
 * writes. Ingest is one loop over them (loop.ts): a session's records are read once, lowered to
 * its graph with every record derivation watching; each session derivation then derives from the
 * session graph (the triples as they are written, or read back from its files) when its output is
 * missing, its input changed or its version did; the store derivations last. A derivation whose
 * input and version are unchanged is not run again. Adding one is a file and a line in
 * registry.ts.
 *
 * Like a reader's findings, what a derivation makes is handed to the loop, which writes it
 * through the store writer with the stamp that says what it was derived from.
 */
export type Derivation = RecordDerivation | AnySessionDerivation | StoreDerivation;

/** A session derivation of whatever input: the loop hands each the input it names. */
// biome-ignore lint/suspicious/noExplicitAny: the input type pairs with the derivation's own `reads`, checked where each is defined.
export type AnySessionDerivation = SessionDerivation<any>;

interface Named {
  /** Unique among the derivations; a reader's is its own name (`emojikey/harvest`). */
  readonly name: string;
  /** Bumped whenever its output for the same input can change: its outputs are derived again. */
  readonly version: string;
  /** One sentence for `weave ingest --explain` and the design notes. */
  readonly description: string;
}

/**
 * Reads the session's records as they are read (the conversation model, a dialect's own extras),
 * and writes into the session graph's derived part. Its version is part of the session graph's
 * stamp, so bumping it reads the sessions again: records are only had by reading the files.
 */
export interface RecordDerivation extends Named {
  readonly reads: 'records';
  observers(session: SessionSource, soul: string): FactObserver[];
}

/** One session graph as the session derivations see it. */
export interface SessionRef {
  sessionId: string;
  graph: string;
  entry: GraphEntry;
}

/**
 * Something made from a session graph's triples as they pass, one at a time (terms as N-Triples
 * text), with where each one's line is when they are read from the graph's files.
 */
export interface Collector<I> {
  add(s: Term, p: Term, o: Term, line?: GraphLine): void;
  done(): I;
}

/**
 * A view of a session graph that derivations read, made once per session whoever reads it (the
 * readers all read one spine). `appends`: a read carried on (only appended lines read) feeds it
 * only the new triples, and the derivation adds them to what it made before; otherwise it is fed
 * the whole graph from its files.
 */
export interface Input<I> {
  readonly name: string;
  readonly appends?: boolean;
  collect(session: Pick<SessionRef, 'sessionId' | 'graph'>, carriedOn: boolean): Collector<I>;
}

/** Where a session derivation's output for one session is named in the manifest. */
export type Output = { graph: string } | { file: string; path: string };

/**
 * A session's store file in `folder`: named `<folder>/<sessionId>` in the manifest, at a path
 * from the id's SHA-1 (a session id may hold characters a file name should not).
 */
export function sessionFile(folder: string, sessionId: string): { file: string; path: string } {
  return { file: `${folder}/${sessionId}`, path: `${folder}/${createHash('sha1').update(sessionId).digest('hex')}.json` };
}

/** What a session derivation made for one session; the loop writes it with its stamp. */
export type Made =
  /** A graph: its text, which may be made part by part as it is written, and its quads (else its lines are counted). */
  | { text: string | Iterable<string>; quads?: number; reader?: string; findings?: number }
  /** A store file: its text, which may be made part by part as it is written. */
  | { data: string | Iterable<string> }
  | undefined;

export interface SessionDerivation<I> extends Named {
  readonly reads: Input<I>;
  /** Its output for one session: a graph, or a store file (its manifest name and path). */
  output(soul: string, sessionId: string): Output;
  /** Once per run before any session, when the derivation is due somewhere (a reader describes itself). */
  begin?(run: DeriveRun): Promise<void>;
  /** Its output for one session, from the input; `previous` is its last output's file, for an input that appends. */
  derive(input: I, session: SessionRef, run: DeriveRun, previous?: FileEntry): Made | Promise<Made>;
}

/** Reads across sessions (the links between them, the search index over every session's documents). */
export interface StoreDerivation extends Named {
  readonly reads: 'store';
  /** Run after the sessions: `changed` names the sessions whose graphs this run wrote or removed. */
  derive(run: DeriveRun, changed: ReadonlySet<string>): Promise<StoreDerived>;
}

/** What a store derivation did: whether it wrote anything (a graph it wrote is told to the run's hooks through `DeriveRun.wrote`). */
export interface StoreDerived {
  wrote: boolean;
}

/** What every derivation is handed: the store it writes, and what the run knows. */
export interface DeriveRun {
  writer: StoreWriter;
  soul: string;
  /**
   * A pass of live reading (weave serve, ingest --watch), which comes every few seconds: a store
   * derivation that asks an external store about other machines may ask less often.
   */
  live: boolean;
  /** The store's key for digests of secrets, made on first use. */
  secretKey(): Promise<Buffer>;
  /** Says a graph a derivation wrote itself (a store derivation's, a reader's description) to the run's hooks. */
  wrote(graph: string, entry: GraphEntry | undefined): Promise<void>;
}

/** A derivation's stamp on what it writes: `<name>@<version>`. */
export function stampOf(derivation: Pick<Named, 'name' | 'version'>): string {
  return `${derivation.name}@${derivation.version}`;
}

/** Why a derivation ran on a session (or the store), as `weave ingest` says it. */
export type Reason = 'new' | 'input changed' | 'version changed' | 'asked';

/** Whether an output stamped `entry` is current for input `from` and `derivation`, else why not. */
export function staleness(
  entry: { builtWith?: string; sources?: SourceStamp[] } | undefined,
  derivation: Pick<Named, 'name' | 'version'>,
  from: SourceStamp,
): Reason | undefined {
  if (!entry) return 'new';
  if (entry.builtWith !== stampOf(derivation)) return 'version changed';
  const was = entry.sources?.[0];
  if (!was || was.path !== from.path || was.size !== from.size || was.mtimeMs !== from.mtimeMs) return 'input changed';
  return undefined;
}
