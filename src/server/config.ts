import type { Dialect } from '../dialect/dialect.ts';
import type { ContentPolicy } from '../emit/content.ts';
import type { RdfMode } from '../rdf/rdf-mode.ts';

/** Everything `weave serve` can be told, with the defaults the command line applies. */
export interface ServerConfig {
  storeDir: string;
  soul: string;
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Per-job limit, from arrival to answer; a request may ask for less with `timeout=SECONDS`. */
  timeoutMs: number;
  workers: number;
  /** Keep a second copy of the store open at rest (workers ≥ 2): no wait for a copy to open behind a runaway. */
  spare?: boolean;
  /** Jobs that may wait for a free worker before requests are refused with 503. */
  queueLimit: number;
  /** Largest serialised result served (507 above it). */
  maxResultBytes: number;
  /** Largest request body (413 above it). */
  bodyLimitBytes: number;
  allowUpdate: boolean;
  /** Bearer token: needed for writes, and for everything when the server listens beyond loopback. */
  token?: string;
  /** Origins allowed to read responses cross-site; `*` for any. Empty: same-origin only. */
  corsOrigins: string[];
  /** Where the example queries (`*.rq`) for the page are read from, at each request. */
  queriesDir: string;
  /**
   * Sources to ingest and keep current (readers run after each run unless `detect` is false), read
   * by `dialects` (default src/dialect/index.ts); absent serves the store as it is.
   */
  ingest?: {
    paths: string[];
    note?: string;
    refreshMs: number;
    content?: ContentPolicy;
    detect?: boolean;
    dialects?: readonly Dialect[];
    archive?: boolean;
    /** Watch the sources and read what changes at once (else only every `refreshMs`). */
    watch?: boolean;
  };
  /**
   * Endpoints federated queries may contact (SERVICE targets and `source=` parameters). Empty:
   * federation is off, and the service description does not claim it.
   */
  serviceAllow?: string[];
  /** How triple terms are written for clients that do not ask (`?rdf=` overrides): see src/rdf/rdf-mode.ts. */
  rdfMode?: RdfMode;
  /**
   * Stop after this many seconds with no request (the server stops as on SIGTERM, through
   * `onIdle`); absent: never. A resident server started by a command has one.
   */
  idleExitSeconds?: number;
  /** The command that started this server as a resident one (`weave usage`), recorded in the run file. */
  startedBy?: string;
  /** Called once when the server should stop by itself (idle, or its store no longer names it), with why. */
  onIdle?: (reason: string) => void;
  /** Request lines (method, route, status, time; never query text) to `log`. */
  verbose: boolean;
  log: (line: string) => void;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 7878,
  timeoutSeconds: 30,
  queueLimit: 64,
  maxResultMb: 256,
  bodyLimitMb: 16,
  refreshSeconds: 10,
};

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
