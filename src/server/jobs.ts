/** What the server asks of a query worker, and what it answers. Plain data: it crosses threads. */

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
  /** Write triple terms as N-Triples text literals (for clients that predate RDF 1.2). */
  tripleTermsAsText: boolean;
  maxResultBytes: number;
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

export interface StatsJob {
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
  return job.op === 'update' || (job.op === 'graph-write');
}

/** A graph a write changed: its new file, or null when it is gone. */
export interface ChangedGraph {
  graph: string | null;
  file: string | null;
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
  | { type: 'job'; id: number; job: Job }
  /** Graphs that changed on disk (a session landed, another worker wrote): drop and load again. */
  | { type: 'reload'; graphs: ChangedGraph[] };

/** Messages from a worker to the server. */
export type FromWorker =
  | { type: 'ready'; quads: number }
  | { type: 'init-failed'; message: string }
  /** A write has changed the store and is saving it: from here it must not be cut off. */
  | { type: 'persisting'; id: number }
  | { type: 'done'; id: number; result: JobResult }
  | { type: 'failed'; id: number; status: number; message: string; headers?: Record<string, string>; fatal?: boolean }
  | { type: 'reloaded'; quads: number };
