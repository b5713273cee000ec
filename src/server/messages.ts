import type { QueryTime } from '../federation/query-time.ts';
import type { ContentPolicy } from '../emit/content.ts';
import type { IngestProgress, IngestReport } from '../ingest.ts';
import type { GraphForm } from '../query/formats.ts';
import type { GraphDelta, NamedFile } from '../store/manifest.ts';
import type { JsonTerm } from '../query/table.ts';

/**
 * Everything that crosses between the main thread and a worker thread: what the server asks of
 * a query worker and what it answers, what the ingest thread reports, and what each thread is
 * started with. Plain data only (it is copied by structured clone): no classes, no functions.
 * Both sides import this module; it imports nothing of theirs.
 */

// ---- the query workers (http/ and workers/pool.ts ⇄ workers/query-worker.ts)

export interface QueryJob {
  op: 'query';
  query: string;
  defaultGraphs: string[];
  namedGraphs: string[];
  /** CONSTRUCT or DESCRIBE: the answer is a graph, not solutions. */
  graphResult: boolean;
  /** The formats the client accepts for this query's result kind, best first. */
  accept: string[];
  baseIri: string;
  /**
   * How triple terms are written: as they are (`1.2`), as RDF 1.1 reification (`1.1`; literals in
   * solutions), as RDF-star (`star`), or as literals of their N-Triples text (`literal`).
   */
  tripleTerms: GraphForm;
  maxResultBytes: number;
  /** Run with Comunica, joined with these allow-listed sources and SERVICE endpoints, within `time` (the request's timeout). */
  federation?: { sources: string[]; allow: string[]; time?: QueryTime };
}

export interface UpdateJob {
  op: 'update';
  update: string;
  usingGraphs: string[];
  usingNamedGraphs: string[];
  baseIri: string;
}

/** A Graph Store Protocol read. `graph: null` is the store's own default graph. */
export interface GraphReadJob {
  op: 'graph-read';
  graph: string | null;
  accept: string[];
  /** How triple terms are written, as in `QueryJob`. */
  tripleTerms: GraphForm;
  maxResultBytes: number;
}

export interface RdfPart {
  text: string;
  /** The media type Oxigraph parses it as. */
  format: string;
}

export interface GraphWriteJob {
  op: 'graph-write';
  method: 'PUT' | 'POST' | 'DELETE';
  graph: string | null;
  parts: RdfPart[];
  baseIri: string;
}

interface StatsJob {
  op: 'stats';
}

export interface DescribeJob {
  op: 'describe';
  iri: string;
  /** Formats for an RDF answer, best first; empty asks for the data behind the HTML page. */
  accept: string[];
  maxResultBytes: number;
}

export type Job = QueryJob | UpdateJob | GraphReadJob | GraphWriteJob | StatsJob | DescribeJob;

/** Jobs that change the store: one at a time, and the other workers reload what they changed. */
export function isWrite(job: Job): job is UpdateJob | GraphWriteJob {
  return job.op === 'update' || job.op === 'graph-write';
}

/** A graph a write changed: the files of its new version (as much of each as the manifest names), none when it is gone. */
export interface ChangedGraph {
  graph: string | null;
  files: NamedFile[];
  /** What changed, for a graph a read carried on: a worker that holds the graph applies it instead of loading the graph again. */
  delta?: GraphDelta;
}

export interface JobResult {
  status: number;
  mediaType?: string;
  /** UTF-8 bytes, transferred rather than copied. */
  body?: Uint8Array;
  /** A structured answer (stats, describe data). */
  data?: unknown;
  changed?: ChangedGraph[];
  headers?: Record<string, string>;
}

/** Messages from the server to a worker. */
export type ToWorker =
  /**
   * A standby opens the store: from here it is a copy that takes jobs once ready. `unrecorded`:
   * the changes told of that the manifest may not name yet, loaded after it (workers/unrecorded.ts);
   * `notLoaded`: as in `WorkerInit`.
   */
  | { type: 'open'; unrecorded: ChangedGraph[]; notLoaded: (string | null)[] }
  | { type: 'job'; id: number; job: Job }
  /** Graphs that changed on disk (a session landed, another worker wrote): drop and load again. */
  | { type: 'reload'; graphs: ChangedGraph[] }
  /** A copy opened as a standby, now the one kept: set shared triples aside (src/store/restated.ts). */
  | { type: 'set-aside' };

