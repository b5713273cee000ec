import type { ChangedGraph, Job, JobResult } from './messages.ts';
import type { LoadProgress } from './workers/pool.ts';

/**
 * What the routes run jobs on: the store held in this server's query workers (workers/pool.ts),
 * or an external SPARQL store the server stands in front of (remote-backend.ts). The server
 * chooses once, in server.ts; nothing else asks which.
 */
export interface StoreBackend {
  run(job: Job, timeoutMs?: number): Promise<JobResult>;
  /**
   * Graphs that changed on disk (ingest, readers): those holding a copy load them again. Not
   * `recorded`: an ingest run's, which its manifest may not name until `recorded()`.
   */
  reload(graphs: ChangedGraph[], options?: { recorded?: boolean }): void;
  /** The ingest run ended: its manifest names every graph it told of (one that `failed`, as the manifest on disk says). */
  recorded(options?: { failed?: boolean }): void | Promise<void>;
  /** Resolves once jobs can be answered. */
  whenReady(): Promise<void>;
  close(): Promise<void>;
  readonly stats: {
    workers: number;
    copies: number;
    ready: number;
    busy: number;
    standby: boolean;
    /** A second copy is kept open at rest (`--spare`). */
    spare: boolean;
    queued: number;
    queueLimit: number;
    restarts: number;
    /** Set while nothing answers because the store cannot be opened. */
    openError?: string;
    /** Graphs the copies could not load (a file damaged on disk): the store needs attention. */
    notLoaded?: { graph: string | null; problem: string }[];
  };
  /** While the store is still opening: how far; undefined once it answers. */
  readonly loading: LoadProgress | undefined;
  readonly quads: number;
}
