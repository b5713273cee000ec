import type { SourceLine } from '../acquire/lines.ts';
import type { ContentKind, ContentPolicy } from '../emit/content.ts';
import type { Where, RecordOut, Resolve } from '../emit/contract.ts';
import type { BatchJournal, RecordFacts, StreamFacts } from '../model/facts.ts';
import type { Term, Triple } from '../rdf/terms.ts';
import type { Glossary } from './glossary.ts';

/**
 * A dialect: everything Weave knows about one runtime's transcripts, behind one interface, so
 * the rest of the pipeline never names a runtime. Like a Comunica actor, it is one object made
 * of small parts, each a plain function the pipeline calls at one stage:
 *
 *   discover (acquire) → openTranscript, readLine (read) → emitRecord, observers (emit)
 *   → facts, ids (model) … writtenByRuntime (readers) … glossary (`weave glossary`, the
 *   ontology's native terms)
 *
 * Its records stay its own type `R`; what leaves the dialect is runtime-neutral: sessions and
 * their files, triples in the spine vocabulary (ontology/parts/spine.ttl, which readers and the
 * server read back), and the model's facts (src/model/facts.ts). The dialects Weave reads are
 * listed in src/dialect/index.ts; a new one is its folder and one line there.
 */
export interface Dialect<R extends object = object, T extends TranscriptSource = TranscriptSource> {
  /** Names the dialect and its version (`claude-code/1`); stamped on every graph it builds. */
  readonly id: string;
  /** The URL of the module exporting this object as `dialect`: how a worker thread loads it. */
  readonly module: string;
  /** The class of its transcript nodes (a subclass of weave:Transcript). */
  readonly transcriptClass: Term;
  /** What the runtime calls each term of the conversation model. */
  readonly glossary: Glossary;
  /** Where the runtime keeps its transcripts, read when no path is given (they may not exist). */
  defaultPaths?(env: NodeJS.ProcessEnv): string[];
  /**
   * This dialect's sessions under `paths` (folders or files), with every file that belongs to
   * each and what its side files say. Files of other runtimes are not its own: it leaves them.
   * A folder or file it cannot read (no permission, a broken link) is reported and passed over.
   */
  discover(paths: string[], onProblem?: (problem: Unreadable) => void): Promise<FoundSession<T>[]>;
  /**
   * What the dialect says about a transcript before its lines: read from its side file, if any.
   * `stored` maps the side file's text to what the store is to hold (`--redact-secrets`), as each line is.
   */
  openTranscript(source: T, onProblem: (problem: Unreadable) => void, stored?: (text: string) => string): Promise<TranscriptOpening>;
  /** One line of a transcript: a record of the dialect, or why it is none. */
  readLine(line: SourceLine): LineResult<R>;
  /** The id a record is known by in its session, if it has one: a second record with it is a replay. */
  recordId(record: R): string | undefined;
  /** One record as triples (pure): its Event, the spine below it, and the links left to resolve. */
  emitRecord(record: R, where: Where & { streamKey: string }): RecordOut;
  /**
   * Fresh per session: what the dialect can only write with the whole session in hand. Texts
   * they derive (a title from a prompt) follow the content policy the session is read with.
   */
  observers(content: ContentPolicy): RecordObserver<R>[];
  /** What the model is handed of one record. */
  facts(record: R, at: { source: T; stream: number; line: number; event: Term; session: string }): RecordFacts;
  /** Which of the runtime's ids name one thing in every session: the model names its calls and tool calls by them. */
  readonly ids: IdRules;
  /**
   * Whether a text in the user role was written by the runtime (a wrapped command, a reminder),
   * not typed by a person: readers looking for what a person typed pass it over. Absent: a person
   * typed every user text.
   */
  writtenByRuntime?(text: string): boolean;
}

/**
 * Which ids name one thing wherever they appear. A node named by such an id (minted at random) is
 * shared by every session holding a copy of its record (a resume, a fork, a copied folder); any
 * other id is scoped by its session, since two sessions reusing it may mean two different things.
 */
export interface IdRules {
  /** The IRI path of a node named by `id` (a tool call): the id alone when it names one thing everywhere, else under `session`. */
  idPath(id: string, session: string): string[];
  /** Whether a call's message id, with its request id if it has one, names it in every session. */
  callShared(messageId: string, requestId: string | undefined): boolean;
}

