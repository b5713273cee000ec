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
  queries: { name: string; runs: number; p50?: number; p95?: number; rows?: number; cutOffAfterMs?: number }[];
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
