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
  ingest?: Timed & { sessions: number; files: number; records: number; bytes: number; quads: number };
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
}

export interface ScaleResults {
  date: string;
  corpus: string;
  machine: { cpus: number; node: string; loadBefore: number[]; loadAfter?: number[] };
  settings: Record<string, number>;
  runs: ScaleRun[];
}