/** What one source line turned out to be. */
export type LineResult<R> =
  | { kind: 'blank' }
  /** A record; `warnings` name what of it could not be read as its dialect expects (kept as data). */
  | ({ kind: 'record'; warnings?: string[] } & R)
  /** A line that is not a record: reported with file and line, the rest still loads. */
  | { kind: 'malformed'; error: string }
  /** A final line with no newline that does not parse yet: a record still being written. */
  | { kind: 'pending' };

/** A file, or a line of one, that could not be read. Never carries what it said. */
export interface Unreadable {
  path: string;
  lineNo: number;
  message: string;
}

/** What a dialect says about one transcript file before its records. */
export interface TranscriptOpening {
  /** Predicates and objects about the transcript node, beyond those every transcript gets. */
  about: [Term, Term][];
  /**
   * Texts of a side file beside the transcript (Claude Code: `.meta.json`), stored about the
   * transcript node under the content policy like any text of a line; `pointer` is where each
   * sits in the side file, and `weave verify` proves them against it as line 0 of the transcript.
   */
  sideTexts?: SideText[];
  /** What the model learns of the stream. */
  stream: StreamFacts;
}

export interface SideText {
  property: Term;
  value: unknown;
  kind: ContentKind;
  pointer: string;
}

/** One transcript file of a session, as discovery found it. */
export interface TranscriptSource {
  path: string;
  /** Where the file sat, in the dialect's words (Claude Code: session, beside, subagents, workflow). */
  layout: string;
  /** A child stream's agent id; absent for the session's own file. */
  agentId?: string;
  /** The batch the child was started in, as tool results and journals name it. */
  batch?: string;
  /** A child with a role of its own: a compaction summariser, which no call starts. */
  role?: 'summariser';
  /** A metadata file beside the transcript (Claude Code: `.meta.json`), read when it opens. */
  metaPath?: string;
}

/** A session as a dialect found it: its transcript files, and what its other files say. */
export interface FoundSession<T extends TranscriptSource = TranscriptSource> {
  /** The session id (unique across the sources read; the graph is named by it). */
  sessionId: string;
  /** The session's own transcript; absent when only its children's files survive. */
  main?: T;
  subagents: T[];
  /** Files of the session that are not transcripts (Claude Code's workflow journals): read at discovery. */
  journals: string[];
  /** What the journals say, for the model. */
  batches: BatchJournal[];
  /** The folder the session was found in. */
  projectDir: string;
}

/** A session to read, with the dialect that reads it. */
export interface SessionSource<T extends TranscriptSource = TranscriptSource> extends FoundSession<T> {
  dialect: Dialect<object, T>;
}

/** All transcript files of a session, main first. */
export function transcriptsOf<T extends TranscriptSource>(session: FoundSession<T>): T[] {
  return session.main ? [session.main, ...session.subagents] : [...session.subagents];
}

/** One transcript file as it is being read. */
export interface TranscriptContext {
  source: TranscriptSource;
  node: Term;
  /** Unique within the session: the session id for the main file, else `agent-<id>`. */
  streamKey: string;
  /** Its place among the session's transcripts (transcriptsOf): the model's stream index. */
  index: number;
}

/** A dialect's own observer: sees each record of a session in the dialect's type as it streams past. */
export interface RecordObserver<R = object> extends Resumable {
  record(transcript: TranscriptContext, line: SourceLine, record: R, event: Term): void;
  /** Called once all files are read; returns derived triples. */
  finish?(resolve: Resolve): Iterable<Triple>;
}

/** Sees each record as the runtime-neutral facts its dialect hands over (the conversation model). */
export interface FactObserver extends Resumable {
  /** A transcript file begins: its node, and what the dialect read about its stream. */
  transcript?(transcript: TranscriptContext, stream: StreamFacts): void;
  record(transcript: TranscriptContext, facts: RecordFacts): void;
  /**
   * Called once all files are read; returns derived triples (again after each load and more
   * records). It reads its own facts only: the emitter has let go of its ids by then.
   */
  finish?(): Iterable<Triple>;
}

/**
 * An observer whose reading can carry on: when a session's files grow, the lines appended are read
 * without the rest, starting from what `save` said after the last read (plain JSON), given back to
 * `load` on a fresh observer. `finish` must not change what `save` would say. An observer without
 * them makes every change to its session a whole read.
 */
interface Resumable {
  save?(): unknown;
  /** `stream` maps a stream index at the save to its index now: files of a session are only ever added. */
  load?(state: unknown, stream: (indexAtSave: number) => number): void;
}
