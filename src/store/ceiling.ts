import { readManifest, type Manifest } from './manifest.ts';
import { readRemoteConfig } from './remote/config.ts';

/**
 * Where one embedded copy of the store ends. Oxigraph's WebAssembly build addresses at most
 * 4 GiB of memory, and an in-memory store of Weave's graphs takes about WASM_BYTES_PER_QUAD of
 * it per quad (`npm run bench -- --scale K` measures it; see bench/results/). So one copy holds
 * about QUAD_CEILING quads; at 80% of that `weave ingest` and `weave serve` say so, with the
 * transcripts that still fit, and a store over it is refused before it is loaded, never left to
 * fail inside WebAssembly. Past it, the store is served from an external SPARQL store, which
 * this ceiling does not bound.
 */

/** WebAssembly's 32-bit address space: what one Oxigraph store can grow to. */
export const WASM_LIMIT_BYTES = 4 * 2 ** 30;
/**
 * WASM memory per quad of an opened store. Measured on the corpus copied K times (bench/scale):
 * K = 16, 8.86 M quads, 3.04 GB (344 bytes a quad); K = 20, 11.08 M quads, 3.83 GB (345, and 353
 * for each quad past K = 16). With headroom for the memory growing in steps, 360: the ceiling
 * (11.9 M quads, about 1 GB of transcripts) stays below what K = 22 would need.
 */
export const WASM_BYTES_PER_QUAD = 360;
export const QUAD_CEILING = Math.floor(WASM_LIMIT_BYTES / WASM_BYTES_PER_QUAD);
/** Where the warning starts. */
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

/** A sentence on how full one embedded copy is, from WARN_SHARE on; undefined below it. */
export function capacityNotice(size: StoreSize, ceiling = QUAD_CEILING): string | undefined {
  const share = size.quads / ceiling;
  if (share < WARN_SHARE) return undefined;
  const perByte = size.transcriptBytes ? size.quads / size.transcriptBytes : 0;
  const where = `${millions(size.quads)} quads, ${Math.round(share * 100)}% of the ~${millions(ceiling)} one embedded store holds (4 GiB of WebAssembly memory at ~${WASM_BYTES_PER_QUAD} bytes a quad)`;
  const left =
    share >= 1
      ? 'no more transcripts fit'
      : perByte
        ? `about ${megabytes((ceiling - size.quads) / perByte)} more of transcripts fit`
        : 'little more fits';
  return `the store holds ${where}; ${left}. To go further, keep it in an external SPARQL store (--store http://HOST:PORT/sparql).`;
}

/** Throws, naming the way on, when the store is past what one embedded copy can load. */
export function assertFits(size: StoreSize, dir: string, ceiling = QUAD_CEILING): void {
  if (size.quads <= ceiling) return;
  throw new Error(`${dir}: ${capacityNotice(size, ceiling)} It is not loaded here: loading it would run out of WebAssembly memory.`);
}

function millions(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} M` : `${Math.round(n / 1e3)}k`;
}

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}
