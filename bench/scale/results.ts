import type { Load } from './endpoint.ts';
import type { UsageRun } from './usage.ts';

/** What one K of the scale bench measured. Times are wall and CPU milliseconds. */
export interface Timed {
  wallMs: number;
  cpuMs: number;
  peakRssMiB: number;
}

export interface ScaleRun {
  k: number;
  /** Transcript bytes of the K copies. */
  bytes: number;
  ingest?: Timed & { sessions: number; files: number; records: number; bytes: number; quads: number; notice?: string | null };
  readers?: Timed & { graphs: number; findings: number; problems: number };
  open?: Timed & { quads: number; wasmBytes: number };
  raw?: Timed & { quads: number; wasmBytes: number };
  /** A query past the cap is cut off; one that took its process down says how it ended (`died`). */
  queries: {
    name: string;
    runs: number;
    p50?: number;
    p95?: number;
    rows?: number;
    /** WebAssembly memory and peak RSS of the step's process once the query has run. */
    wasmBytes?: number;
    peakRssMiB?: number;
    cutOffAfterMs?: number;
    diedAfterMs?: number;
    died?: string;
  }[];
  endpoint: { query: 'point' | 'medium'; weave?: Load; bare?: Load }[];
  usage: { weave?: UsageRun; ccusage?: UsageRun };
  /** weave serve's pages, each asked once: HTTP status and milliseconds to the last byte. */
  pages?: { page: string; status: number; ms: number }[];
  /** What stopped a step (the store did not open, …); the steps after it ran. */
  failed?: string[];
  /** The external step (`--external`): the K copies in Virtuoso. */
  external?: ExternalRun;
}

/** Weave into Virtuoso beside Virtuoso's own: its bulk loader of the same quads, its own answer to the same SPARQL. */
export interface ExternalRun {
  /** `weave ingest --store http://…/sparql`, readers included; `failed`: its last line of stderr. */
  ingest?: Timed & { failed?: string; said?: string[] };
  /** Quads weave's ingest put in Virtuoso. */
  quads?: number;
  /** `weave export --format nquads --rdf 1.1` of the same store, and its file's size. */
  export?: Timed & { bytes: number };
  /** Virtuoso's bulk loader (ld_dir, rdf_loader_run, checkpoint) of that file into an empty Virtuoso. */
  bulkLoad?: { wallMs: number; quads: number; files: number; failed?: string };
  /**
   * `weave verify --store http://…/sparql`: every line and stored text of the copies against the
   * store; `lines` checked, `ok` as it says; `failed`: cut off, or its last line of stderr.
   */
  verify?: Timed & {
    ok?: boolean;
    lines?: number;
    texts?: number;
    failed?: string;
    /** When it does not pass: how many files fail, whether the store's own check does, and the first ten files. */
    failing?: number;
    storeFails?: boolean;
    said?: string[];
  };
  /** Each ready query: `weave query --store …` (wall, the command whole) beside a bare fetch (to the last byte; cold: first). */
  queries: { name: string; weaveMs?: number; weaveRows?: number; bareMs?: number; bareColdMs?: number; rows?: number; failed?: string }[];
}

export interface ScaleResults {
  date: string;
  corpus: string;
  machine: { cpus: number; node: string; loadBefore: number[]; loadAfter?: number[] };
  settings: Record<string, number>;
  runs: ScaleRun[];
}
