import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REMOTE_FILE } from '../layout.ts';
import { defaultStoreDir } from '../paths.ts';

/**
 * An external store: a SPARQL 1.1 endpoint (and its Graph Store Protocol address) that holds the
 * graphs and answers the queries, for when one machine's memory is not enough. A store directory
 * with a `remote.json` is such a store: its manifest and graph files stay here (what was sent,
 * so unchanged sessions are skipped and readers read their spine locally), every graph the writer
 * commits is PUT there, and queries go there. `--store http(s)://…/sparql` names one by its
 * endpoint; its directory is made under the data directory, keyed by the URL.
 */

const REMOTE_FORMAT = 'weave-remote/1';

export interface RemoteConfig {
  format: typeof REMOTE_FORMAT;
  /** The SPARQL 1.1 query endpoint. */
  endpoint: string;
  /** The Graph Store Protocol service (`?graph=IRI`). */
  graphStore: string;
  /** Whether the store takes RDF 1.2 triple terms; without them they are sent in the RDF 1.1 form (rdf11.ts). */
  tripleTerms: boolean;
}

export function isStoreUrl(spec: string): boolean {
  return /^https?:\/\//i.test(spec);
}

/**
 * The Graph Store service beside an endpoint, by the conventions of the stores Weave is tried
 * with: Virtuoso's `…/sparql` → `…/sparql-graph-crud`, Oxigraph server's `…/query` → `…/store`.
 * Others: write `graphStore` into the directory's remote.json.
 */
function defaultGraphStore(endpoint: string): string | undefined {
  const url = new URL(endpoint);
  if (/\/sparql\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/sparql\/?$/, '/sparql-graph-crud');
  else if (/\/query\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/query\/?$/, '/store');
  else return undefined;
  url.search = '';
  return url.href;
}

/**
 * The directory that stands for the external store at `endpoint` (made, with its remote.json,
 * on first use). The file is written aside and renamed, and readable by the user only: a URL may
 * carry a password.
 */
export function remoteStoreDir(endpoint: string, base = defaultStoreDir()): string {
  const url = new URL(endpoint);
  const key = createHash('sha1').update(url.href).digest('hex').slice(0, 12);
  const dir = join(base, 'remote', `${url.hostname.replace(/[^A-Za-z0-9.-]/g, '_')}-${url.port || url.protocol.slice(0, -1)}-${key}`);
  const path = join(dir, REMOTE_FILE);
  try {
    readFileSync(path);
    return dir;
  } catch {
    // not made yet
  }
  const graphStore = defaultGraphStore(url.href);
  if (!graphStore)
    throw new Error(`${url.href}: which Graph Store Protocol address goes with this endpoint? Write it as "graphStore" in ${path}`);
  const config: RemoteConfig = { format: REMOTE_FORMAT, endpoint: url.href, graphStore, tripleTerms: false };
  mkdirSync(dir, { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 1)}\n`, { mode: 0o600 });
  renameSync(temp, path);
  return dir;
}

/** The store directory's external store, or undefined for a store held here. */
export async function readRemoteConfig(dir: string): Promise<RemoteConfig | undefined> {
  const path = join(dir, REMOTE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path}: ${(e as Error).message}`);
  }
  let json: Partial<RemoteConfig>;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path}: not valid JSON`);
  }
  if (json.format !== REMOTE_FORMAT) throw new Error(`${path}: .format: expected "${REMOTE_FORMAT}"`);
  for (const key of ['endpoint', 'graphStore'] as const)
    if (typeof json[key] !== 'string' || !isStoreUrl(json[key])) throw new Error(`${path}: .${key}: expected an http(s) URL`);
  if (typeof json.tripleTerms !== 'boolean') throw new Error(`${path}: .tripleTerms: expected true or false`);
  return json as RemoteConfig;
}