/** Messages from a worker to the server. */
export type FromWorker =
  /** Booted with no store: a standby, waiting for `open`. */
  | { type: 'booted' }
  /** Opening the store: quads loaded so far of the manifest's total. */
  | { type: 'progress'; quads: number; of: number }
  | { type: 'ready'; quads: number }
  | { type: 'init-failed'; message: string }
  /** A write has changed the store and is saving it: from here it must not be cut off. */
  | { type: 'persisting'; id: number }
  /** `quads`: the copy's size after a write that changed it. */
  | { type: 'done'; id: number; result: JobResult; quads?: number }
  | { type: 'failed'; id: number; status: number; message: string; headers?: Record<string, string>; fatal?: boolean }
  | { type: 'reloaded'; quads: number }
  /** A graph told of did not load (its file damaged on disk, say): this copy goes on without it. */
  | { type: 'graph-failed'; graph: string | null; problem: string }
  /** A graph that had failed loaded again. */
  | { type: 'graph-loaded'; graph: string | null };

/** A query worker's `workerData`. */
export interface WorkerInit {
  /** The TypeScript module `boot.mjs` runs in the new thread (from its built copy). */
  entry: string;
  storeDir: string;
  soul: string;
  /** Open the store at once; otherwise wait, booted, for an `open` message (a standby). */
  open: boolean;
  /** Opening at once: the changes told of that the manifest may not name yet (workers/unrecorded.ts). */
  unrecorded?: ChangedGraph[];
  /** Graphs the copies open left out, their files not loading: this one leaves them out too if they still do not. */
  notLoaded?: (string | null)[];
}

// ---- what a `stats` or `describe` job answers with, in `JobResult.data`

/** Counts behind VoID and the service description (a few seconds on a corpus of a million quads). */
export interface DatasetStats {
  quads: number;
  defaultGraphTriples: number;
  graphs: { name: string; triples: number }[];
  classes: { iri: string; entities: number }[];
  properties: { iri: string; triples: number }[];
  sessions: number;
}

/** One statement about the described resource, or about one of its content blocks. */
export interface Statement {
  p: string;
  o: JsonTerm;
}

export interface DescribedBlock {
  iri: string;
  /** The block or turn that holds it. */
  parent: string;
  statements: Statement[];
  /** Statements elsewhere that point at the block (a tool result answering a tool use). */
  incoming: { s: string; p: string; owner?: string }[];
}

/** What the describe page shows: the resource, its content blocks (nested), and what links to it. */
export interface Description {
  iri: string;
  statements: Statement[];
  /** Of a node with thousands of statements, how many objects each predicate has where more than were read. */
  objects?: Record<string, number>;
  blocks: DescribedBlock[];
  incoming: { s: string; p: string }[];
  incomingTruncated: boolean;
  graphs: string[];
  /** rdfs:label of every IRI on the page that has one (predicates, classes). */
  labels: Record<string, string>;
  /** The members of each class union the resource names (a term's domain or range), by its blank node. */
  unions?: Record<string, string[]>;
  /** The statements of each other blank node the resource names (a term's weave:nativeTerm mapping). */
  blankNodes?: Record<string, Statement[]>;
  /** The ids of the sessions holding it (a record, a block, a model node), for links to them. */
  sessions?: string[];
}

// ---- the ingest thread (workers/ingester.ts ⇄ workers/ingest-worker.ts)

/** The ingest thread's `workerData`. */
export interface IngestWorkerInit {
  entry: string;
  /** A dialect's module is not Weave's: `boot.mjs` runs the thread through tsx. */
  typescript?: boolean;
  paths: string[];
  storeDir: string;
  soul: string;
  content?: ContentPolicy;
  /** Run the readers (`weave detect`) after each ingest run. */
  detect: boolean;
  /** Keep a copy of what is read in the store's archive (default true). */
  archive?: boolean;
  /** Module URLs of the dialects to read with, each exporting `dialect`; default src/dialect/index.ts. */
  dialects?: string[];
}

/** Messages from the main thread to the ingest thread. */
export type ToIngest = {
  type: 'run';
  /** Run the readers after this run (default: as the thread was started); runs for a change seen leave them for later. */
  detect?: boolean;
};

/** Messages from the ingest thread: never a line's content, only where it was. */
export type FromIngest =
  | { type: 'progress'; progress: IngestProgress }
  | { type: 'session'; graph: string; files: NamedFile[]; delta?: GraphDelta }
  | { type: 'problem'; path: string; lineNo: number; kind: string }
  | { type: 'reader-problem'; sessionId: string; reader?: string }
  /** A note of the ingest's (a file's earlier version kept in the archive): paths and counts, never what a file says. */
  | { type: 'note'; note: string }
  | {
      type: 'done';
      /** The ingest report without its problem list (each problem was posted as it was met). */
      report: Omit<IngestReport, 'problems' | 'replayed'>;
    }
  | { type: 'error'; message: string };
