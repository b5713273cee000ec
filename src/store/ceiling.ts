import { readManifest, type Manifest } from './manifest.ts';
import { readRemoteConfig } from './remote/config.ts';

/**
 * Where one embedded copy of the store ends. Oxigraph's WebAssembly build addresses at most
 * 4 GiB of memory. The store itself takes about WASM_BYTES_PER_QUAD of it per quad, so no more
 * than LOAD_CEILING quads can be loaded: a store over it is refused before it is loaded, never
 * left to fail inside WebAssembly. Answers need memory beside the store, so every ready query,
 * page and usage report answers only up to QUAD_CEILING, found by measurement (below); from
 * WARN_SHARE of it `weave ingest` and `weave serve` say so, with the transcripts that still fit.
 * Past it, the store is served from an external SPARQL store, which neither ceiling bounds.
 */

/** WebAssembly's 32-bit address space: what one Oxigraph store can grow to. */
export const WASM_LIMIT_BYTES = 4 * 2 ** 30;
/**
 * WASM memory per quad of an opened store. Measured on the corpus copied K times (bench/scale):
 * K = 16, 9.44 M quads, 3.43 GB (364 bytes a quad: at weave/0.13's graph, up from 344 at 0.10's).
 * With headroom for the memory growing in steps, 375.
 */
export const WASM_BYTES_PER_QUAD = 375;
/** The largest store one embedded copy loads (about 11.5 M quads): past it the store is refused. */
export const LOAD_CEILING = Math.floor(WASM_LIMIT_BYTES / WASM_BYTES_PER_QUAD);
/**
 * The largest store whose every ready query, page and usage report answers embedded, measured
 * by `npm run bench -- --scale` on the corpus copied K times (docs/benchmarks.md, "The embedded
 * ceiling"), in the manifest's quads as storeSize counts them: at K = 8, 4.64 M quads (376 MB of
 * transcripts), all answered; at K = 12, 6.96 M, record-envelope.rq stopped the store with a
 * WebAssembly trap, and at K = 16, 9.29 M, so did record-derived.rq and stored-texts.rq. Not in
 * their joins (at K = 16 each counted its rows within the memory the open left) but in their
 * answers, which Oxigraph writes whole inside the same 4 GiB beside the store (record-envelope's
 * at K = 8 grew it from 1.81 to 2.62 GB). So the ceiling is 4.6 M quads, just under what
 * answered, and the notice starts at WARN_SHARE of it, 3.7 M (about 300 MB of transcripts): a
 * fifth below what answered, and nearly half below where an answer first failed.
 */
export const QUAD_CEILING = 4_600_000;
/** Where the notice starts. */
const WARN_SHARE = 0.8;

interface StoreSize {
  quads: number;
  /** Bytes of the transcripts the session graphs were read from. */
  transcriptBytes: number;
}

/** The store's size from its manifest: quads of every graph, bytes of every source read. */
export function storeSize(manifest: Manifest | undefined): StoreSize {
  let quads = 0;
  const sources = new Map<string, number>();
  for (const entry of Object.values(manifest?.graphs ?? {})) {
    quads += entry.quads;
    if (entry.sessionId && !entry.reader) for (const s of entry.sources ?? []) if (s.path.endsWith('.jsonl')) sources.set(s.path, s.size);
  }
  let transcriptBytes = 0;
  for (const size of sources.values()) transcriptBytes += size;
  return { quads, transcriptBytes };
}

/** The size of the store in `dir` when it is held embedded; undefined for an external store (remote.json). */
export async function embeddedStoreSize(dir: string): Promise<StoreSize | undefined> {
  if (await readRemoteConfig(dir)) return undefined;
  return storeSize(await readManifest(dir));
}

/** A sentence on how full one embedded copy is, from WARN_SHARE of `ceiling` on; undefined below it. */
export function capacityNotice(size: StoreSize, ceiling = QUAD_CEILING, loadCeiling = LOAD_CEILING): string | undefined {
  const share = size.quads / ceiling;
  if (share < WARN_SHARE) return undefined;
  const perByte = size.transcriptBytes ? size.quads / size.transcriptBytes : 0;
  const where = `${millions(size.quads)} quads, ${Math.round(share * 100)}% of the ~${millions(ceiling)} up to which one embedded store answers every query (its 4 GiB of WebAssembly memory holds the store and each answer)`;
  const left =
    size.quads > loadCeiling
      ? `past ~${millions(loadCeiling)} it cannot be loaded at all`
      : share >= 1
        ? 'the largest answers may stop with 507 (out of memory)'
        : perByte
          ? `about ${megabytes((ceiling - size.quads) / perByte)} more of transcripts fit`
          : 'little more fits';
  return `the store holds ${where}; ${left}. To go further, keep it in an external SPARQL store (--store http://HOST:PORT/sparql).`;
}

/** Throws, naming the way on, when the store is past what one embedded copy can load. */
export function assertFits(size: StoreSize, dir: string, loadCeiling = LOAD_CEILING): void {
  if (size.quads <= loadCeiling) return;
  throw new Error(
    `${dir}: ${capacityNotice(size, Math.min(QUAD_CEILING, loadCeiling), loadCeiling)} It is not loaded here: loading it would run out of WebAssembly memory.`,
  );
}

function millions(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} M` : `${Math.round(n / 1e3)}k`;
}

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}
